// Durable runs: the stored fixture still loads, a crash mid-action becomes outcome_unknown, and cancel works.
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { loadRunRecord } from '../../agent/run-migrations.js';
import { text, toolCalls } from '../fakes/openai-server.js';
import {
  alice,
  answerRun,
  bob,
  conversation,
  createHarness,
  type Harness,
  noAdminPolicy,
  runTask,
  type TestRun,
} from './harness.js';

let harness: Harness;
afterEach(async () => harness?.close());

describe('durable runs', () => {
  it('loads the stored v1 run fixture, so upgrades never strand runs', () => {
    const raw = JSON.parse(readFileSync(new URL('../fixtures/run-v1.fixture.json', import.meta.url), 'utf8'));
    const run = loadRunRecord(raw, 'fixture');
    expect(run.status).toBe('waiting_for_user');
    expect(run.status === 'waiting_for_user' && run.question.question).toBe('Which environment?');
  });

  it('refuses a run from a newer schema, and a damaged record, with clear messages', () => {
    const raw = JSON.parse(readFileSync(new URL('../fixtures/run-v1.fixture.json', import.meta.url), 'utf8'));
    expect(() => loadRunRecord({ ...raw, schemaVersion: 99 }, 'stored run x')).toThrow(/newer opsbot/);
    expect(() => loadRunRecord({ ...raw, status: 'bogus' }, 'stored run x')).toThrow(/damaged: status/);
  });

  it.each([
    ['v1', (raw: { pending: { expiresAt: number } }, at: number) => (raw.pending.expiresAt = at)],
    ['v2', (raw: { question: { expiresAt: number } }, at: number) => (raw.question.expiresAt = at)],
    ['v3', (raw: { question: { expiresAt: number } }, at: number) => (raw.question.expiresAt = at)],
  ] as const)('resumes the stored %s fixture run in a fresh kernel', async (version, renew) => {
    harness = await createHarness({ store: 'sqlite' });
    const raw = JSON.parse(
      readFileSync(new URL(`../fixtures/run-${version}.fixture.json`, import.meta.url), 'utf8'),
    );
    renew(raw, harness.clock.now() + 60_000);
    // Stored as written by that version, read through the migrations.
    await harness.store.set(`run:${raw.id}`, raw);
    harness.fake.reply(text('prod is fine'));
    const run = await answerRun(harness.kernel, raw.id, 'prod', {
      ...alice,
      userId: raw.principal.userId,
      platform: raw.principal.platform,
    });
    expect(run.status).toBe('finished');
    expect(run.answer).toBe('prod is fine');
  });

  it('loads the stored v2 run fixture as it was written, upgraded to v4 with no failed actions', () => {
    const raw = JSON.parse(readFileSync(new URL('../fixtures/run-v2.fixture.json', import.meta.url), 'utf8'));
    const run = loadRunRecord(raw, 'fixture');
    expect(run).toEqual({ ...raw, schemaVersion: 4, failedActions: [] });
  });

  it('loads the stored v3 run fixture as it was written, upgraded to v4', () => {
    const raw = JSON.parse(readFileSync(new URL('../fixtures/run-v3.fixture.json', import.meta.url), 'utf8'));
    expect(loadRunRecord(raw, 'fixture')).toEqual({ ...raw, schemaVersion: 4 });
  });

  it('loads the stored v4 run fixture as it was written: an approval with its binding, approvers and reason', () => {
    const raw = JSON.parse(readFileSync(new URL('../fixtures/run-v4.fixture.json', import.meta.url), 'utf8'));
    const run = loadRunRecord(raw, 'fixture');
    // Written before the two-person rule: it loads as needing one approver, with none counted yet.
    expect(run).toEqual({ ...raw, approval: { ...raw.approval, approvals: 1, approvedBy: [] } });
    expect(run.status === 'waiting_for_approval' && run.approval).toMatchObject({
      bindingHash: expect.stringMatching(/^[0-9a-f]{64}$/),
      approvers: { roles: ['admin'], identities: ['local:bob'] },
      reason: 'the api answers 502',
      displayArgs: { service: 'api' },
    });
  });

  it('marks a run caught mid-action as outcome_unknown on restart and never re-runs the action', async () => {
    harness = await createHarness({ store: 'sqlite' });
    harness.fake.reply(toolCalls([{ name: 'restart_service', arguments: { service: 'api' } }]));
    const run = await runTask(harness.kernel, { text: 'restart api', principal: alice, conversation });
    // Simulate a crash between `executing` being saved and the result being saved.
    const stored = await harness.kernel.get(run.id);
    const { answer: _answer, ok: _ok, ...rest } = stored as typeof stored & { answer?: string; ok?: boolean };
    const crashed = {
      ...rest,
      status: 'executing' as const,
      executing: {
        call: {
          id: 'c1',
          name: 'restart_service',
          rawArguments: '{"service":"api"}',
          args: { service: 'api' },
        },
        startedAt: harness.clock.now(),
      },
      queue: [
        { id: 'c1', name: 'restart_service', rawArguments: '{"service":"api"}', args: { service: 'api' } },
      ],
    };
    await harness.kernel.runs.save(crashed);
    const callsBefore = harness.probe.count('restart_service');

    const restarted = harness.newKernel();
    const counts = await restarted.recover();
    expect(counts.outcomeUnknown).toBe(1);
    const after = await restarted.get(run.id);
    expect(after.status).toBe('outcome_unknown');
    expect(harness.probe.count('restart_service')).toBe(callsBefore);
    expect(harness.chat.texts().some((line) => line.includes('NOT run again'))).toBe(true);
    await restarted.recover();
    expect(harness.probe.count('restart_service')).toBe(callsBefore);
  });

  it('continues a run that was between steps when the process stopped', async () => {
    harness = await createHarness({ store: 'sqlite' });
    harness.fake.reply(toolCalls([{ name: 'ask_user', arguments: { question: 'Which?' } }]));
    const run = await runTask(harness.kernel, { text: 'check', principal: alice, conversation });
    const { question: _question, ...stored } = (await harness.kernel.get(run.id)) as TestRun;
    const queued = { id: 'q1', name: 'check_http', arguments: '{"url":"https://x.example"}' };
    await harness.kernel.runs.save({
      ...stored,
      status: 'running',
      // The model's last turn asked for the queued call, as a run between steps has it: a transcript whose call
      // and tool message do not match is one a real API refuses.
      messages: stored.messages.map((message) =>
        message.role === 'assistant' ? { ...message, toolCalls: [queued] } : message,
      ),
      queue: [
        {
          id: queued.id,
          name: queued.name,
          rawArguments: queued.arguments,
          args: { url: 'https://x.example' },
        },
      ],
    });
    harness.fake.reply(text('x is up'));
    const restarted = harness.newKernel();
    expect((await restarted.recover()).continued).toBe(1);
    expect((await restarted.settled(run.id)).status).toBe('finished');
  });

  it('cancels a waiting run for the requester, and refuses someone else', async () => {
    harness = await createHarness({
      kernel: {
        policy: noAdminPolicy,
      },
    });
    harness.fake.reply(toolCalls([{ name: 'ask_user', arguments: { question: 'Which?' } }]));
    const run = await runTask(harness.kernel, { text: 'check', principal: alice, conversation });
    await expect(harness.kernel.cancel(run.id, bob)).rejects.toThrow(/Only Alice/);
    const cancelled = await harness.kernel.cancel(run.id, alice);
    expect(cancelled.run.status).toBe('cancelled');
    expect(cancelled.message).toBe(`Cancelled ${run.id}.`);
    expect(harness.chat.ofKind('status').at(-1)).toMatchObject({ text: 'Cancelled by Alice' });
  });

  it('stops a running run at its next step boundary when cancelled', async () => {
    harness = await createHarness();
    let runId = '';
    harness.fake.respond(() => {
      void harness.kernel.cancel(runId, alice);
      return toolCalls([
        { name: 'check_http', arguments: { url: `https://${harness.fake.requests.length}.example` } },
      ]);
    });
    harness.kernel.onRunChange((run) => {
      runId = run.id;
    });
    const run = await runTask(harness.kernel, { text: 'loop', principal: alice, conversation });
    expect(run.status).toBe('cancelled');
    expect(harness.fake.requests.length).toBeLessThanOrEqual(2);
  });

  it('records a failed chat post in the run and still finishes', async () => {
    harness = await createHarness();
    harness.chat.failNextPosts = 1;
    harness.fake.reply(text('done'));
    const run = await runTask(harness.kernel, { text: 'check', principal: alice, conversation });
    expect(run.status).toBe('finished');
    expect(run.events.some((event) => event.type === 'post_failed')).toBe(true);
  });
});

