// Run counters across two processes on one Store: a run is counted as started where it was created (a
// gateway) and as ended where it ended (a worker), once each, so the sum over processes is the true count.
import { afterEach, describe, expect, it } from 'vitest';
import { OpsbotMetrics } from '../../bot/metrics/opsbot-metrics.js';
import { runLifecycleMetrics } from '../../bot/metrics/run-lifecycle-metrics.js';
import { text } from '../fakes/openai-server.js';
import { alice, conversation, createHarness, type Harness } from '../kernel/harness.js';

let harness: Harness;
afterEach(async () => harness?.close());

async function value(metrics: OpsbotMetrics, series: string): Promise<number> {
  const line = (await metrics.registry.metrics())
    .split('\n')
    .find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
}

describe('run counters', () => {
  it('counts a run started on a gateway and finished on a worker once each; a cancel and a refused task too', async () => {
    harness = await createHarness();
    const worker = harness.kernel;
    const gateway = harness.newKernel({ worker: false });
    const atGateway = new OpsbotMetrics({ processMetrics: false });
    const atWorker = new OpsbotMetrics({ processMetrics: false });
    gateway.onRunChange(runLifecycleMetrics(atGateway));
    worker.onRunChange(runLifecycleMetrics(atWorker));

    harness.fake.reply(text('All good.'));
    const runId = await gateway.start({ text: 'is everything fine?', principal: alice, conversation });
    // The worker finds the run in the Store, as a worker process takes it from the queue.
    await worker.recover();
    const finished = await worker.settled(runId);
    expect(finished.status).toBe('finished');

    const other = { ...conversation, threadId: 't2' };
    const cancelled = await gateway.start({ text: 'and the disks?', principal: alice, conversation: other });
    await gateway.cancel(cancelled, alice);
    await gateway.start({ text: '   ', principal: alice, conversation: { ...conversation, threadId: 't3' } });

    expect(await value(atGateway, 'opsbot_runs_started_total{platform="cli"}')).toBe(3);
    expect(await value(atWorker, 'opsbot_runs_started_total{platform="cli"}')).toBe(0);
    expect(await value(atWorker, 'opsbot_runs_finished_total{platform="cli"}')).toBe(1);
    expect(await value(atGateway, 'opsbot_runs_finished_total{platform="cli"}')).toBe(0);
    expect(await value(atGateway, 'opsbot_runs_cancelled_total{platform="cli"}')).toBe(1);
    expect(await value(atGateway, 'opsbot_runs_failed_total{platform="cli"}')).toBe(1);
    expect(await value(atWorker, 'opsbot_run_duration_seconds_count{platform="cli",status="finished"}')).toBe(
      1,
    );
    await gateway.shutdown();
  });
});
