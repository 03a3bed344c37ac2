// Work that continues after the platform got its ack: tracked so tests and shutdown can wait for it, never unhandled.
import { errorMessage } from '../../agent/errors.js';
import type { Logger } from '../../agent/logger.js';

export class BackgroundWork {
  private readonly running = new Set<Promise<void>>();

  constructor(private readonly logger: Logger) {}

  /** Starts `work` on a later tick, so the caller (and the ack it is about to send) never waits for any of it. */
  run(name: string, work: () => Promise<void>): void {
    const task = Promise.resolve()
      .then(work)
      .catch((error) => this.logger.error({ err: errorMessage(error), work: name }, 'chat work failed'))
      .finally(() => this.running.delete(task));
    this.running.add(task);
  }

  get size(): number {
    return this.running.size;
  }

  /** Resolves once nothing is running, including work started while waiting. */
  async idle(): Promise<void> {
    while (this.running.size > 0) await Promise.allSettled([...this.running]);
  }
}
