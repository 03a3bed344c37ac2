// The parts of /metrics one by one, on real stores and queues: store errors counted by operation, the patrol
// and queue gauges read at a scrape, made-up tool names kept out of the labels, and a part that fails to read.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../agent/clock.js';
import { InProcessRunQueue } from '../../agent/in-process-run-queue.js';
import { silentLogger } from '../../agent/logger.js';
import { ModelRateLimiter } from '../../agent/model/model-rate-limit.js';
import { MemoryStore } from '../../agent/store/memory-store.js';
import { SqliteStore } from '../../agent/store/sqlite-store.js';
import { MemoryTraceSink } from '../../agent/trace.js';
import { meteredStore } from '../../bot/metrics/metered-store.js';
import { meteredTraceSink } from '../../bot/metrics/metered-trace-sink.js';
import { OpsbotMetrics } from '../../bot/metrics/opsbot-metrics.js';
import { modelRateGauges, patrolGauges, queueGauges, scrape } from '../../bot/metrics/scraped-gauges.js';
import { CHECK_STATE_VERSION, type CheckState } from '../../scheduled/check-state.js';
import { PatrolRepository } from '../../scheduled/patrol-repository.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** The sample lines of one metric. */
function lines(text: string, metric: string): string[] {
  return text.split('\n').filter((line) => line.startsWith(metric));
}

function state(machine: CheckState['machine']): CheckState {
  return { version: CHECK_STATE_VERSION, machine, detail: '', recentChanges: [] };
}

describe('metrics parts', () => {
  it('counts failed store operations by operation, and the store keeps its class', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'opsbot-metrics-store-'));
    dirs.push(dir);
    const metrics = new OpsbotMetrics({ processMetrics: false });
    const sqlite = new SqliteStore(join(dir, 'opsbot.sqlite'));
    const store = meteredStore(sqlite, metrics);
    await store.set('key', 1);
    expect(await store.get('key')).toBe(1);
    expect(store).toBeInstanceOf(SqliteStore);
    expect(store.description).toBe(sqlite.description);
    await store.close();
    await expect(store.get('key')).rejects.toThrow(/closed/);
    await expect(store.writeAll([{ kind: 'set', key: 'other', value: 2 }])).rejects.toThrow();
    const text = await metrics.registry.metrics();
    expect(lines(text, 'opsbot_store_errors_total')).toEqual([
      'opsbot_store_errors_total{operation="get"} 1',
      'opsbot_store_errors_total{operation="writeAll"} 1',
    ]);
  });

  it("shows each patrol's checks by state, and a state no check is in any more as gone", async () => {
    const metrics = new OpsbotMetrics({ processMetrics: false });
    const repository = new PatrolRepository(new MemoryStore(), new ManualClock(0), 60_000, silentLogger);
    const gauges = patrolGauges(['self-check', 'quiet'], repository, metrics);
    if (!gauges) throw new Error('expected patrol gauges');
    await repository.saveStates('self-check', {
      healthz: state({ status: 'ok', since: 0 }),
      'root-disk': state({
        status: 'firing',
        severity: 'warn',
        since: 0,
        previous: { word: 'ok', since: 0 },
      }),
      api: state({ status: 'ok', since: 0 }),
    });
    await gauges.collect();
    expect(lines(await metrics.registry.metrics(), 'opsbot_patrol_checks')).toEqual([
      'opsbot_patrol_checks{patrol="self-check",state="ok"} 2',
      'opsbot_patrol_checks{patrol="self-check",state="warn"} 1',
    ]);
    await repository.saveStates('self-check', {
      healthz: state({ status: 'ok', since: 0 }),
      'root-disk': state({ status: 'ok', since: 0 }),
      api: state({ status: 'pending', since: 0, failures: 1 }),
    });
    await gauges.collect();
    expect(lines(await metrics.registry.metrics(), 'opsbot_patrol_checks')).toEqual([
      'opsbot_patrol_checks{patrol="self-check",state="ok"} 2',
      'opsbot_patrol_checks{patrol="self-check",state="pending"} 1',
    ]);
  });

  it('reads the in-process queue: runs waiting for a worker, none active, none stalled', async () => {
    const metrics = new OpsbotMetrics({ processMetrics: false });
    const queue = new InProcessRunQueue();
    await queue.enqueue('run_one');
    await queue.enqueue('run_two');
    const text = await scrape(metrics, [queueGauges(queue, metrics)!], silentLogger);
    expect(text).toContain('opsbot_queue_waiting 2\n');
    expect(text).toContain('opsbot_queue_active 0\n');
    expect(text).toContain('opsbot_queue_stalled 0\n');
    expect(text).not.toContain('run_one');
    await queue.close();
  });

  it("shows the model rate limit's rate now, after a 429 halved it, and the requests open and waiting", async () => {
    const metrics = new OpsbotMetrics({ processMetrics: false });
    const clock = new ManualClock();
    const limiter = new ModelRateLimiter({ requestsPerSecond: 4, burst: 1, maxInFlight: 1, clock });
    const release = await limiter.acquire();
    const gaveUp = new AbortController();
    const waiting = limiter.acquire({ signal: gaveUp.signal });
    limiter.throttled(undefined);
    const text = await scrape(metrics, [modelRateGauges(limiter, metrics)!], silentLogger);
    expect(text).toContain('opsbot_model_rate_limit_requests_per_second 2\n');
    expect(text).toContain('opsbot_model_requests_in_flight 1\n');
    expect(text).toContain('opsbot_model_requests_waiting 1\n');
    expect(modelRateGauges(undefined, metrics)).toBeUndefined();
    gaveUp.abort(new Error('the run was cancelled'));
    await expect(waiting).rejects.toThrow('the run was cancelled');
    release();
  });

  it('counts a tool name the model made up as unknown, and passes every record on', async () => {
    const metrics = new OpsbotMetrics({ processMetrics: false });
    const inner = new MemoryTraceSink();
    const sink = meteredTraceSink(inner, { metrics, knownTool: (name) => name === 'disk_usage' });
    const base = { at: 1, runId: 'run_abc', step: 1, stateHash: 'x', durationMs: 250 };
    await sink.append({ ...base, kind: 'tool_call', tool: 'disk_usage', ok: true });
    await sink.append({
      ...base,
      kind: 'tool_call',
      tool: 'rm_rf_everything_42',
      ok: false,
      errorClass: 'refused_by_policy',
    });
    await sink.append({ ...base, kind: 'tool_call', tool: 'disk_usage', ok: false, errorClass: 'transient' });
    await sink.append({ ...base, kind: 'model_turn' });
    expect(inner.records).toHaveLength(4);
    const counts = lines(await metrics.registry.metrics(), 'opsbot_tool_call_duration_seconds_count');
    expect(counts).toEqual([
      'opsbot_tool_call_duration_seconds_count{tool="disk_usage",outcome="ok"} 1',
      'opsbot_tool_call_duration_seconds_count{tool="unknown",outcome="refused"} 1',
      'opsbot_tool_call_duration_seconds_count{tool="disk_usage",outcome="failed"} 1',
    ]);
  });

  it('renders the rest when a part cannot be read, and counts the failure', async () => {
    const metrics = new OpsbotMetrics({ processMetrics: false });
    const text = await scrape(
      metrics,
      [
        {
          part: 'waiting',
          collect: async () => {
            throw new Error('the store is down');
          },
        },
      ],
      silentLogger,
    );
    expect(text).toContain('opsbot_metrics_collect_errors_total{part="waiting"} 1');
    expect(text).toContain('# TYPE opsbot_runs_started_total counter');
  });
});
