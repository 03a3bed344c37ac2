// Waiting for a run to settle (end, or wait for a person): from this process's worker as it leaves the run, or,
// when this process has nothing left to step, from the Store. When other processes step the queue's runs (BullMQ),
// the run may be stepped anywhere: the Store is read until it shows the run settled. For the CLI, tests, the bench
// and patrols, which wait for their checks on any worker.

import { isSettled, type Run } from './run.js';
import type { RunListeners } from './run-listeners.js';
import type { RunQueue } from './run-queue.js';
import type { RunRepository } from './run-repository.js';
import type { RunWorker } from './run-worker.js';
import type { Timers } from './timers.js';

export interface SettledDeps {
  listeners: Pick<RunListeners, 'addFor'>;
  worker: Pick<RunWorker, 'stopped'>;
  queue: Pick<RunQueue, 'idle' | 'shared'>;
  runs: Pick<RunRepository, 'load'>;
  timers: Timers;
}

/** How often the Store is read for a run stepped by another process: soon at first, then every 2 s. */
const FIRST_LOOK_MS = 100;
const LAST_LOOK_MS = 2_000;

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
    if (deps.queue.shared) {
      watchStore(
        deps,
        runId,
        () => heard,
        (run) => {
          stop();
          resolve(run);
        },
      );
      return;
    }
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

/**
 * Reads the run until it is settled, backing off from 100 ms to 2 s. A Store that fails (Redis restarting) is
 * read again at the next look: the run is still going somewhere, and a patrol waiting for it must not give up.
 */
function watchStore(deps: SettledDeps, runId: string, heard: () => boolean, found: (run: Run) => void): void {
  let delay = FIRST_LOOK_MS;
  const look = () => {
    if (heard()) return;
    deps.runs.load(runId).then(
      (run) => {
        if (heard()) return;
        if (isSettled(run.status)) found(run);
        else later();
      },
      () => later(),
    );
  };
  const later = () => {
    deps.timers.setTimeout(look, delay);
    delay = Math.min(delay * 2, LAST_LOOK_MS);
  };
  later();
}
