// Counts runs starting and ending from the kernel's run changes (`kernel.onRunChange`), by platform. Each
// change is heard by the process that made it, so a run is counted as started where it was created and as
// ended where it ended: the sum over every process is the cluster's count.
import { isTerminal, type Run } from '../../agent/run.js';
import type { RunListener } from '../../agent/run-listeners.js';
import type { OpsbotMetrics, RunEnding } from './opsbot-metrics.js';

/** How many run ids are remembered to count each run once; a run's changes come well within this many. */
const REMEMBERED_RUNS = 10_000;

export function runLifecycleMetrics(metrics: OpsbotMetrics): RunListener {
  const started = new RecentIds(REMEMBERED_RUNS);
  const ended = new RecentIds(REMEMBERED_RUNS);
  return (run) => {
    const platform = run.conversation.platform;
    if (isNewRun(run) && started.add(run.id)) metrics.runStarted(platform);
    if (isTerminal(run.status) && ended.add(run.id)) {
      const endedAt = run.events.at(-1)?.at ?? run.updatedAt;
      metrics.runEnded(platform, run.status as RunEnding, endedAt - run.createdAt);
    }
  };
}

/**
 * A run as the kernel makes it: saved queued with its task and nothing else, or refused at once (an empty or
 * oversized task fails before it is saved). A worker in another process never sees a run this young.
 */
function isNewRun(run: Run): boolean {
  const [first, second, ...rest] = run.events;
  if (first?.type !== 'task_received' || rest.length > 0 || run.step !== 0) return false;
  if (second === undefined) return run.status === 'queued';
  return run.status === 'failed' && second.type === 'failed' && second.code === 'invalid_task';
}

/** A set that forgets its oldest ids past `limit`, so a long-lived process does not keep every run id. */
class RecentIds {
  private readonly ids = new Set<string>();
  constructor(private readonly limit: number) {}

  /** True when the id was not there yet. */
  add(id: string): boolean {
    if (this.ids.has(id)) return false;
    this.ids.add(id);
    if (this.ids.size > this.limit) {
      const oldest = this.ids.values().next().value;
      if (oldest !== undefined) this.ids.delete(oldest);
    }
    return true;
  }
}
