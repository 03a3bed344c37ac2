// A run's trace in the Store, so that `opsbot trace <run>` reads it from any machine with the Store's address,
// whichever process stepped the run. Each record is appended to the run's log; the time it may be removed,
// `limits.trace_history` after the run ends, is set with the records of its first step and again with its last
// record (so a run that never ends is still removed); the sink removes the traces past that as it writes others.
import type { Clock } from './clock.js';
import { errorMessage } from './errors.js';
import type { Logger } from './logger.js';
import type { Redactor } from './redaction.js';
import type { Store } from './store/store.js';
import { storeKeys } from './store/store-keys.js';
import {
  type CorruptTraceLine,
  redactTraceRecord,
  type TraceRecord,
  TraceRecordSchema,
  type TraceSink,
} from './trace.js';

/** How often a process looks for traces past their time, at most; and how many it removes in one go. */
const SWEEP_EVERY_MS = 60_000;
const SWEEP_BATCH = 200;
/** A run's last trace record: its removal time is counted from it. */
const ENDINGS = new Set<TraceRecord['kind']>([
  'finished',
  'failed',
  'cancelled',
  'expired',
  'outcome_unknown',
]);

export interface StoreTraceSinkOptions {
  store: Store;
  /** How long a trace is kept after its run ends. */
  keepMs: number;
  clock: Clock;
  logger: Logger;
  redactor?: Redactor;
}

export class StoreTraceSink implements TraceSink {
  private lastSweep = Number.NEGATIVE_INFINITY;
  private sweeping: Promise<void> | undefined;

  constructor(private readonly options: StoreTraceSinkOptions) {}

  async append(record: TraceRecord): Promise<void> {
    const { store, keepMs, redactor } = this.options;
    const checked = TraceRecordSchema.parse(redactTraceRecord(record, redactor));
    const log = storeKeys.runTrace(checked.runId);
    // Most records are one append: the removal time is written with the first step's and the last.
    if (checked.step > 1 && !ENDINGS.has(checked.kind)) {
      await store.append(log, checked);
      return;
    }
    await store.writeAll([
      { kind: 'append', log, record: checked },
      { kind: 'addToIndex', index: storeKeys.traceExpiry, member: checked.runId, at: checked.at + keepMs },
    ]);
    this.sweepNowAndThen();
  }

  /** Removes the traces whose time has come; resolves to how many. */
  async sweep(): Promise<number> {
    const { store, clock } = this.options;
    let removed = 0;
    for (;;) {
      const due = await store.due(storeKeys.traceExpiry, clock.now(), SWEEP_BATCH);
      if (due.length === 0) return removed;
      await store.writeAll(
        due.flatMap(({ member }) => [
          { kind: 'deleteLog' as const, log: storeKeys.runTrace(member) },
          { kind: 'removeFromIndex' as const, index: storeKeys.traceExpiry, member },
        ]),
      );
      removed += due.length;
    }
  }

  private sweepNowAndThen(): void {
    const now = this.options.clock.now();
    if (this.sweeping || now - this.lastSweep < SWEEP_EVERY_MS) return;
    this.lastSweep = now;
    this.sweeping = this.sweep()
      .then(
        () => undefined,
        (error) =>
          this.options.logger.warn(
            { err: errorMessage(error) },
            'could not remove traces past limits.trace_history',
          ),
      )
      .finally(() => {
        this.sweeping = undefined;
      });
  }
}

/** A run's trace as the Store holds it; records that do not parse are skipped and reported. */
export async function readStoredTrace(
  store: Store,
  runId: string,
  onCorruptLine: (problem: CorruptTraceLine) => void,
): Promise<TraceRecord[]> {
  const log = storeKeys.runTrace(runId);
  const records: TraceRecord[] = [];
  (await store.readLog<unknown>(log)).forEach((stored, index) => {
    const parsed = TraceRecordSchema.safeParse(stored);
    if (parsed.success) records.push(parsed.data);
    else onCorruptLine({ file: `store log ${log}`, line: index + 1, reason: 'not a trace record' });
  });
  return records;
}
