// The checks engine: a fixed set of calls made at once, their results kept apart (failed vs could not run), an
// optional model summary that never changes them, and runs that are kept only for a bounded time.
import { afterEach, describe, expect, it } from 'vitest';
import type { Principal } from '../../agent/principal.js';
import type { PlannedCall } from '../../agent/run.js';
import { status, text } from '../fakes/openai-answers.js';
import { createHarness, type Harness, runTask } from './harness.js';

let harness: Harness;
afterEach(async () => harness?.close());

const patrol: Principal = {
  platform: 'patrol',
  userId: 'api-health',
  displayName: 'patrol api-health',
  roles: ['patrol'],
  groups: [],
};
const conversation = { platform: 'patrol' as const, channelId: 'api-health' };

function call(id: string, name: string, args: Record<string, unknown>): PlannedCall {
  return { id, name, args, rawArguments: JSON.stringify(args) };
}

const plan = {
  calls: [
    call('chk_api', 'check_http', { url: 'https://a.example' }),
    call('chk_logs', 'read_logs', { service: 'api' }),
    call('chk_flaky', 'flaky', {}),
  ],
};

describe('checks engine', () => {
  it('makes every planned call at once and answers with each result; a throw is recorded as an error class', async () => {
    harness = await createHarness({ model: false });
    const run = await runTask(harness.kernel, {
      text: 'patrol api-health',
      principal: patrol,
      conversation,
      engine: 'checks',
      plan,
    });
    expect(run.status).toBe('finished');
    expect(run.ok).toBe(false);
    expect(run.answer).toBe('1 of 3 checks failed: flaky.');
    expect(harness.probe.calls.map((c) => c.tool).sort()).toEqual(['check_http', 'flaky', 'read_logs']);
    expect(harness.probe.maxInFlight).toBeGreaterThanOrEqual(2);
    const results = run.events.filter((e) => e.type === 'tool_result');
    expect(results.map((e) => [e.callId, e.ok, e.errorClass])).toEqual(
      expect.arrayContaining([
        ['chk_api', true, undefined],
        ['chk_logs', true, undefined],
        ['chk_flaky', false, 'transient'],
      ]),
    );
    expect(run.usage.modelCalls).toBe(0);
  });

  it('with a model and a summary task, adds one model call with no tools; the results stay as they were', async () => {
    harness = await createHarness();
    harness.fake.reply(text('The API is fine; flaky keeps resetting. Look at its network first.'));
    const run = await runTask(harness.kernel, {
      text: 'patrol api-health',
      principal: patrol,
      conversation,
      engine: 'checks',
      plan: { ...plan, summaryTask: 'Summarize what changed.' },
    });
    expect(run.status).toBe('finished');
    expect(run.answer).toContain('1 of 3 checks failed: flaky.');
    expect(run.answer).toContain('Look at its network first.');
    expect(run.usage.modelCalls).toBe(1);
    const request = harness.fake.requests[0]!.body as { tools?: unknown[]; messages: { content: string }[] };
    expect(request.tools ?? []).toEqual([]);
    expect(request.messages[1]!.content).toContain('flaky: FAILED');
  });

  it('a failing model leaves a note instead of a summary, and the run still finishes with the results', async () => {
    harness = await createHarness();
    harness.fake.reply(status(500), status(500), status(500));
    const run = await runTask(harness.kernel, {
      text: 'patrol api-health',
      principal: patrol,
      conversation,
      engine: 'checks',
      plan: { calls: [plan.calls[0]!], summaryTask: 'Summarize.' },
    });
    expect(run.status).toBe('finished');
    expect(run.ok).toBe(true);
    expect(run.answer).toMatch(/^All 1 checks passed\.\n\n\(No summary: the model failed/);
  });

  it('a run kept for a bounded time expires from the store and stays out of its thread memory', async () => {
    harness = await createHarness({ model: false, store: 'sqlite' });
    const run = await runTask(harness.kernel, {
      text: 'patrol api-health',
      principal: patrol,
      conversation,
      engine: 'checks',
      plan: { calls: [plan.calls[0]!] },
      keepForMs: 60_000,
    });
    expect(run.status).toBe('finished');
    expect(await harness.kernel.runs.threadRunIds(conversation)).toEqual([]);
    expect(await harness.kernel.runs.find(run.id)).toBeDefined();
    harness.clock.advance(60_001);
    expect(await harness.kernel.runs.find(run.id)).toBeUndefined();
  });
});
