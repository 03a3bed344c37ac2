// Traces lived on whichever worker stepped the run: `opsbot trace <run>` on another machine found nothing and
// gave no hint. They are kept in the Store now, so the CLI reads them from any machine with its address.
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cliEnvironment, runCliProcess } from '../cli/cli-process.js';
import { allAnswered, answeringModel, sendTasks } from './numbered-tasks.js';
import { type ScaleRig, startScaleRig } from './scale-rig.js';

let rig: ScaleRig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

describe('a run traced on a worker', () => {
  it('is traced by `opsbot trace` on a machine that shares only the store; a missing run says where it looked', async () => {
    rig = await startScaleRig();
    rig.fake.respond(answeringModel);
    await rig.start('gateway', 'gateway');
    const worker = await rig.start('worker-1', 'worker');
    const threads = await sendTasks(rig, 1);
    await allAnswered(rig, threads, 30_000);
    const [runId] = worker.tracedRuns();
    expect(runId).toMatch(/^run_/);

    // Another machine: its own empty data folder, the same Redis.
    const elsewhere = cliEnvironment({
      OPSBOT_STORE_URL: rig.redisUrl,
      OPSBOT_DATA_DIR: join(rig.dir, 'laptop'),
    });
    const traced = await runCliProcess(['trace', runId!], elsewhere);
    expect(traced.stderr).toBe('');
    expect(traced.code).toBe(0);
    expect(traced.stdout).toMatch(new RegExp(`^run ${runId}  steps \\d+  tool calls 1 `));
    expect(traced.stdout).toMatch(/tool_call\s+system_stats\s+✓/);
    expect(traced.stdout).toMatch(/finished/);

    const missing = await runCliProcess(['trace', 'run_00000000'], elsewhere);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain(
      `opsbot: no trace for run run_00000000 in ${rig.redisUrl} or in ${join(rig.dir, 'laptop', 'traces')}. Traces are kept in the store for 30d (limits.trace_history)`,
    );
  }, 90_000);
});
