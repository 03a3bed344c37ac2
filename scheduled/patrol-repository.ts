// Patrol records in the Store: check states, reports, controls and history, each validated when read back.
// History and resolved reports are kept for `limits.patrol_history`; a stored record that no longer parses is
// logged and treated as absent rather than stopping the patrol.
import { z } from 'zod';
import type { Clock } from '../agent/clock.js';
import type { Logger } from '../agent/logger.js';
import type { Store } from '../agent/store/store.js';
import { type CheckState, CheckStateSchema } from './check-state.js';
import {
  patrolRecordKeys as keys,
  type PatrolControl,
  PatrolControlSchema,
  type PatrolHistoryEntry,
  PatrolHistoryEntrySchema,
  type PatrolReportRecord,
  PatrolReportRecordSchema,
} from './patrol-records.js';

/** The most history entries kept per patrol, whatever their age (a patrol every minute makes 10,080 a week). */
export const MAX_HISTORY_ENTRIES = 500;

const StatesSchema = z.record(z.string(), CheckStateSchema);

export class PatrolRepository {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly keepMs: number,
    private readonly logger: Logger,
  ) {}

  async states(name: string): Promise<Record<string, CheckState>> {
    return (await this.read(keys.checks(name), StatesSchema)) ?? {};
  }

  async saveStates(name: string, states: Record<string, CheckState>): Promise<void> {
    await this.store.set(keys.checks(name), states);
  }

  async report(reportId: string): Promise<PatrolReportRecord | undefined> {
    return this.read(keys.report(reportId), PatrolReportRecordSchema);
  }

  /** An open report is kept until it resolves; a resolved one for the history window. */
  async saveReport(report: PatrolReportRecord): Promise<void> {
    await this.store.set(
      keys.report(report.reportId),
      report,
      report.resolvedAt === undefined ? undefined : this.keepMs,
    );
  }

  async control(name: string): Promise<PatrolControl> {
    return (await this.read(keys.control(name), PatrolControlSchema)) ?? { snoozes: {} };
  }

  async saveControl(name: string, control: PatrolControl): Promise<void> {
    const now = this.clock.now();
    const snoozes = Object.fromEntries(Object.entries(control.snoozes).filter(([, s]) => s.until > now));
    const paused =
      control.paused?.until !== undefined && control.paused.until <= now ? undefined : control.paused;
    await this.store.set(keys.control(name), { ...(paused ? { paused } : {}), snoozes });
  }

  async history(name: string): Promise<PatrolHistoryEntry[]> {
    return (await this.read(keys.history(name), z.array(PatrolHistoryEntrySchema))) ?? [];
  }

  async appendHistory(name: string, entry: PatrolHistoryEntry): Promise<void> {
    const oldest = this.clock.now() - this.keepMs;
    const kept = [...(await this.history(name)), entry]
      .filter((e) => e.at >= oldest)
      .slice(-MAX_HISTORY_ENTRIES);
    await this.store.set(keys.history(name), kept, this.keepMs);
  }

  /** True once per patrol, slot and kind, across replicas and retries; the claim lapses with the history. */
  async firstPost(name: string, slotMs: number, kind: string, runId: string): Promise<boolean> {
    // Claimed by the run: a claim by the same owner succeeds again, so a shared owner would let every run post.
    return this.store.claim(keys.post(name, slotMs, kind), runId, this.keepMs);
  }

  private async read<T>(key: string, schema: z.ZodType<T>): Promise<T | undefined> {
    const raw = await this.store.get<unknown>(key);
    if (raw === undefined) return undefined;
    const parsed = schema.safeParse(raw);
    if (parsed.success) return parsed.data;
    this.logger.warn(
      { key, problem: parsed.error.issues[0]?.message },
      'ignored a patrol record that does not parse',
    );
    return undefined;
  }
}
