// Recovers orphaned runs at start-up, then every interval: runs whose process died (their lease ran out) or
// that stopped while the store was unreachable are taken over, and a run caught mid-action is marked.
import { errorMessage } from '../../agent/errors.js';
import type { Kernel } from '../../agent/kernel.js';
import type { Logger } from '../../agent/logger.js';
import type { Service } from './service.js';

export type Recovered = Awaited<ReturnType<Kernel['recover']>>;

export interface RecoverySweepOptions {
  kernel: Pick<Kernel, 'recover'>;
  logger: Logger;
  intervalMs: number;
}

export class RecoverySweep implements Service {
  readonly name = 'recovery sweep';
  /** What the first pass at start-up recovered, for the start-up summary. */
  recovered: Recovered = { continued: 0, outcomeUnknown: 0 };
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly options: RecoverySweepOptions) {}

  async start(): Promise<void> {
    const { kernel, logger } = this.options;
    this.recovered = await kernel.recover();
    this.timer = setInterval(() => {
      kernel
        .recover()
        .catch((error) => logger.warn({ err: errorMessage(error) }, 'could not sweep orphaned runs'));
    }, this.options.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
  }
}
