// Starts services in order and stops them in reverse, so what takes work stops first and the store stops last.
import { setImmediate } from 'node:timers';
import { errorMessage } from '../../agent/errors.js';
import type { Logger } from '../../agent/logger.js';
import type { ShutdownStep } from '../shutdown.js';
import type { Service, ServiceReadiness } from './service.js';

/** Where readiness checks are collected: the HTTP server's /readyz. */
export interface ReadinessRegistry {
  addReadinessCheck(name: string, check: () => Promise<ServiceReadiness>): void;
}

export interface ServiceSetOptions {
  logger: Logger;
  readiness?: ReadinessRegistry;
}

export class ServiceStartError extends Error {
  constructor(
    readonly service: string,
    cause: unknown,
  ) {
    super(`${service} did not start: ${errorMessage(cause)}`, { cause });
    this.name = 'ServiceStartError';
  }
}

export class ServiceSet {
  private readonly services: readonly Service[];
  /** In start order; a service leaves this list as it is stopped, so none is stopped twice. */
  private readonly started: Service[] = [];

  /** Services left out (undefined) are those not configured, such as an adapter without its tokens. */
  constructor(
    services: readonly (Service | undefined)[],
    private readonly options: ServiceSetOptions,
  ) {
    this.services = services.filter((service) => service !== undefined);
    const names = this.services.map((service) => service.name);
    const repeated = names.find((name, index) => names.indexOf(name) !== index);
    if (repeated !== undefined) throw new Error(`Two services are named ${repeated}`);
  }

  /**
   * Starts each service once the ones before it have started. When one fails, those already started are stopped
   * in reverse order and the error is thrown again, naming the service.
   *
   * The event loop turns between two services, so once the HTTP server listens it answers /healthz at once, and
   * /readyz says which services are still starting (the `services` check), instead of holding both requests
   * until the last service has started.
   */
  async start(): Promise<void> {
    this.options.readiness?.addReadinessCheck('services', async () => this.startupReadiness());
    for (const service of this.services) {
      if (this.started.length > 0) await turnOfTheEventLoop();
      try {
        await service.start();
      } catch (error) {
        await this.stop();
        throw new ServiceStartError(service.name, error);
      }
      this.started.push(service);
      const readiness = service.readiness?.bind(service);
      if (readiness) this.options.readiness?.addReadinessCheck(service.name, readiness);
    }
  }

  private startupReadiness(): ServiceReadiness {
    const waiting = this.services.filter((service) => !this.started.includes(service));
    return waiting.length === 0
      ? { ok: true, detail: `all ${this.services.length} started` }
      : { ok: false, detail: `starting: ${waiting.map((service) => service.name).join(', ')}` };
  }

  /** The started services' stops, last started first: for the graceful shutdown, which times each one. */
  stopSteps(): ShutdownStep[] {
    return this.started
      .toReversed()
      .map((service) => ({ name: service.name, stop: () => this.stopOne(service) }));
  }

  /** Stops every started service, last started first; one that fails to stop is logged, and the rest still stop. */
  async stop(): Promise<void> {
    for (const step of this.stopSteps()) {
      await step
        .stop()
        .catch((error) =>
          this.options.logger.error(
            { step: step.name, err: errorMessage(error) },
            `could not stop ${step.name}`,
          ),
        );
    }
  }

  private async stopOne(service: Service): Promise<void> {
    const index = this.started.indexOf(service);
    if (index === -1) return;
    this.started.splice(index, 1);
    await service.stop();
  }
}

/** Lets pending I/O (a request already accepted) run; node:timers' own, so a test's fake timers cannot hold it. */
function turnOfTheEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
