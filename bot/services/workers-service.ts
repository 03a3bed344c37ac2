// A gateway steps no runs: with no worker alive, every task waits in the queue and nobody is told. Its /readyz
// has a `workers` check that fails when no worker (or single-process bot) has been heard from for 30 s, so a
// load balancer or an on-call engineer sees it.
import type { Clock } from '../../agent/clock.js';
import { formatDuration } from '../../agent/duration-text.js';
import type { Store } from '../../agent/store/store.js';
import { liveProcesses } from '../cluster/process-presence.js';
import type { Service, ServiceReadiness } from './service.js';

/** A worker not heard from for this long counts as gone: two of its heartbeats (15 s apart) were missed. */
export const WORKER_SILENCE_MS = 30_000;

export function workersService(store: Store, clock: Clock): Service {
  return {
    name: 'workers',
    async start() {},
    async stop() {},
    readiness: () => workersReadiness(store, clock.now()),
  };
}

/** How long a gateway goes by what it last read of the workers, before reading their records again. */
const WORKERS_SEEN_FOR_MS = 2_000;

/**
 * Whether a worker was heard from lately, for a gateway's status line on each new run: read at most every 2 s, so
 * a burst of events costs one read of the process records, not one each.
 */
export function workersSeen(store: Store, clock: Clock): () => Promise<boolean> {
  let last: { at: number; seen: Promise<boolean> } | undefined;
  return () => {
    const now = clock.now();
    if (!last || now - last.at >= WORKERS_SEEN_FOR_MS) {
      const seen = workersReadiness(store, now).then((readiness) => readiness.ok);
      // A failed read is not kept: the next run reads again.
      seen.catch(() => {
        if (last?.seen === seen) last = undefined;
      });
      last = { at: now, seen };
    }
    return last.seen;
  };
}

export async function workersReadiness(store: Store, now: number): Promise<ServiceReadiness> {
  const stepping = (await liveProcesses(store, now)).filter(
    (process) => process.role !== 'gateway' && now - process.seenAt <= WORKER_SILENCE_MS,
  );
  if (stepping.length === 0) {
    return {
      ok: false,
      detail: `no worker heard from in the last ${formatDuration(WORKER_SILENCE_MS)}: tasks wait in the queue until one runs (start one with OPSBOT_ROLE=worker on the same OPSBOT_STORE_URL)`,
    };
  }
  const latest = Math.max(...stepping.map((process) => process.seenAt));
  const concurrency = stepping.reduce((sum, process) => sum + process.concurrency, 0);
  return {
    ok: true,
    detail: `${stepping.length} worker${stepping.length === 1 ? '' : 's'} (${concurrency} runs at once), last heard ${formatDuration(Math.max(0, now - latest))} ago`,
  };
}
