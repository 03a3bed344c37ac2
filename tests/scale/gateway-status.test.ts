// With no worker alive, people got no reaction at all: the gateway saved and queued the run and said nothing. It
// now posts the run's status line itself as it hands the run to the queue, before any worker can take it, and
// the worker that steps the run later updates that same line.
import { afterEach, describe, expect, it } from 'vitest';
import { answeringModel, botMessages, channelOf, taskText } from './numbered-tasks.js';
import { type ScaleRig, startScaleRig, waitFor } from './scale-rig.js';

let rig: ScaleRig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

describe("a gateway's own reaction to a task", () => {
  it('says at once that no worker is running, and the worker started later answers under the same line', async () => {
    rig = await startScaleRig();
    rig.fake.respond(answeringModel);
    await rig.start('gateway', 'gateway');
    const thread = await rig.mention(taskText(0), { channel: channelOf(0) });
    const current = rig;
    const shown = () => botMessages(current, 0, thread);
    await waitFor(
      () => shown().length > 0,
      10_000,
      () => shown().join('\n'),
    );
    expect(shown()).toEqual([
      ':warning: Queued: no worker is running right now. It starts as soon as one does; tell whoever runs opsbot if this stays',
    ]);

    await rig.start('worker-1', 'worker');
    await waitFor(
      () => shown().some((text) => text.includes('Answer for task 0.')),
      30_000,
      () => shown().join('\n'),
    );
    const messages = rig.slack.thread(channelOf(0), thread);
    // One status line, posted by the gateway and updated by the worker: never a second one.
    const statuses = messages.filter((message) => /Queued|Working on it|Done/.test(message.text));
    expect(statuses, shown().join('\n')).toHaveLength(1);
    const status = statuses[0]!;
    expect(messages.indexOf(status)).toBe(0);
    // The answer is posted before the line says Done: wait for it, then read what the line said before.
    await waitFor(
      () => status.text === ':white_check_mark: Done',
      10_000,
      () => status.text,
    );
    expect(status.history.map((earlier) => earlier.text)).toEqual([
      expect.stringContaining('Queued: no worker is running right now'),
      ':hourglass_flowing_sand: Working on it…',
    ]);
  }, 90_000);

  it('shows one status line while a worker is alive: the gateway\'s "Working on it…", then Done', async () => {
    rig = await startScaleRig();
    rig.fake.respond((request) => ({ ...answeringModel(request), delayMs: 300 }));
    await rig.start('gateway', 'gateway');
    await rig.start('worker-1', 'worker');
    const thread = await rig.mention(taskText(1), { channel: channelOf(1) });
    const current = rig;
    const shown = () => botMessages(current, 1, thread);
    await waitFor(
      () => shown().some((text) => text.includes('Answer for task 1.')),
      30_000,
      () => shown().join('\n'),
    );
    const messages = rig.slack.thread(channelOf(1), thread);
    const statuses = messages.filter((message) =>
      [message.text, ...message.history.map((earlier) => earlier.text)].some((text) =>
        text.includes('Working on it…'),
      ),
    );
    expect(statuses).toHaveLength(1);
    expect(messages.indexOf(statuses[0]!)).toBe(0);
    // The worker does not send the same "Working on it…" again: the line changes once, to Done.
    await waitFor(
      () => statuses[0]!.text === ':white_check_mark: Done',
      10_000,
      () => statuses[0]!.text,
    );
    expect(statuses[0]!.history.map((earlier) => earlier.text)).toEqual([
      ':hourglass_flowing_sand: Working on it…',
    ]);
  }, 90_000);
});
