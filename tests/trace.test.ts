// Trace: JSONL records round-trip through files that stay inside their folder, and read well in a terminal.

import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { REDACTED, Redactor } from '../agent/redaction.js';
import { type Run, RunSchema } from '../agent/run.js';
import { runJson } from '../agent/run-json.js';
import { runStateHash } from '../agent/run-state-hash.js';
import { stableJson } from '../agent/stable-json.js';
import {
  type CorruptTraceLine,
  FileTraceSink,
  formatTrace,
  MemoryTraceSink,
  nullTraceSink,
  readTrace,
  type TraceRecord,
  traceFileName,
} from '../agent/trace.js';
import { AT, sampleRuns } from './kernel/run-machine-samples.js';

const START = Date.UTC(2026, 0, 1, 12, 0, 0);

function record(overrides: Partial<TraceRecord> = {}): TraceRecord {
  return {
    at: START,
    runId: 'run_01abc',
    step: 1,
    kind: 'model_turn',
    stateHash: '0123456789abcdef',
    durationMs: 10,
    ...overrides,
  };
}

const sample: TraceRecord[] = [
  record({ kind: 'started', step: 0, at: START, durationMs: 0, summary: 'check the api service' }),
  record({
    step: 1,
    at: START + 1_200,
    durationMs: 1_150,
    promptTokens: 900,
    completionTokens: 40,
    summary: 'called check_service',
  }),
  record({
    kind: 'tool_call',
    step: 1,
    at: START + 1_523,
    durationMs: 320,
    tool: 'check_service',
    args: { name: 'api' },
    ok: true,
    summary: 'api is up: 200 in 45 ms',
  }),
  record({
    kind: 'tool_call',
    step: 1,
    at: START + 1_600,
    durationMs: 70,
    tool: 'read_logs',
    ok: false,
    summary: 'permission denied',
  }),
  record({
    step: 2,
    at: START + 2_500,
    durationMs: 880,
    promptTokens: 1_100,
    completionTokens: 60,
    summary: 'answered',
  }),
  record({
    kind: 'finished',
    step: 2,
    at: START + 2_501,
    durationMs: 0,
    summary: 'The api service is healthy.',
  }),
];

describe('FileTraceSink and readTrace', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'opsbot-trace-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('round-trips records through <dir>/<runId>.jsonl, creating the folder and keeping the order', async () => {
    const traces = path.join(dir, 'nested', 'traces');
    const sink = new FileTraceSink(traces);
    await Promise.all(sample.map((item) => sink.append(item)));
    expect(await readdir(traces)).toEqual(['run_01abc.jsonl']);
    const text = await readFile(path.join(traces, 'run_01abc.jsonl'), 'utf8');
    expect(text.trimEnd().split('\n')).toHaveLength(sample.length);
    expect(await readTrace(traces, 'run_01abc')).toEqual(sample);
  });

  it('appends to an existing trace instead of replacing it', async () => {
    await new FileTraceSink(dir).append(sample[0]!);
    await new FileTraceSink(dir).append(sample[1]!);
    expect(await readTrace(dir, 'run_01abc')).toEqual([sample[0], sample[1]]);
  });

  it('keeps a path-escaping run id inside the folder', async () => {
    const inner = path.join(dir, 'traces');
    const sink = new FileTraceSink(inner);
    const hostile = ['../x', '../../etc/passwd', '/abs/path', 'a/../../b', '..', '.', 'x\0y', 'C:\\win'];
    for (const runId of hostile) await sink.append(record({ runId }));
    expect(await readdir(dir)).toEqual(['traces']);
    const files = await readdir(inner);
    expect(files).toHaveLength(hostile.length);
    for (const file of files) expect(file).toMatch(/^[A-Za-z0-9_-]+\.jsonl$/);
    for (const runId of hostile) expect(await readTrace(inner, runId)).toEqual([record({ runId })]);
  });

  it('gives two different unsafe ids two different files', () => {
    expect(traceFileName('run/a')).not.toBe(traceFileName('run_a'));
    expect(traceFileName('run_a')).toBe('run_a.jsonl');
  });

  it('skips and reports corrupt lines instead of throwing', async () => {
    const good = JSON.stringify(sample[0]);
    const text = [
      good,
      '{"at": 1, "runId": "run_01abc", "ste',
      '',
      '{"not":"a record"}',
      JSON.stringify(sample[1]),
    ].join('\n');
    await writeFile(path.join(dir, 'run_01abc.jsonl'), text);
    const problems: CorruptTraceLine[] = [];
    const records = await readTrace(dir, 'run_01abc', { onCorruptLine: (problem) => problems.push(problem) });
    expect(records).toEqual([sample[0], sample[1]]);
    expect(problems.map((problem) => problem.line)).toEqual([2, 4]);
    expect(problems[0]?.reason).toMatch(/not valid JSON/);
    expect(problems[1]?.reason).toMatch(/not a trace record/);
  });

  it('reads a missing trace as empty', async () => {
    expect(await readTrace(dir, 'run_never')).toEqual([]);
  });

  it('refuses a malformed record at append time', async () => {
    const sink = new FileTraceSink(dir);
    await expect(sink.append({ ...record(), kind: 'nonsense' } as unknown as TraceRecord)).rejects.toThrow();
  });

  it('redacts summaries and arguments again when given a redactor', async () => {
    const sink = new FileTraceSink(dir, { redactor: new Redactor() });
    await sink.append(record({ summary: 'used password=hunter2', args: { token: 'abc', host: 'db' } }));
    const [stored] = await readTrace(dir, 'run_01abc');
    expect(stored?.summary).toBe(`used password=${REDACTED}`);
    expect(stored?.args).toEqual({ token: REDACTED, host: 'db' });
  });
});

