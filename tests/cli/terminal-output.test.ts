// How `opsbot run` prints the kernel's context events as they happen.
import { describe, expect, it } from 'vitest';
import { formatEvent, formatMessage } from '../../bot/cli/terminal-output.js';
import { sampleApprovalCard } from '../fixtures/outbound-messages.js';

describe('formatEvent', () => {
  it('says how many older tool outputs were cut, and how many turns keep theirs', () => {
    expect(formatEvent({ type: 'tool_outputs_cut', at: 0, step: 9, count: 5, keptTurns: 4 })).toContain(
      '5 older tool outputs cut to their summaries (the last 4 tool turns keep theirs)',
    );
    expect(formatEvent({ type: 'tool_outputs_cut', at: 0, step: 9, count: 1, keptTurns: 4 })).toContain(
      '1 older tool output cut to their summaries',
    );
  });

  it('says how far the context was compressed', () => {
    expect(
      formatEvent({ type: 'context_compressed', at: 0, step: 3, beforeTokens: 9000, afterTokens: 2000 }),
    ).toContain('context compressed: 9000 → 2000 tokens');
  });
});

describe('formatMessage', () => {
  it("prints an approval card's command line and impact above its arguments, and neither when absent", () => {
    const card = {
      ...sampleApprovalCard,
      willRun: 'systemctl restart api.service',
      impact: 'about 20 s of 502s',
    };
    const lines = formatMessage(card)!.split('\n');
    expect(lines[1]).toBe('  will run:  systemctl restart api.service');
    expect(lines[2]).toBe('  impact:    about 20 s of 502s');
    expect(lines[3]).toMatch(/^ {2}arguments: /);
    expect(formatMessage(sampleApprovalCard)).not.toMatch(/will run|impact/);
  });
});
