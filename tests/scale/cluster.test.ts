// `opsbot cluster` over a running gateway and worker, and the warning a process started with other settings gives.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cliEnvironment, runCliProcess } from '../cli/cli-process.js';
import { text } from '../fakes/openai-server.js';
import { type ScaleRig, startScaleRig } from './scale-rig.js';

let rig: ScaleRig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

describe('opsbot cluster', () => {
  it('lists the live processes and the queue, and a process with other settings says how they differ', async () => {
    rig = await startScaleRig();
    rig.fake.respond(() => text('ok'));
    await rig.start('gateway', 'gateway');
    await rig.start('worker-1', 'worker');
    const edited = join(rig.dir, 'edited.yaml');
    writeFileSync(
      edited,
      [
        'limits:',
        '  worker_concurrency: 4',
        '  worker_lock: 2s',
        'permissions:',
        '  default_role: viewer',
        '',
      ].join('\n'),
    );
    const odd = await rig.start('worker-2', 'worker', { OPSBOT_CONFIG: edited });
    expect(odd.output()).toMatch(
      /this process's settings \(\w+\) differ from those of .*gateway.* in: .*limits\.worker_concurrency/,
    );

    const cluster = await runCliProcess(
      ['cluster'],
      cliEnvironment({ OPSBOT_STORE_URL: rig.redisUrl, OPSBOT_DATA_DIR: join(rig.dir, 'cli') }),
    );
    expect(cluster.stderr).toBe('');
    expect(cluster.code).toBe(0);
    expect(cluster.stdout).toMatch(/queue: BullMQ, 0 waiting, 0 being advanced/);
    expect(cluster.stdout).toContain('oldest waiting run: none waits');
    expect(cluster.stdout).toContain('processes seen in the last minute: 3');
    expect(cluster.stdout.match(/^ {2}worker /gm)).toHaveLength(2);
    expect(cluster.stdout.match(/^ {2}gateway /gm)).toHaveLength(1);
    expect(cluster.stdout).toContain('warning: the processes run with 2 different settings files');
    expect(cluster.stdout).toContain('discord session: nobody holds it');
  }, 120_000);
});
