// Who hears about every change to a run in this process: the CLI's step printer, the router's thread queue,
// and callers waiting for one run to settle.
import { errorMessage } from './errors.js';
import type { Logger } from './logger.js';
import type { Run } from './run.js';

export type RunListener = (run: Run) => void;

export class RunListeners {
  private readonly listeners = new Set<RunListener>();
  /** Listeners to one run each, so a change is not offered to every caller waiting on some other run. */
  private readonly byRun = new Map<string, Set<RunListener>>();

  constructor(private readonly logger: Logger) {}

  add(listener: RunListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Hears the changes to one run only. */
  addFor(runId: string, listener: RunListener): () => void {
    let listeners = this.byRun.get(runId);
    if (!listeners) {
      listeners = new Set();
      this.byRun.set(runId, listeners);
    }
    listeners.add(listener);
    return () => {
      const current = this.byRun.get(runId);
      if (!current?.delete(listener) || current.size > 0) return;
      this.byRun.delete(runId);
    };
  }

  /** Tells every listener; one that throws is logged and does not stop the others or the run. */
  emit(run: Run): void {
    for (const listener of this.listeners) this.tell(listener, run);
    const own = this.byRun.get(run.id);
    if (own) for (const listener of own) this.tell(listener, run);
  }

  private tell(listener: RunListener, run: Run): void {
    try {
      listener(run);
    } catch (error) {
      this.logger.warn({ err: errorMessage(error) }, 'a run listener threw');
    }
  }
}
