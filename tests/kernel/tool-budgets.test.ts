// A tool's own call budget in a run (limits.tool_budgets): past it, the next call of that tool is refused with words
// the model acts on, and the run goes on with other tools. Counted from the run's record, so a restart counts the same.
import { afterEach, describe, expect, it } from 'vitest';
import type { KernelLimits } from '../../agent/kernel-options.js';
import type { RunEvent } from '../../agent/run-events.js';
import { outcomeProblems } from '../../agent/run-outcomes.js';
import { callsSpent } from '../../agent/tool-budgets.js';
import { MemoryTraceSink } from '../../agent/trace.js';
import { text, toolCalls } from '../fakes/openai-server.js';
import {
  alice,
  answerRun,
  conversation,
  createHarness,
  type Harness,
  runTask,
  toolMessages,
} from './harness.js';

let harness: Harness;
afterEach(async () => harness?.close());

function budgets(defaultCalls: number, calls: Record<string, number> = {}): Partial<KernelLimits> {
  return { toolTimeoutMs: 200, toolBudgets: { defaultCalls, calls } };
}

const check = (url: string) => toolCalls([{ name: 'check_http', arguments: { url } }]);

/** The error the model read for the last tool message of a request. */
function lastToolError(request: number): { class: string; message: string } | undefined {
  const messages = toolMessages(harness.fake.requests[request]!.body) as {
    error?: { class: string; message: string };
  }[];
  return messages.at(-1)?.error;
}

