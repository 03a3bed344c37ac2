// One gateway and two workers as separate processes on one Redis: every task sent as a signed Slack event is
// answered once, in its thread; both workers work; a worker killed mid-run loses nothing.
import { once } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { allAnswered, answeringModel, answers, channelOf, sendTasks, taskText } from './numbered-tasks.js';
import { type ScaleRig, startScaleRig, waitFor } from './scale-rig.js';

let rig: ScaleRig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

describe('gateway and workers on Redis', () => {
  it("says in the gateway's /readyz whether any worker is alive: not ready with none, ready once one beats", async () => {
    rig = await startScaleRig();
    const gateway = await rig.start('gateway', 'gateway');
    const readiness = async () => {
      const response = await fetch(`${rig!.gatewayUrl}/readyz`);
      const body = (await response.json()) as { checks: Record<string, { ok: boolean; detail: string }> };
      return { status: response.status, workers: body.checks.workers };
    };
    const alone = await readiness();
    expect(alone.status).toBe(503);
    expect(alone.workers).toMatchObject({ ok: false });
    expect(alone.workers?.detail).toContain('no worker heard from in the last 30 s');
    await rig.start('worker-1', 'worker');
    // Polled: the worker's first heartbeat is written as it starts.
    let seen = await readiness();
    for (let tries = 0; seen.workers?.ok !== true && tries < 200; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      seen = await readiness();
    }
    expect(seen.workers?.ok, gateway.output()).toBe(true);
    expect(seen.workers?.detail).toMatch(/^1 worker \(\d+ runs at once\), last heard/);
  }, 60_000);

  it('answers 200 Slack tasks once each, in their threads, with both workers working', async () => {
    rig = await startScaleRig();
    rig.fake.respond(answeringModel);
    const gateway = await rig.start('gateway', 'gateway');
    const workers = [await rig.start('worker-1', 'worker'), await rig.start('worker-2', 'worker')];
    expect(gateway.output()).toContain('running as a gateway');
    expect(workers[0]!.output()).toContain('running as a worker');

    const threads = await sendTasks(rig, 200);
    const current = rig;
    await allAnswered(current, threads, 120_000);
    for (const [task, ts] of threads.entries())
      expect(answers(current, task, ts)).toEqual([`Answer for task ${task}.`]);
    const stepped = workers.map((worker) => worker.tracedRuns().length);
    expect(stepped.every((count) => count > 0)).toBe(true);
    expect(gateway.tracedRuns()).toEqual([]);
  }, 180_000);

  it('finishes the runs of a worker killed with -9 in the middle of them on the other worker', async () => {
    rig = await startScaleRig();
    // Slow turns, so that runs are in the middle of a step when the worker dies.
    rig.fake.respond((request) => ({ ...answeringModel(request), delayMs: 400 }));
    await rig.start('gateway', 'gateway');
    const doomed = await rig.start('worker-1', 'worker');
    const survivor = await rig.start('worker-2', 'worker');
    const threads = await sendTasks(rig, 30);
    const current = rig;
    await waitFor(
      () => doomed.tracedRuns().length >= 3,
      30_000,
      () => doomed.output(),
    );
    doomed.child.kill('SIGKILL');
    await allAnswered(current, threads, 90_000);
    for (const [task, ts] of threads.entries())
      expect(answers(current, task, ts)[0]).toBe(`Answer for task ${task}.`);
    // The survivor took over at least one run the killed worker had started.
    const taken = doomed.tracedRuns().filter((run) => survivor.tracedRuns().includes(run));
    expect(taken.length).toBeGreaterThan(0);
  }, 150_000);

  it('lets a worker stopped with SIGTERM mid-run exit 0 within 10 s, and the other worker carries on', async () => {
    rig = await startScaleRig();
    rig.fake.respond((request) => ({ ...answeringModel(request), delayMs: 400 }));
    await rig.start('gateway', 'gateway');
    const leaving = await rig.start('worker-1', 'worker');
    await rig.start('worker-2', 'worker');
    const threads = await sendTasks(rig, 30);
    const current = rig;
    await waitFor(
      () => leaving.tracedRuns().length >= 3,
      30_000,
      () => leaving.output(),
    );
    const asked = Date.now();
    leaving.child.kill('SIGTERM');
    const [code] = (await once(leaving.child, 'exit')) as [number | null];
    expect(code).toBe(0);
    // Generous, as for the platforms' deadlines: an orchestrator kills a process that takes longer.
    expect(Date.now() - asked).toBeLessThan(10_000);
    await allAnswered(current, threads, 90_000);
    for (const [task, ts] of threads.entries())
      expect(answers(current, task, ts)[0]).toBe(`Answer for task ${task}.`);
  }, 150_000);

  it('runs three messages sent to one busy thread one after another, across workers', async () => {
    rig = await startScaleRig();
    const firstAsked = new Map<string, number>();
    const answered = new Map<string, number>();
    rig.fake.respond((request) => {
      const messages = request.body.messages ?? [];
      const task = String(messages.filter((message) => message.role === 'user').at(-1)?.content ?? '');
      const number = /task (\d+)/.exec(task)?.[1] ?? '?';
      if (!firstAsked.has(number)) firstAsked.set(number, Date.now());
      const answer = answeringModel(request);
      if (answer.kind === 'completion' && answer.toolCalls.length === 0)
        answered.set(number, Date.now() + 300);
      return { ...answer, delayMs: 300 };
    });
    await rig.start('gateway', 'gateway');
    await rig.start('worker-1', 'worker');
    await rig.start('worker-2', 'worker');
    const thread = await rig.mention(taskText(0), { channel: channelOf(0) });
    for (const task of [1, 2]) {
      await rig.mention(taskText(task), { channel: channelOf(0), threadTs: thread });
    }
    const current = rig;
    const shown = () => answers(current, 0, thread);
    await waitFor(
      () => shown().length >= 3,
      60_000,
      () => shown().join('\n'),
    );
    expect(shown()).toEqual(['Answer for task 0.', 'Answer for task 1.', 'Answer for task 2.']);
    // Each run started only once the one before had answered.
    expect(firstAsked.get('1')!).toBeGreaterThanOrEqual(answered.get('0')!);
    expect(firstAsked.get('2')!).toBeGreaterThanOrEqual(answered.get('1')!);
  }, 120_000);

  it('refuses to start a worker on SQLite, saying why', async () => {
    rig = await startScaleRig();
    await expect(
      rig.start('worker-sqlite', 'worker', { OPSBOT_STORE_URL: 'sqlite://./data/never.sqlite' }),
    ).rejects.toThrow(/OPSBOT_ROLE: is worker, which shares runs with other processes through Redis/);
  });
});
