// Redis restarted under load (issue 15): one gateway and two workers on a Redis of the test's own that keeps an
// append-only file. Redis stops while runs are in flight and starts again on the same port with the same data:
// no process dies, /readyz says the store is down and then up again, events sent meanwhile are refused with 503
// so that Slack sends them again, a task acked just before the stop but not saved is reported to its requester
// (who sends it again), and every task ends with exactly one answer in its thread.
import { afterEach, describe, expect, it } from 'vitest';
import { FINISHED_WORDS } from '../../agent/run-state-words.js';
import { SEND_AGAIN_ADVICE } from '../../bot/chat/event-intake.js';
import { answeringModel, answers, botMessages, channelOf, sendTasks, taskText } from './numbered-tasks.js';
import {
  type OpsbotProcess,
  type ScaleRig,
  type SlackDelivery,
  startScaleRig,
  waitFor,
} from './scale-rig.js';

let rig: ScaleRig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

/** Each process's /readyz: its status code and what it says of the store. */
async function readiness(processes: OpsbotProcess[]): Promise<Array<{ status: number; store: unknown }>> {
  return Promise.all(
    processes.map(async (running) => {
      const url = /http: +(http:\/\/127\.0\.0\.1:\d+)/.exec(running.output())?.[1];
      const response = await fetch(`${url}/readyz`);
      const body = (await response.json()) as { checks: Record<string, unknown> };
      return { status: response.status, store: body.checks.store };
    }),
  );
}

/** waitFor, for a condition that needs a request to check. */
async function until(done: () => Promise<boolean>, timeoutMs: number, explain: () => string) {
  let met = false;
  const checking = (async () => {
    while (!met) {
      met = await done();
      if (!met) await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  await waitFor(() => met, timeoutMs, explain).finally(() => {
    met = true;
  });
  await checking;
}

const alive = (running: OpsbotProcess) =>
  running.child.exitCode === null && running.child.signalCode === null;
const TASKS = 40;
const DURING_OUTAGE = 3;
/** How long the person told to send a task again waits for an answer first: two recovery sweeps and more. */
const SEND_AGAIN_AFTER_MS = 25_000;

describe('Redis restarted under load', () => {
  it('refuses events while Redis is down, and answers every task exactly once after it returns', async () => {
    rig = await startScaleRig(undefined, { persistentRedis: true });
    const current = rig;
    // Slow turns, so that most runs are in the middle of a step when Redis stops.
    rig.fake.respond((request) => ({ ...answeringModel(request), delayMs: 300 }));
    const processes = [
      await rig.start('gateway', 'gateway'),
      await rig.start('worker-1', 'worker'),
      await rig.start('worker-2', 'worker'),
    ];
    const threads = await sendTasks(rig, TASKS);
    const answered = () => threads.filter((ts, task) => answers(current, task, ts).length > 0).length;
    await waitFor(
      () => answered() >= 1,
      60_000,
      () => `${answered()} answered`,
    );

    await rig.stopRedis();
    expect(answered()).toBeLessThan(TASKS);
    const states = () => readiness(processes);
    await until(
      async () => (await states()).every(({ status }) => status === 503),
      30_000,
      () => 'a process still says it is ready with Redis down',
    );
    for (const state of await states()) expect(state.store).toMatchObject({ ok: false });
    // Sent while Redis is down: refused before Bolt acks them, so Slack keeps them and sends them again.
    const refused: SlackDelivery[] = [];
    for (let task = TASKS; task < TASKS + DURING_OUTAGE; task++) {
      const delivery = rig.mentionDelivery(taskText(task), { channel: channelOf(task) });
      const answer = await rig.deliver(delivery);
      expect(answer.status).toBe(503);
      expect(answer.body).toContain('The store cannot be reached');
      refused.push(delivery);
    }
    // The outage itself lasts a few seconds, as a Redis restart or failover does; nothing is checked by time.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    await rig.startRedis();
    await until(
      async () => (await states()).every(({ status }) => status === 200),
      30_000,
      () => 'a process does not say it is ready again with Redis back',
    );
    for (const state of await states()) expect(state.store).toMatchObject({ ok: true });

    // Slack's retries of the refused events, the first one twice (a retry racing its own redelivery).
    for (const delivery of refused) {
      expect((await rig.deliver(delivery, 1)).status).toBe(200);
      threads.push(delivery.ts);
    }
    expect((await rig.deliver(refused[0]!, 2)).status).toBe(200);

    // Every task ends in one of two ways. Answered, with its status line edited to its end (what follows is the
    // run's last save, so no run is left to be stepped again and post twice). Or, acked just before Redis
    // stopped and not yet saved, reported to its requester, who then sends it again in the thread.
    const ended = (task: number, ts: string) =>
      botMessages(current, task, ts).some((line) => line.includes(FINISHED_WORDS.ok)) &&
      answers(current, task, ts).length > 0;
    const reported = (ts: string) => current.slack.ephemerals.filter((message) => message.thread_ts === ts);
    const tails = () =>
      processes.map((running) => `\n--- ${running.name}\n${running.output().slice(-3_000)}`).join('');
    const settled = () => threads.filter((ts, task) => ended(task, ts) || reported(ts).length > 0).length;
    await waitFor(
      () => settled() === threads.length,
      120_000,
      () => `${threads.length - settled()} of ${threads.length} threads unsettled:${tails()}`,
    );
    // "If no answer comes, send it again in a minute": a run saved just before its write's reply was lost is
    // found by the recovery sweep (every 10 s) and answered meanwhile; the person resends only the others.
    const unanswered = () => threads.filter((ts, task) => !ended(task, ts));
    const patience = Date.now() + SEND_AGAIN_AFTER_MS;
    if (unanswered().length > 0)
      await waitFor(() => unanswered().length === 0 || Date.now() > patience, 60_000);
    const resent = unanswered();
    for (const ts of resent) {
      const task = threads.indexOf(ts);
      expect(reported(ts)).toHaveLength(1);
      expect(botMessages(current, task, ts)).toEqual([]);
      await rig.mention(taskText(task), { channel: channelOf(task), threadTs: ts });
    }
    const unfinished = () => threads.filter((ts, task) => !ended(task, ts)).length;
    await waitFor(
      () => unfinished() === 0,
      120_000,
      () => `${unfinished()} of ${threads.length} threads unfinished:${tails()}`,
    );
    for (const [task, ts] of threads.entries()) {
      expect(answers(current, task, ts)).toEqual([`Answer for task ${task}.`]);
      // The run's status line, edited in place, and its answer: no second status line from a run stepped again.
      expect(botMessages(current, task, ts)).toHaveLength(2);
    }
    // Told once per task at most, and always to send it again: never a bare "something went wrong".
    for (const ts of threads) expect(reported(ts).length).toBeLessThanOrEqual(1);
    for (const told of rig.slack.ephemerals) expect(told.text).toContain(SEND_AGAIN_ADVICE);
    expect(rig.slack.ephemerals.length).toBeGreaterThanOrEqual(resent.length);
    expect(processes.filter((running) => !alive(running)).map((running) => running.name)).toEqual([]);
    for (const running of processes) expect(running.output()).not.toMatch(/Unhandled|uncaught/i);
  }, 180_000);
});
