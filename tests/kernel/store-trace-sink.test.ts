// A run's trace in the Store: readable by any process, redacted, kept for limits.trace_history after
// the run ends and then removed by the sink itself as it writes other traces.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../agent/clock.js';
import { silentLogger } from '../../agent/logger.js';
import { Redactor } from '../../agent/redaction.js';
import { MemoryStore } from '../../agent/store/memory-store.js';
import { readStoredTrace, StoreTraceSink } from '../../agent/store-trace-sink.js';
import type { TraceRecord } from '../../agent/trace.js';

const DAY = 86_400_000;

function record(runId: string, at: number, summary = 'ok'): TraceRecord {
  return {
    at,
    runId,
    step: 1,
    kind: 'tool_call',
    stateHash: 'h',
    tool: 'disk_usage',
    summary,
    durationMs: 3,
  };
}

async function until(test: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!(await test())) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('StoreTraceSink', () => {
  it('keeps records in order where another process reads them, redacted again on the way in', async () => {
    const store = new MemoryStore();
    const clock = new ManualClock();
    const redactor = new Redactor([], { secretValues: ['hunter2-secret-value'] });
    const sink = new StoreTraceSink({ store, keepMs: DAY, clock, logger: silentLogger, redactor });
    await sink.append(record('run_a', clock.now(), 'first'));
    await sink.append(record('run_a', clock.now() + 1, 'password hunter2-secret-value'));
    const read = await readStoredTrace(store, 'run_a', () => {});
    expect(read.map((entry) => entry.summary)).toEqual(['first', expect.not.stringContaining('hunter2')]);
    expect(await readStoredTrace(store, 'run_unknown', () => {})).toEqual([]);
  });

  it('removes a trace limits.trace_history after the run ended (or after its first record, if it never ends)', async () => {
    const store = new MemoryStore();
    const clock = new ManualClock();
    const sink = new StoreTraceSink({ store, keepMs: DAY, clock, logger: silentLogger });
    const start = clock.now();
    await sink.append(record('run_ended', start));
    await sink.append(record('run_never_ends', start));
    clock.advance(DAY / 2);
    // A later step does not move the time; the run's end does.
    await sink.append({ ...record('run_never_ends', clock.now()), step: 2 });
    await sink.append({ ...record('run_ended', clock.now()), kind: 'finished' });
    clock.advance(DAY / 2 + 1);
    await sink.append(record('run_next', clock.now()));
    await until(async () => (await readStoredTrace(store, 'run_never_ends', () => {})).length === 0);
    expect(await readStoredTrace(store, 'run_ended', () => {})).toHaveLength(2);
    expect(await readStoredTrace(store, 'run_next', () => {})).toHaveLength(1);
    clock.advance(DAY / 2);
    expect(await sink.sweep()).toBe(1);
    expect(await readStoredTrace(store, 'run_ended', () => {})).toEqual([]);
    expect(await readStoredTrace(store, 'run_next', () => {})).toHaveLength(1);
  });

  it('reports a stored record that does not parse and reads the rest', async () => {
    const store = new MemoryStore();
    await store.append('trace:run_x', { not: 'a record' });
    await store.append('trace:run_x', record('run_x', 1));
    const problems: string[] = [];
    const read = await readStoredTrace(store, 'run_x', (problem) =>
      problems.push(`${problem.file}:${problem.line}`),
    );
    expect(read).toHaveLength(1);
    expect(problems).toEqual(['store log trace:run_x:1']);
  });
});
