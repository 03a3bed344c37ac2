// Each process says it is alive in the Store every 15 s (a record that expires after a minute), with its role,
// host, concurrency and settings hash, so `opsbot cluster` can list the processes seen in the last minute and a
// process that starts with settings unlike the others' can say how they differ.
import { hostname } from 'node:os';
import { z } from 'zod';
import type { Clock } from '../../agent/clock.js';
import { errorMessage } from '../../agent/errors.js';
import type { Logger } from '../../agent/logger.js';
import { PlatformSchema } from '../../agent/principal.js';
import type { Store } from '../../agent/store/store.js';
import { systemTimers, type Timers } from '../../agent/timers.js';
import type { Service, ServiceReadiness } from '../services/service.js';
import { postingConflicts } from './posting-mix.js';

const PROCESSES = 'cluster:processes';
const processKey = (instanceId: string) => `cluster:process:${instanceId}`;
const BEAT_MS = 15_000;
/** A process not heard from for this long is gone. */
export const SEEN_WITHIN_MS = 60_000;
/** A process that missed two heartbeats is not counted against a starting one: it has likely stopped. */
const RUNNING_WITHIN_MS = 30_000;

export const ProcessRecordSchema = z.object({
  instanceId: z.string(),
  role: z.enum(['all', 'gateway', 'worker']),
  host: z.string(),
  pid: z.number().int(),
  startedAt: z.number(),
  seenAt: z.number(),
  concurrency: z.number().int(),
  settingsHash: z.string(),
  /** Where it takes requests from, and (when it steps runs) where it can post; absent from older versions. */
  takes: z.array(PlatformSchema).optional(),
  posts: z.array(PlatformSchema).optional(),
});
export type ProcessRecord = z.infer<typeof ProcessRecordSchema>;

/** The processes heard from in the last minute, oldest first; records that expired leave the index. */
export async function liveProcesses(store: Store, now: number): Promise<ProcessRecord[]> {
  const live: ProcessRecord[] = [];
  for (const instanceId of await store.members(PROCESSES)) {
    const parsed = ProcessRecordSchema.safeParse(await store.get(processKey(instanceId)));
    if (!parsed.success || now - parsed.data.seenAt > SEEN_WITHIN_MS) {
      await store.removeFromSet(PROCESSES, instanceId);
      continue;
    }
    live.push(parsed.data);
  }
  return live.sort((a, b) => a.startedAt - b.startedAt);
}

export interface PresenceOptions {
  store: Store;
  clock: Clock;
  logger: Logger;
  record: Omit<ProcessRecord, 'seenAt' | 'startedAt' | 'host' | 'pid'>;
  /** The heartbeat's timer; Node's by default. */
  timers?: Timers;
}

/**
 * Records this process as alive, and refuses to start beside a process whose runs it could not answer, or that
 * could not answer its runs (posting-mix.ts). Two processes started at the same moment may not see each other
 * at start: each heartbeat looks again, logs such a mix as an error and fails /readyz's `cluster` check.
 */
export class ProcessPresence implements Service {
  readonly name = 'cluster';
  private timer: unknown;
  private stopped = false;
  private readonly startedAt: number;
  private conflicts: string[] = [];

  constructor(private readonly options: PresenceOptions) {
    this.startedAt = options.clock.now();
  }

  async start(): Promise<void> {
    const conflicts = await this.findConflicts();
    if (conflicts.length === 1) throw new Error(conflicts[0]);
    if (conflicts.length > 1)
      throw new Error(
        `this process cannot run beside the others on this store (${conflicts.length} problems):\n${conflicts.map((conflict) => `  - ${conflict}`).join('\n')}`,
      );
    await this.beat();
    this.schedule();
  }

  private schedule(): void {
    const timers = this.options.timers ?? systemTimers;
    this.timer = timers.setTimeout(() => {
      this.beat()
        .catch((error) =>
          this.options.logger.warn({ err: errorMessage(error) }, 'could not record this process as alive'),
        )
        .finally(() => {
          if (!this.stopped) this.schedule();
        });
    }, BEAT_MS);
  }

  async readiness(): Promise<ServiceReadiness> {
    return this.conflicts.length === 0
      ? { ok: true, detail: 'every process that steps runs can post where they came from' }
      : { ok: false, detail: this.conflicts.join('; and ') };
  }

  async stop(): Promise<void> {
    this.stopped = true;
    (this.options.timers ?? systemTimers).clearTimeout(this.timer);
    const { store, record } = this.options;
    await store.delete(processKey(record.instanceId)).catch(() => false);
    await store.removeFromSet(PROCESSES, record.instanceId).catch(() => undefined);
  }

  private async beat(): Promise<void> {
    const { store, clock, record } = this.options;
    const full: ProcessRecord = {
      ...record,
      host: hostname(),
      pid: process.pid,
      startedAt: this.startedAt,
      seenAt: clock.now(),
    };
    await store.set(processKey(record.instanceId), full, SEEN_WITHIN_MS);
    await store.addToSet(PROCESSES, record.instanceId);
    const conflicts = await this.findConflicts();
    for (const conflict of conflicts.filter((known) => !this.conflicts.includes(known)))
      this.options.logger.error({}, `runs would be lost: ${conflict}`);
    this.conflicts = conflicts;
  }

  private async findConflicts(): Promise<string[]> {
    const { store, clock, record } = this.options;
    const now = clock.now();
    const running = (await liveProcesses(store, now)).filter(
      (other) => now - other.seenAt <= RUNNING_WITHIN_MS,
    );
    return postingConflicts({ ...record, host: hostname(), pid: process.pid }, running);
  }
}
