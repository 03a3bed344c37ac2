// Each process says it is alive in the Store every 15 s (a record that expires after a minute), with its role,
// host, concurrency and settings hash, so `opsbot cluster` can list the processes seen in the last minute and a
// process that starts with settings unlike the others' can say how they differ.
import { hostname } from 'node:os';
import { z } from 'zod';
import type { Clock } from '../../agent/clock.js';
import { errorMessage } from '../../agent/errors.js';
import type { Logger } from '../../agent/logger.js';
import type { Store } from '../../agent/store/store.js';
import type { Service } from '../services/service.js';

const PROCESSES = 'cluster:processes';
const processKey = (instanceId: string) => `cluster:process:${instanceId}`;
const BEAT_MS = 15_000;
/** A process not heard from for this long is gone. */
export const SEEN_WITHIN_MS = 60_000;

export const ProcessRecordSchema = z.object({
  instanceId: z.string(),
  role: z.enum(['all', 'gateway', 'worker']),
  host: z.string(),
  pid: z.number().int(),
  startedAt: z.number(),
  seenAt: z.number(),
  concurrency: z.number().int(),
  settingsHash: z.string(),
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
}

export class ProcessPresence implements Service {
  readonly name = 'process presence';
  private timer: NodeJS.Timeout | undefined;
  private readonly startedAt: number;

  constructor(private readonly options: PresenceOptions) {
    this.startedAt = options.clock.now();
  }

  async start(): Promise<void> {
    await this.beat();
    this.timer = setInterval(() => {
      this.beat().catch((error) =>
        this.options.logger.warn({ err: errorMessage(error) }, 'could not record this process as alive'),
      );
    }, BEAT_MS);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
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
  }
}
