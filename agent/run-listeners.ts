// Who hears about every change to a run in this process: the CLI's step printer, the router's thread queue.
import { errorMessage } from './errors.js';
import type { Logger } from './logger.js';
import type { Run } from './run.js';

export type RunListener = (run: Run) => void;

export class RunListeners {
  private readonly listeners = new Set<RunListener>();

  constructor(private readonly logger: Logger) {}

  add(listener: RunListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Tells every listener; one that throws is logged and does not stop the others or the run. */
  emit(run: Run): void {
    for (const listener of this.listeners) {
      try {
        listener(run);
      } catch (error) {
        this.logger.warn({ err: errorMessage(error) }, 'a run listener threw');
      }
    }
  }
}
