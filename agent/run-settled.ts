// Waiting for a run to settle (end, or wait for a person): from this process's worker as it leaves the run, or,
// when this process has nothing left to step, from the Store. For the CLI, tests and the bench.

import { isSettled, type Run } from './run.js';
import type { RunListeners } from './run-listeners.js';
import type { RunQueue } from './run-queue.js';
import type { RunRepository } from './run-repository.js';
import type { RunWorker } from './run-worker.js';

export interface SettledDeps {
  listeners: Pick<RunListeners, 'addFor'>;
  worker: Pick<RunWorker, 'stopped'>;
  queue: Pick<RunQueue, 'idle'>;
  runs: Pick<RunRepository, 'load'>;
}

export function runSettled(deps: SettledDeps, runId: string): Promise<Run> {
  return new Promise((resolve, reject) => {
    // Whichever comes first; once the listener has the run, the stored copy is not read at all.
    let heard = false;
    const stop = deps.listeners.addFor(runId, (run) => {
      if (!isSettled(run.status)) return;
      heard = true;
      stop();
      // The worker lets go of the run (its lease) just after this change: resolve once it has.
      void deps.worker.stopped(runId).then(() => resolve(run));
    });
    deps.queue
      .idle()
      .then(() => (heard ? undefined : deps.runs.load(runId)))
      .then(
        (run) => {
          if (heard || !run) return;
          stop();
          resolve(run);
        },
        (error) => {
          if (heard) return;
          stop();
          reject(error);
        },
      );
  });
}