describe('per-tool budgets', () => {
  it('refuses a call past its tool budget with the tool, the count and the setting; other tools still run', async () => {
    const trace = new MemoryTraceSink();
    harness = await createHarness({ kernel: { limits: budgets(2), trace } });
    harness.fake.reply(
      check('https://1.example'),
      check('https://2.example'),
      check('https://3.example'),
      toolCalls([{ name: 'read_logs', arguments: { service: 'api' } }]),
      text('Two sites answer; the api logs are quiet.'),
    );
    const run = await runTask(harness.kernel, { text: 'check everything', principal: alice, conversation });

    expect(harness.probe.count('check_http')).toBe(2);
    expect(harness.probe.count('read_logs')).toBe(1);
    expect(lastToolError(3)).toMatchObject({
      class: 'refused_by_policy',
      message:
        'check_http has used its 2 calls in this run (limits.tool_budgets.default_calls); use another tool or answer with what you know.',
    });
    expect(run.status).toBe('finished');
    expect(run.answer).toBe('Two sites answer; the api logs are quiet.');
    expect(run.ok).toBe(true);
    // The model had to use something else: a budget refusal is not a problem of the run.
    expect(outcomeProblems(run)).toEqual([]);
    expect(run.events.filter((event) => event.type === 'tool_budget_spent')).toMatchObject([
      { tool: 'check_http', calls: 2, setting: 'limits.tool_budgets.default_calls' },
    ]);
    expect(trace.records.filter((record) => record.kind === 'tool_budget_spent')).toMatchObject([
      { tool: 'check_http', summary: expect.stringMatching(/^budget spent: 2 calls/) },
    ]);
  });

  it('runs only the budget of a batch of parallel calls, and refuses the rest', async () => {
    harness = await createHarness({ kernel: { limits: budgets(2) } });
    harness.fake.reply(
      toolCalls([
        { name: 'check_http', arguments: { url: 'https://1.example' } },
        { name: 'check_http', arguments: { url: 'https://2.example' } },
        { name: 'check_http', arguments: { url: 'https://3.example' } },
      ]),
      text('done'),
    );
    const run = await runTask(harness.kernel, { text: 'check three', principal: alice, conversation });
    expect(harness.probe.count('check_http')).toBe(2);
    expect(lastToolError(1)?.message).toMatch(/^check_http has used its 2 calls in this run/);
    expect(run.status).toBe('finished');
  });

  it('spends nothing on a repeat answered from the run, nor on one that failed the same way before', async () => {
    harness = await createHarness({ kernel: { limits: budgets(2) } });
    harness.fake.reply(
      check('https://1.example'),
      check('https://1.example'),
      toolCalls([{ name: 'flaky', arguments: { n: 1 } }]),
      toolCalls([{ name: 'flaky', arguments: { n: 1 } }]),
      check('https://2.example'),
      toolCalls([{ name: 'flaky', arguments: { n: 2 } }]),
      text('done'),
    );
    const run = await runTask(harness.kernel, { text: 'check', principal: alice, conversation });
    expect(harness.probe.count('check_http')).toBe(2);
    expect(harness.probe.count('flaky')).toBe(2);
    expect(run.events.some((event) => event.type === 'tool_budget_spent')).toBe(false);
    expect(callsSpent(run, 'check_http')).toBe(2);
  });

  it("uses a tool's own budget over the default", async () => {
    harness = await createHarness({ kernel: { limits: budgets(1, { check_http: 3 }) } });
    harness.fake.reply(
      check('https://1.example'),
      check('https://2.example'),
      check('https://3.example'),
      toolCalls([{ name: 'read_logs', arguments: { service: 'api' } }]),
      toolCalls([{ name: 'read_logs', arguments: { service: 'web' } }]),
      text('done'),
    );
    await runTask(harness.kernel, { text: 'check', principal: alice, conversation });
    expect(harness.probe.count('check_http')).toBe(3);
    expect(harness.probe.count('read_logs')).toBe(1);
    expect(lastToolError(5)?.message).toBe(
      'read_logs has used its 1 call in this run (limits.tool_budgets.default_calls); use another tool or answer with what you know.',
    );
  });

  it('names the per-tool setting when that is the budget spent', async () => {
    harness = await createHarness({ kernel: { limits: budgets(5, { check_http: 1 }) } });
    harness.fake.reply(check('https://1.example'), check('https://2.example'), text('done'));
    await runTask(harness.kernel, { text: 'check', principal: alice, conversation });
    expect(harness.probe.count('check_http')).toBe(1);
    expect(lastToolError(2)?.message).toContain('(limits.tool_budgets.calls.check_http)');
  });

  it('counts the same in a new kernel over the same SQLite file, after the run waited for a person', async () => {
    harness = await createHarness({ store: 'sqlite', kernel: { limits: budgets(2) } });
    harness.fake.reply(
      check('https://1.example'),
      check('https://2.example'),
      toolCalls([{ name: 'ask_user', arguments: { question: 'Which one next?' } }]),
    );
    const waiting = await runTask(harness.kernel, { text: 'check', principal: alice, conversation });
    expect(waiting.status).toBe('waiting_for_user');
    await harness.kernel.shutdown();

    const restarted = harness.newKernel();
    harness.fake.reply(check('https://3.example'), text('two checked'));
    const run = await answerRun(restarted, waiting.id, 'the third', alice);
    expect(harness.probe.count('check_http')).toBe(2);
    expect(lastToolError(4)?.message).toMatch(/^check_http has used its 2 calls in this run/);
    expect(run.status).toBe('finished');
  });

  it("gives a patrol's planned checks no per-tool budget: people chose each call, not the model", async () => {
    harness = await createHarness({ model: false, kernel: { limits: budgets(1) } });
    const calls = ['a', 'b', 'c'].map((host) => {
      const args = { url: `https://${host}.example` };
      return { id: `chk_${host}`, name: 'check_http', args, rawArguments: JSON.stringify(args) };
    });
    const run = await runTask(harness.kernel, {
      text: 'patrol sites',
      principal: { platform: 'patrol', userId: 'sites', displayName: 'patrol sites', roles: [], groups: [] },
      conversation: { platform: 'patrol', channelId: 'sites' },
      engine: 'checks',
      plan: { calls },
    });
    expect(run.status).toBe('finished');
    expect(harness.probe.count('check_http')).toBe(3);
  });

  it('counts runs saved before results said whether they ran: repeats and refusals spent nothing', () => {
    const result = (callId: string, extra: Partial<Extract<RunEvent, { type: 'tool_result' }>>) =>
      ({
        type: 'tool_result',
        at: 0,
        step: 1,
        callId,
        tool: 'check_http',
        ok: true,
        summary: '',
        durationMs: 1,
        repeated: false,
        ...extra,
      }) as RunEvent;
    const events = [
      result('a', {}),
      result('b', { repeated: true }),
      result('c', { ok: false, errorClass: 'refused_by_policy' }),
      result('d', { ok: false, errorClass: 'transient' }),
      result('e', { ok: false, errorClass: 'transient', ran: false }),
    ];
    expect(callsSpent({ events }, 'check_http')).toBe(2);
    expect(callsSpent({ events }, 'read_logs')).toBe(0);
  });
});