describe('graceful shutdown', () => {
  it('finishes the current step, saves the run, takes no new work, and a new process continues the run', async () => {
    harness = await createHarness({ store: 'sqlite' });
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let shuttingDown: Promise<void> | undefined;
    let inModel: () => void = () => {};
    const modelCalled = new Promise<void>((resolve) => {
      inModel = resolve;
    });
    harness.fake.respond(async () => {
      // The model is mid-answer when SIGTERM arrives.
      shuttingDown ??= harness.kernel.shutdown();
      inModel();
      await gate;
      return toolCalls([{ name: 'check_http', arguments: { url: 'https://a.example' } }]);
    });
    const started = harness.kernel.start({ text: 'check a', principal: alice, conversation });
    await modelCalled;
    await expect(harness.kernel.start({ text: 'another', principal: alice, conversation })).rejects.toThrow(
      /shutting down/,
    );
    release();
    const runId = await started;
    await shuttingDown;
    const stored = await harness.kernel.get(runId);
    expect(stored.status).toBe('running');
    expect(stored.queue.map((call) => call.name)).toEqual(['check_http']);
    expect(harness.probe.count('check_http')).toBe(0);

    harness.fake.respond(undefined);
    harness.fake.reply(text('a is up'));
    const next = harness.newKernel();
    expect((await next.recover()).continued).toBe(1);
    const finished = await next.settled(runId);
    expect(finished.status).toBe('finished');
    expect(harness.probe.count('check_http')).toBe(1);
  });
});
