// Guards: max steps, budgets, the per-tool circuit breaker, and context compression at the threshold.
import { afterEach, describe, expect, it } from 'vitest';
import { text, toolCalls } from '../fakes/openai-server.js';
import { alice, conversation, createHarness, type Harness, runTask } from './harness.js';

let harness: Harness;
afterEach(async () => harness?.close());

const logsCall = (n: number) =>
  toolCalls([{ name: 'check_http', arguments: { url: `https://host${n}.example` } }]);

describe('guards', () => {
  it('stops at max steps with a clear message', async () => {
    harness = await createHarness({ kernel: { limits: { maxSteps: 3, toolTimeoutMs: 200 } } });
    harness.fake.reply(logsCall(1), logsCall(2), logsCall(3), logsCall(4));
    const run = await runTask(harness.kernel, { text: 'loop', principal: alice, conversation });
    expect(run.status).toBe('failed');
    expect(run.error).toMatchObject({ code: 'max_steps' });
    expect(run.error?.message).toContain('3 steps');
    expect(harness.fake.requests).toHaveLength(3);
  });

  it('stops at the tool-call budget', async () => {
    harness = await createHarness({ kernel: { limits: { maxToolCalls: 2, toolTimeoutMs: 200 } } });
    harness.fake.reply(
      toolCalls([
        { name: 'check_http', arguments: { url: 'https://1.example' } },
        { name: 'check_http', arguments: { url: 'https://2.example' } },
      ]),
      logsCall(3),
    );
    const run = await runTask(harness.kernel, { text: 'many', principal: alice, conversation });
    expect(run.status).toBe('failed');
    expect(run.error).toMatchObject({ code: 'max_tool_calls' });
    expect(harness.probe.count('check_http')).toBe(2);
  });

  it('stops at the token budget', async () => {
    harness = await createHarness({ kernel: { limits: { maxTokens: 1000, toolTimeoutMs: 200 } } });
    harness.fake.reply(
      toolCalls([{ name: 'check_http', arguments: { url: 'https://1.example' } }], {
        usage: { promptTokens: 900, completionTokens: 200 },
      }),
    );
    const run = await runTask(harness.kernel, { text: 'big', principal: alice, conversation });
    expect(run.status).toBe('failed');
    expect(run.error).toMatchObject({ code: 'max_tokens' });
    expect(harness.probe.count('check_http')).toBe(0);
  });

  it('stops at the wall-time budget', async () => {
    harness = await createHarness({ kernel: { limits: { maxWallTimeMs: 60_000, toolTimeoutMs: 200 } } });
    harness.fake.respond(() => {
      harness.clock.advance(45_000);
      return toolCalls([
        { name: 'check_http', arguments: { url: `https://${harness.fake.requests.length}.example` } },
      ]);
    });
    const run = await runTask(harness.kernel, { text: 'slow', principal: alice, conversation });
    expect(run.status).toBe('failed');
    expect(run.error).toMatchObject({ code: 'max_wall_time' });
    expect(harness.fake.requests).toHaveLength(2);
  });

  it('opens a tool breaker after 3 failures, fails fast while open, and closes after the open time', async () => {
    harness = await createHarness({ kernel: { limits: { maxSteps: 20, toolTimeoutMs: 200 } } });
    const flaky = (n: number) => toolCalls([{ name: 'flaky', arguments: { n } }]);
    harness.fake.reply(flaky(1), flaky(2), flaky(3), flaky(4), text('gave up'));
    await runTask(harness.kernel, { text: 'flaky', principal: alice, conversation });
    expect(harness.probe.count('flaky')).toBe(3);
    const fourth = JSON.parse(harness.fake.requests[4]!.body.messages!.at(-1)!.content as string);
    expect(fourth.error.message).toMatch(/temporarily disabled/);

    harness.clock.advance(30_001);
    harness.fake.reply(flaky(5), text('tried again'));
    await runTask(harness.kernel, {
      text: 'flaky again',
      principal: alice,
      conversation: { ...conversation, threadId: 't2' },
    });
    expect(harness.probe.count('flaky')).toBe(4);
  });

  it('keeps a tool breaker open across a restart on the same SQLite file, until its open time is out', async () => {
    harness = await createHarness({
      store: 'sqlite',
      kernel: { limits: { maxSteps: 20, toolTimeoutMs: 200 } },
    });
    const flaky = (n: number) => toolCalls([{ name: 'flaky', arguments: { n } }]);
    harness.fake.reply(flaky(1), flaky(2), flaky(3), text('gave up'));
    await runTask(harness.kernel, { text: 'flaky', principal: alice, conversation });
    expect(harness.probe.count('flaky')).toBe(3);
    await harness.kernel.shutdown();

    const restarted = harness.newKernel();
    harness.fake.reply(flaky(4), text('still down'));
    await runTask(restarted, {
      text: 'flaky?',
      principal: alice,
      conversation: { ...conversation, threadId: 't2' },
    });
    expect(harness.probe.count('flaky')).toBe(3);
    const refused = JSON.parse(harness.fake.requests.at(-1)!.body.messages!.at(-1)!.content as string);
    expect(refused.error.message).toBe(
      'flaky is temporarily disabled after repeated failures. It will be tried again in 30 s.',
    );

    harness.clock.advance(30_000);
    harness.fake.reply(flaky(5), text('tried again'));
    await runTask(restarted, {
      text: 'flaky now?',
      principal: alice,
      conversation: { ...conversation, threadId: 't3' },
    });
    expect(harness.probe.count('flaky')).toBe(4);
    await restarted.shutdown();
  });

  it('compresses the context when the prompt passes the threshold', async () => {
    harness = await createHarness({
      kernel: { contextWindow: 4000, compressAt: 0.5, limits: { maxSteps: 10, toolTimeoutMs: 200 } },
    });
    const longTask = `investigate ${'the api latency spike '.repeat(60)}`;
    let turns = 0;
    harness.fake.respond((request) => {
      const system = request.body.messages?.[0]?.content ?? '';
      if (String(system).startsWith('Summarize')) return text('- checked hosts 1-4: all answered 200');
      turns += 1;
      if (turns >= 6) return text('done');
      return toolCalls([
        { name: 'check_http', arguments: { url: `https://host${turns}.example/${'x'.repeat(300)}` } },
      ]);
    });
    const run = await runTask(harness.kernel, { text: longTask, principal: alice, conversation });
    expect(run.status).toBe('finished');
    const compressed = run.events.filter((event) => event.type === 'context_compressed');
    expect(compressed.length).toBeGreaterThan(0);
    for (const event of compressed) {
      if (event.type === 'context_compressed') expect(event.afterTokens).toBeLessThan(event.beforeTokens);
    }
    expect(
      harness.fake.requests.some((request) =>
        String(request.body.messages?.[0]?.content).startsWith('Summarize'),
      ),
    ).toBe(true);
    const last = harness.fake.requests.at(-1)!.body.messages!;
    expect(last[0]!.role).toBe('system');
    expect(last[1]!.content).toBe(longTask.trim());
  });
});
