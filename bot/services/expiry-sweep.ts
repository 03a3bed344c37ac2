// Recovers orphaned runs at start-up, then regularly expires questions nobody answered and recovers again.
import { errorMessage } from '../../agent/errors.js';
import type { Kernel } from '../../agent/kernel.js';
import type { Logger } from '../../agent/logger.js';
import type { Service } from './service.js';

export type Recovered = Awaited<ReturnType<Kernel['recover']>>;

export interface ExpirySweepOptions {
  kernel: { expireWaiting(): Promise<unknown>; recover(): Promise<Recovered> };
  logger: Logger;
  intervalMs: number;
}

export class ExpirySweep implements Service {
  readonly name = 'expiry sweep';
  /** What the first pass at start-up recovered, for the start-up summary. */
  recovered: Recovered = { continued: 0, outcomeUnknown: 0 };
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly options: ExpirySweepOptions) {}

  async start(): Promise<void> {
    const { kernel, logger } = this.options;
    this.recovered = await kernel.recover();
    // Runs whose process died (their lease ran out) or that stopped while the store was unreachable are taken
    // over here too, not only at start-up.
    this.timer = setInterval(() => {
      kernel
        .expireWaiting()
        .then(() => kernel.recover())
        .catch((error) =>
          logger.warn({ err: errorMessage(error) }, 'could not sweep waiting and orphaned runs'),
        );
    }, this.options.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
  }
}
