// The trace of a run: one JSONL record per step, written as it happens and readable in a terminal later.
import { createHash } from 'node:crypto';
import { appendFile, mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import type { Redactor } from './redaction.js';

export const TraceKindSchema = z.enum([
  'started',
  'model_turn',
  /** The plan engine's plan, made or made again after a failure: its steps' tools. */
  'plan_made',
  /** A step of the plan engine that needed no model: the plan's next level of calls. */
  'plan_step',
  /** A step of the command engine: a typed command parsed into its call, or its result read back. No model. */
  'command_step',
  /** A step of the checks engine (patrols) that needed no model: its planned checks, or their verdict. */
  'checks_step',
  'tool_call',
  /** A tool call refused because the tool's budget for the run was spent; the run goes on. */
  'tool_budget_spent',
  'question',
  /** The run was not getting anywhere and asked its requester how to go on. */
  'stuck',
  /** A last turn without tools: at the step limit, or because the requester said to stop. */
  'wrap_up',
  'answer',
  'approval',
  'executing',
  'context_compressed',
  'finished',
  'failed',
  'cancelled',
  'expired',
  'outcome_unknown',
]);
export type TraceKind = z.infer<typeof TraceKindSchema>;

export const TraceRecordSchema = z.object({
  /** Epoch ms when the step ended. */
  at: z.number(),
  runId: z.string().min(1),
  step: z.number().int().nonnegative(),
  kind: TraceKindSchema,
  /** runStateHash() of the run after the step: equal in two traces up to the step where the runs diverge. */
  stateHash: z.string(),
  tool: z.string().optional(),
  /** Already redacted by the caller. */
  args: z.unknown().optional(),
  summary: z.string().optional(),
  ok: z.boolean().optional(),
  /** Why a tool call failed: `permission_denied` and `refused_by_policy` mean it was refused, not run. */
  errorClass: z.string().optional(),
  /** Who did it, for a person's act (an answer, an approval decision): their configured identity. */
  by: z.string().optional(),
  durationMs: z.number().nonnegative(),
  promptTokens: z.number().int().nonnegative().optional(),
  completionTokens: z.number().int().nonnegative().optional(),
});
export type TraceRecord = z.infer<typeof TraceRecordSchema>;

export interface TraceSink {
  append(record: TraceRecord): Promise<void>;
}

export const nullTraceSink: TraceSink = { append: async () => {} };

/** Keeps records in memory, for tests and for the playground's live view. */
export class MemoryTraceSink implements TraceSink {
  readonly records: TraceRecord[] = [];
  async append(record: TraceRecord): Promise<void> {
    this.records.push(TraceRecordSchema.parse(record));
  }
}

const SAFE_RUN_ID = /^[A-Za-z0-9_-]{1,128}$/;

/**
 * The file name for a run's trace. Run ids come from the store and are never trusted: anything outside
 * [A-Za-z0-9_-] is replaced, and a hash of the original keeps two different unsafe ids apart.
 */
export function traceFileName(runId: string): string {
  if (SAFE_RUN_ID.test(runId)) return `${runId}.jsonl`;
  const readable = runId.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 96);
  const digest = createHash('sha256').update(runId).digest('hex').slice(0, 12);
  return `${readable}-${digest}.jsonl`;
}

export function traceFilePath(dir: string, runId: string): string {
  const root = path.resolve(dir);
  const file = path.resolve(root, traceFileName(runId));
  // The name cannot contain a separator or "..", but check anyway: this guards the file system.
  if (path.dirname(file) !== root)
    throw new Error(`trace path for run ${JSON.stringify(runId)} escapes ${root}`);
  return file;
}

export interface FileTraceSinkOptions {
  /** Redacts summaries and arguments again on the way to disk, in case a caller forgot. */
  redactor?: Redactor;
}

/** Appends to `<dir>/<runId>.jsonl`; appends for one run are serialized so lines keep their order. */
export class FileTraceSink implements TraceSink {
  private readonly dir: string;
  private ready: Promise<unknown> | undefined;
  private readonly tails = new Map<string, Promise<void>>();

  constructor(
    dir: string,
    private readonly options: FileTraceSinkOptions = {},
  ) {
    this.dir = path.resolve(dir);
  }

