// A single process with its playground beside workers on one Redis lost playground answers: a worker took the
// runs and could not post them. Such a mix is refused at start-up, from either side, with the setting that fixes
// it; a single process without the playground beside the same worker runs, and its Slack tasks are answered.
import { afterEach, describe, expect, it } from 'vitest';
import { allAnswered, answeringModel, sendTasks } from './numbered-tasks.js';
import { type ScaleRig, startScaleRig } from './scale-rig.js';

let rig: ScaleRig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

describe('processes on one Redis that could not answer each other’s runs', () => {
  it('refuses a playground process started beside a worker, and runs one without its playground', async () => {
    rig = await startScaleRig();
    rig.fake.respond(answeringModel);
    await rig.start('worker', 'worker');
    const refused = rig.start('playground', 'all');
    await expect(refused).rejects.toThrow(/playground exited 2/);
    await expect(refused).rejects.toThrow(
      /opsbot: cluster did not start: this process takes requests from the playground, and the worker [\w.-]+:\d+ steps runs from the same queue but cannot post to the playground: those answers would be lost\. A playground lives in one process: set OPSBOT_PLAYGROUND=off here/,
    );

    // Without its playground it takes the Slack events, and either process can answer them.
    const single = await rig.start('single', 'all', {
      OPSBOT_PLAYGROUND: 'off',
      PORT: new URL(rig.gatewayUrl).port,
    });
    expect(single.output()).not.toContain('runs would be lost');
    const threads = await sendTasks(rig, 4);
    await allAnswered(rig, threads, 30_000);
  }, 120_000);

  it('refuses a worker started beside a playground process, naming that process', async () => {
    rig = await startScaleRig();
    await rig.start('playground', 'all');
    await expect(rig.start('worker', 'worker')).rejects.toThrow(
      /the single process [\w.-]+:\d+ takes requests from the playground, and this worker steps runs from the same queue but cannot post to the playground: those answers would be lost\. A playground lives in one process: set OPSBOT_PLAYGROUND=off on the single process/,
    );
  }, 60_000);

  it('refuses a worker without the Slack token beside a Slack gateway', async () => {
    rig = await startScaleRig();
    await rig.start('gateway', 'gateway');
    await expect(
      rig.start('worker', 'worker', {
        SLACK_BOT_TOKEN: undefined,
        SLACK_SIGNING_SECRET: undefined,
        SLACK_API_URL: undefined,
      }),
    ).rejects.toThrow(
      /the gateway [\w.-]+:\d+ takes requests from Slack, and this worker steps runs from the same queue but cannot post to Slack: those answers would be lost\. Set SLACK_BOT_TOKEN here/,
    );
  }, 60_000);
});
