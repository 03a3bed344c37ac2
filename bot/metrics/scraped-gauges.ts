// The gauges read at each scrape, from the Store and the queue, so every process shows the same shared state:
// people's waits, the queue's depth, and the patrols' check states.
import { errorMessage } from '../../agent/errors.js';
import type { Logger } from '../../agent/logger.js';
import type { ModelRateLimiter } from '../../agent/model/model-rate-limit.js';
import { hasQueueStats } from '../../agent/queue-stats.js';
import type { Run } from '../../agent/run.js';
import type { RunQueue } from '../../agent/run-queue.js';
import { statusWord } from '../../scheduled/check-state.js';
import type { PatrolRepository } from '../../scheduled/patrol-repository.js';
import type { OpsbotMetrics } from './opsbot-metrics.js';

/** Sets some gauges; a scrape runs every collector at once. */
export interface GaugeCollector {
  /** Names the part in `opsbot_metrics_collect_errors_total` and the log when it fails. */
  part: string;
  collect(): Promise<void>;
}

/** The most waiting runs read at one scrape: they are read one by one, and a scrape must stay cheap. */
export const MAX_WAITING_RUNS_READ = 1_000;

export function waitingGauges(
  runs: { waitingRunIds(): Promise<string[]>; find(runId: string): Promise<Run | undefined> },
  metrics: OpsbotMetrics,
): GaugeCollector {
  return {
    part: 'waiting',
    async collect() {
      // The Store's waiting index holds both kinds of wait; which one a run is in is on the run itself.
      const ids = (await runs.waitingRunIds()).slice(0, MAX_WAITING_RUNS_READ);
      const waiting = await Promise.all(ids.map((id) => runs.find(id)));
      const count = (status: Run['status']) => waiting.filter((run) => run?.status === status).length;
      metrics.approvalsWaiting.set(count('waiting_for_approval'));
      metrics.questionsWaiting.set(count('waiting_for_user'));
    },
  };
}

export function queueGauges(queue: RunQueue, metrics: OpsbotMetrics): GaugeCollector | undefined {
  if (!hasQueueStats(queue)) return undefined;
  return {
    part: 'queue',
    async collect() {
      const stats = await queue.stats();
      metrics.queueWaiting.set(stats.waiting);
      metrics.queueActive.set(stats.active);
      metrics.queueStalled.set(stats.stalled ?? 0);
    },
  };
}

/** The alert groups firing now, and those with posts still to make, from the Store. */
export function alertGauges(
  groups: { openCount(): Promise<number>; pendingCount(): Promise<number> },
  metrics: OpsbotMetrics,
): GaugeCollector {
  return {
    part: 'alerts',
    async collect() {
      metrics.alertGroupsOpen.set(await groups.openCount());
      metrics.alertGroupsPending.set(await groups.pendingCount());
    },
  };
}

/** The model rate limiter's figures: its rate now, and the requests open and waiting. */
export function modelRateGauges(
  limiter: Pick<ModelRateLimiter, 'figures'> | undefined,
  metrics: OpsbotMetrics,
): GaugeCollector | undefined {
  if (!limiter) return undefined;
  return {
    part: 'model_rate_limit',
    async collect() {
      const { rate, inFlight, queued } = limiter.figures();
      metrics.modelRate.set(rate);
      metrics.modelInFlight.set(inFlight);
      metrics.modelWaiting.set(queued);
    },
  };
}

/** Counts each configured patrol's checks by state, from the states the patrols keep in the Store. */
export function patrolGauges(
  patrols: readonly string[],
  repository: Pick<PatrolRepository, 'states'>,
  metrics: OpsbotMetrics,
): GaugeCollector | undefined {
  if (patrols.length === 0) return undefined;
  return {
    part: 'patrols',
    async collect() {
      const counted = await Promise.all(
        patrols.map(async (patrol) => {
          const counts = new Map<string, number>();
          for (const state of Object.values(await repository.states(patrol))) {
            const word = statusWord(state.machine);
            counts.set(word, (counts.get(word) ?? 0) + 1);
          }
          return [patrol, counts] as const;
        }),
      );
      // A state no check is in any more must read 0, not its last count.
      metrics.patrolChecks.reset();
      for (const [patrol, counts] of counted) {
        for (const [state, count] of counts) metrics.patrolChecks.set({ patrol, state }, count);
      }
    },
  };
}

/** Runs every collector, then renders the registry. A part that fails keeps its last values and is counted. */
export async function scrape(
  metrics: OpsbotMetrics,
  collectors: readonly GaugeCollector[],
  logger: Logger,
): Promise<string> {
  await Promise.all(
    collectors.map(async ({ part, collect }) => {
      try {
        await collect();
      } catch (error) {
        metrics.scrapeErrors.inc({ part });
        logger.warn({ part, err: errorMessage(error) }, 'a part of /metrics could not be read');
      }
    }),
  );
  return metrics.registry.metrics();
}
