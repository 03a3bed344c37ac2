// What a Silence button's ended run made, read from the run alone: a silence only from a finished, ok run whose
// alertmanager_silence call answered ok; nothing from a denied, failed, cancelled or expired one.
import { describe, expect, it } from 'vitest';
import type { Run } from '../../agent/run.js';
import { silenceOutcome } from '../../bot/alerts/alert-silence-outcome.js';
import { SILENCE_TOOL } from '../../bot/alerts/alert-silences.js';
import { AT, sampleRuns } from '../kernel/run-machine-samples.js';

function toolSaid(run: Run, content: unknown): Run {
  const text = typeof content === 'string' ? content : JSON.stringify(content);
  return {
    ...run,
    messages: [...run.messages, { role: 'tool', toolCallId: 'silence_1', name: SILENCE_TOOL, content: text }],
  };
}

const made = {
  tool: SILENCE_TOOL,
  ok: true,
  summary: 'Silenced alertname="DiskFull" until 2026-01-01T13:03:00.000Z (silence 5c1d).',
  data: { silence_id: '5c1d', ends_at: '2026-01-01T13:03:00.000Z', already: false },
};

describe("a Silence button's run outcome", () => {
  it('is the silence made: who asked, its end as Alertmanager gave it, and its id', () => {
    expect(silenceOutcome(toolSaid(sampleRuns.finished, made), SILENCE_TOOL, '1h')).toEqual({
      by: 'Alice',
      until: Date.parse('2026-01-01T13:03:00.000Z'),
      duration: '1h',
      silenceId: '5c1d',
    });
  });

  it('lasts its length from the end of the run when the result gives no end or id', () => {
    const cut = toolSaid(sampleRuns.finished, { ok: true, summary: 'Silenced.' });
    expect(silenceOutcome(cut, SILENCE_TOOL, '4h')).toEqual({
      by: 'Alice',
      until: AT + 4 * 3_600_000,
      duration: '4h',
    });
  });

  it('is nothing for a run that made no silence', () => {
    const denied = toolSaid(
      { ...sampleRuns.finished, answer: 'alertmanager_silence did not run: denied by Ada', ok: false },
      { tool: SILENCE_TOOL, ok: false, error: { class: 'denied', message: 'denied by Ada' } },
    );
    const refused = toolSaid(sampleRuns.finished, {
      tool: SILENCE_TOOL,
      ok: false,
      error: { class: 'policy', message: 'not allowed' },
    });
    for (const run of [
      denied,
      refused,
      toolSaid(sampleRuns.finished, 'not json'),
      sampleRuns.finished,
      toolSaid(sampleRuns.failed, made),
      toolSaid(sampleRuns.cancelled, made),
      toolSaid(sampleRuns.expired, made),
      toolSaid(sampleRuns.outcome_unknown, made),
    ]) {
      expect(silenceOutcome(run, SILENCE_TOOL, '1h')).toBeUndefined();
    }
  });
});
