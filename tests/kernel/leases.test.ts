// Run leases: one process steps a run at a time; recovery never doubles a live run, and takes over a dead one.
import { afterEach, describe, expect, it } from 'vitest';
import { text, toolCalls } from '../fakes/openai-server.js';
import { alice, conversation, createHarness, type Harness, runTask, type TestRun } from './harness.js';

let harness: Harness;
afterEach(async () => harness?.close());

const check = (n: number) => toolCalls([{ name: 'check_http', arguments: { url: `https://${n}.example` } }]);

describe('run leases', () => {
  it('recovery during a run in this process does not step it a second time', async () => {
    harness = await createHarness({ store: 'sqlite' });
    let recovered: { continued: number } | undefined;
    harness.fake.respond(async (_request, index) => {
      if (index === 0) {
        recovered = await harness.kernel.recover();
        return check(1);
      }
      return text('done');
    });
    const run = await runTask(harness.kernel, { text: 'check', principal: alice, conversation });
    expect(run.status).toBe('finished');
    expect(recovered?.continued).toBe(0);
    expect(harness.fake.requests).toHaveLength(2);
    expect(harness.probe.count('check_http')).toBe(1);
  });

  it('another process leaves a live run alone, renews keep it live, and a dead holder is taken over after its lease', async () => {
    harness = await createHarness({ store: 'sqlite', kernel: { runLeaseMs: 60_000 } });
    const other = harness.newKernel({ runLeaseMs: 60_000 });
    let othersView: { continued: number } | undefined;
    harness.fake.respond(async (_request, index) => {
      // Each turn takes 30 s of (injected) time: past the first lease without renewals.
      harness.clock.advance(30_000);
      if (index === 3) othersView = await other.recover();
      return index < 4 ? check(index) : text('done');
    });
    const run = await runTask(harness.kernel, { text: 'long task', principal: alice, conversation });
    expect(run.status).toBe('finished');
    expect(othersView?.continued).toBe(0);
    expect(harness.fake.requests).toHaveLength(5);

    // A process that died mid-run: its run is stored as running, and its lease is still held.
    harness.fake.respond(undefined);
    harness.fake.reply(check(9));
    const stuck = await runTask(harness.kernel, {
      text: 'crashes',
      principal: alice,
      conversation: { ...conversation, threadId: 't-crash' },
    });
    await harness.store.claim(`run-lease:${stuck.id}`, 'kernel_dead', 60_000);
    const { answer: _answer, ok: _ok, ...finished } = (await harness.kernel.get(stuck.id)) as TestRun;
    await harness.kernel.runs.save({ ...finished, status: 'running', queue: [] });
    expect((await other.recover()).continued).toBe(0);
    harness.clock.advance(60_001);
    harness.fake.reply(text('recovered'));
    expect((await other.recover()).continued).toBe(1);
    expect(((await other.settled(stuck.id)) as TestRun).answer).toBe('recovered');
  });

  it('a worker whose lease lapsed mid-step writes nothing, even once nobody holds the lease', async () => {
    harness = await createHarness({ store: 'sqlite', kernel: { runLeaseMs: 60_000 } });
    harness.fake.respond(async (_request, index) => {
      // The first step outlives the lease: another process may have taken the run over and let go meanwhile.
      if (index === 0) harness.clock.advance(60_001);
      return text(index === 0 ? 'stale answer' : 'fresh answer');
    });
    const runId = await harness.kernel.start({ text: 'check', principal: alice, conversation });
    await harness.kernel.idle();
    expect((await harness.kernel.get(runId)).status).toBe('queued');
    expect(harness.chat.texts().join('\n')).not.toContain('stale answer');

    // Recovery picks the run up from its last save and redoes the step.
    expect((await harness.kernel.recover()).continued).toBe(1);
    const run = (await harness.kernel.settled(runId)) as TestRun;
    expect(run.answer).toBe('fresh answer');
    expect(harness.fake.requests).toHaveLength(2);
  });

  it('frees the lease with the last save of a turn, and keeps the thread for the waiting run: another process can take the run at once', async () => {
    harness = await createHarness({ store: 'sqlite' });
    harness.fake.reply(toolCalls([{ name: 'ask_user', arguments: { question: 'Which?' } }]));
    const waiting = await runTask(harness.kernel, { text: 'check', principal: alice, conversation });
    expect(waiting.status).toBe('waiting_for_user');
    expect(await harness.store.holder(`run-lease:${waiting.id}`)).toBeUndefined();
    // The thread stays the waiting run's: another request there queues behind it.
    expect(await harness.store.holder('thread-lock:cli:terminal:t1')).toBe(waiting.id);

    harness.fake.reply(text('done'));
    const finished = await runTask(harness.kernel, {
      text: 'another',
      principal: alice,
      conversation: { ...conversation, threadId: 't2' },
    });
    expect(finished.status).toBe('finished');
    expect(await harness.store.holder(`run-lease:${finished.id}`)).toBeUndefined();
    const other = harness.newKernel();
    expect(await other.cancel(waiting.id, alice)).toMatchObject({ message: `Cancelled ${waiting.id}.` });
  });
});