describe('in-memory sinks', () => {
  it('nullTraceSink accepts anything and MemoryTraceSink keeps the records', async () => {
    await nullTraceSink.append(sample[0]!);
    const memory = new MemoryTraceSink();
    for (const item of sample) await memory.append(item);
    expect(memory.records).toEqual(sample);
  });
});

describe('formatTrace', () => {
  const text = formatTrace(sample);
  const lines = text.split('\n');

  it('opens with a header of run id and totals', () => {
    expect(lines[0]).toContain('run run_01abc');
    expect(lines[0]).toContain('steps 3');
    expect(lines[0]).toContain('tool calls 2');
    expect(lines[0]).toContain('tokens 2100 (2000 prompt + 100 completion)');
    expect(lines[0]).toContain('wall 2.501s');
  });

  it('prints one line per record with relative time, step, kind, tool, mark, duration and tokens', () => {
    expect(lines).toHaveLength(sample.length + 1);
    const toolLine = lines[3]!;
    for (const piece of [
      '+1.523s',
      '#1',
      'tool_call',
      'check_service',
      '✓',
      '320ms',
      'api is up: 200 in 45 ms',
    ]) {
      expect(toolLine).toContain(piece);
    }
    expect(lines[4]).toContain('✗');
    expect(lines[4]).toContain('read_logs');
    expect(lines[2]).toContain('900+40 tok');
    expect(lines[2]).toContain('+1.200s');
    expect(lines[1]).toContain('+0.000s');
  });

  it('truncates long summaries to one line', () => {
    const long = formatTrace([record({ summary: `first line\nsecond ${'x'.repeat(500)}` })]);
    const line = long.split('\n')[1]!;
    expect(line).toContain('first line second');
    expect(line).toContain('…');
    expect(line.length).toBeLessThan(200);
  });

  it('says so when there is nothing to show', () => {
    expect(formatTrace([])).toBe('(empty trace)');
  });
});

describe('runStateHash', () => {
  const running: Run = sampleRuns.running;
  /** The same run made afresh: no object shared with `running`, keys in another order. */
  const rebuilt = (): Run => RunSchema.parse(JSON.parse(runJson(running)));

  it('is the same for the same content, however the run was made or read back', () => {
    expect(runStateHash(running)).toMatch(/^[0-9a-f]{16}$/);
    expect(runStateHash(rebuilt())).toBe(runStateHash(running));
    const reordered = Object.fromEntries(Object.entries(running).reverse()) as Run;
    expect(runStateHash(reordered)).toBe(runStateHash(running));
    // A save changes when, not what; the run's id and its chat message ids say where, not what.
    expect(
      runStateHash({ ...rebuilt(), id: 'run_other', updatedAt: AT + 5_000, statusMessageId: 'm_status' }),
    ).toBe(runStateHash(running));
    const waiting = sampleRuns.waiting_for_approval;
    expect(
      runStateHash({ ...waiting, approval: { ...waiting.approval, cardMessageId: 'm_elsewhere' } }),
    ).toBe(runStateHash(waiting));
  });

  it('differs between two runs with as many messages and events but other content', () => {
    const other: Run = {
      ...rebuilt(),
      messages: [{ role: 'user', content: 'restart the worker' }],
      events: [{ type: 'task_received', at: AT, step: 0, text: 'restart the worker', engine: 'react' }],
    };
    expect(other.messages).toHaveLength(running.messages.length);
    expect(other.events).toHaveLength(running.events.length);
    expect(runStateHash(other)).not.toBe(runStateHash(running));
    const otherEvent: Run = {
      ...rebuilt(),
      events: [{ ...running.events[0]!, at: AT + 1 } as Run['events'][0]],
    };
    expect(runStateHash(otherEvent)).not.toBe(runStateHash(running));
  });

  it('differs in each part of the state: status, wait, planned and completed calls, usage', () => {
    const hashes = [
      runStateHash(running),
      runStateHash(sampleRuns.queued),
      runStateHash(sampleRuns.waiting_for_user),
      runStateHash({
        ...sampleRuns.waiting_for_user,
        question: { ...sampleRuns.waiting_for_user.question, choices: ['api'] },
      }),
      runStateHash({ ...running, queue: [] }),
      runStateHash({
        ...running,
        completedCalls: { 'restart_service:{"service":"api"}': { callId: 'c', content: '{}' } },
      }),
      runStateHash({
        ...running,
        completedCalls: { 'restart_service:{"service":"api"}': { callId: 'c', content: '{"ok":1}' } },
      }),
      runStateHash({ ...running, usage: { ...running.usage, promptTokens: 1 } }),
    ];
    expect(new Set(hashes).size).toBe(hashes.length);
  });
});

describe('stableJson', () => {
  it('sorts keys in stableJson and refuses cycles', () => {
    expect(stableJson({ b: 1, a: { d: [1], c: null } })).toBe('{"a":{"c":null,"d":[1]},"b":1}');
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => stableJson(cyclic)).toThrow(/cycle/);
  });
});