  append(record: TraceRecord): Promise<void> {
    let checked: TraceRecord;
    let file: string;
    try {
      checked = TraceRecordSchema.parse(this.redact(record));
      file = traceFilePath(this.dir, checked.runId);
    } catch (error) {
      // Callers await this; a bad record must reject like a failed write, not throw before the promise.
      return Promise.reject(error);
    }
    const line = `${JSON.stringify(checked)}\n`;
    this.ready ??= mkdir(this.dir, { recursive: true });
    const previous = this.tails.get(file) ?? Promise.resolve();
    const next = previous
      .catch(() => {})
      .then(() => this.ready)
      .then(() => appendFile(file, line, { encoding: 'utf8', flag: 'a' }));
    this.tails.set(file, next);
    // Forget finished tails so a long-lived sink does not keep one promise per run ever traced.
    const forget = () => {
      if (this.tails.get(file) === next) this.tails.delete(file);
    };
    next.then(forget, forget);
    return next;
  }

  private redact(record: TraceRecord): TraceRecord {
    return redactTraceRecord(record, this.options.redactor);
  }
}

/** Redacts a record's summary and arguments again, in case a caller forgot. */
export function redactTraceRecord(record: TraceRecord, redactor: Redactor | undefined): TraceRecord {
  if (!redactor) return record;
  return {
    ...record,
    ...(record.summary === undefined ? {} : { summary: redactor.redact(record.summary) }),
    ...(record.args === undefined ? {} : { args: redactor.redactValue(record.args) }),
  };
}

/** Writes each record to every sink: the Store's copy for any machine, and the data folder's for this one. */
export function everyTraceSink(...sinks: readonly TraceSink[]): TraceSink {
  return {
    async append(record) {
      const results = await Promise.allSettled(sinks.map((sink) => sink.append(record)));
      const failed = results.find((result) => result.status === 'rejected');
      if (failed) throw failed.reason;
    },
  };
}

export interface CorruptTraceLine {
  file: string;
  /** 1-based line number. */
  line: number;
  reason: string;
}

export interface ReadTraceOptions {
  /** Called for each line that is not a valid record; by default a process warning is emitted. */
  onCorruptLine?: (problem: CorruptTraceLine) => void;
}

/** Reads a run's trace; a missing file is an empty trace, and corrupt lines are skipped and reported. */
export async function readTrace(
  dir: string,
  runId: string,
  options: ReadTraceOptions = {},
): Promise<TraceRecord[]> {
  const file = traceFilePath(dir, runId);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const report =
    options.onCorruptLine ??
    ((problem: CorruptTraceLine) =>
      process.emitWarning(`${problem.file}:${problem.line}: skipped: ${problem.reason}`, 'TraceWarning'));
  const records: TraceRecord[] = [];
  text.split('\n').forEach((line, index) => {
    if (line.trim() === '') return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      report({ file, line: index + 1, reason: 'not valid JSON (a partial write?)' });
      return;
    }
    const result = TraceRecordSchema.safeParse(parsed);
    if (result.success) records.push(result.data);
    else report({ file, line: index + 1, reason: `not a trace record: ${z.prettifyError(result.error)}` });
  });
  return records;
}

const SUMMARY_CHARS = 80;

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(3)}s`;
}

function okMark(ok: boolean | undefined): string {
  if (ok === undefined) return ' ';
  return ok ? '✓' : '✗';
}

function tokens(record: TraceRecord): string {
  if (record.promptTokens === undefined && record.completionTokens === undefined) return '';
  return `${record.promptTokens ?? 0}+${record.completionTokens ?? 0} tok`;
}

function truncate(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

/** A terminal view: a header with totals, then one aligned line per record. */
export function formatTrace(records: TraceRecord[]): string {
  const first = records[0];
  if (!first) return '(empty trace)';
  const last = records.at(-1) ?? first;
  // `at` marks the end of a step, so the run began when the first step started.
  const start = first.at - first.durationMs;
  const promptTokens = records.reduce((sum, record) => sum + (record.promptTokens ?? 0), 0);
  const completionTokens = records.reduce((sum, record) => sum + (record.completionTokens ?? 0), 0);
  const steps = new Set(records.map((record) => record.step)).size;
  const toolCalls = records.filter((record) => record.kind === 'tool_call').length;
  const header =
    `run ${first.runId}  steps ${steps}  tool calls ${toolCalls}  ` +
    `tokens ${promptTokens + completionTokens} (${promptTokens} prompt + ${completionTokens} completion)  ` +
    `wall ${seconds(last.at - start)}`;
  const lines = records.map((record) =>
    [
      `+${seconds(record.at - start)}`.padStart(10),
      `#${record.step}`.padStart(4),
      record.kind.padEnd(18),
      (record.tool ?? '').padEnd(20),
      okMark(record.ok),
      `${Math.round(record.durationMs)}ms`.padStart(8),
      tokens(record).padStart(14),
      record.summary ? ` ${truncate(record.summary, SUMMARY_CHARS)}` : '',
    ]
      .join(' ')
      .trimEnd(),
  );
  return [header, ...lines].join('\n');
}
