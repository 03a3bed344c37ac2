// ServiceSet: start in order, stop in reverse, roll back a failed start, keep stopping past a failed stop, and
// report readiness on the HTTP server's /readyz.
import { afterEach, describe, expect, it } from 'vitest';
import type { Logger } from '../../agent/logger.js';
import { silentLogger } from '../../agent/logger.js';
import { HttpServer } from '../../bot/http/http-server.js';
import type { Service, ServiceReadiness } from '../../bot/services/service.js';
import { ServiceSet, ServiceStartError } from '../../bot/services/service-set.js';

interface Logged {
  fields: object;
  message: string | undefined;
}

function errorLogger(errors: Logged[]): Logger {
  const logger: Logger = {
    ...silentLogger,
    error: (fields, message) => void errors.push({ fields, message }),
    child: () => logger,
  };
  return logger;
}

/** A service that records its starts and stops in `events`, and fails where told to. */
function recorded(
  name: string,
  events: string[],
  options: { failStart?: Error; failStop?: Error; readiness?: ServiceReadiness } = {},
): Service {
  const { readiness } = options;
  return {
    name,
    async start() {
      events.push(`start ${name}`);
      if (options.failStart) throw options.failStart;
    },
    async stop() {
      events.push(`stop ${name}`);
      if (options.failStop) throw options.failStop;
    },
    ...(readiness ? { readiness: async () => readiness } : {}),
  };
}

let http: HttpServer | undefined;
afterEach(async () => {
  await http?.close();
  http = undefined;
});

describe('ServiceSet', () => {
  it('starts the services in order and stops them in reverse, leaving out those not configured', async () => {
    const events: string[] = [];
    const services = new ServiceSet(
      [recorded('store', events), undefined, recorded('kernel', events), recorded('http', events)],
      { logger: silentLogger },
    );
    await services.start();
    await services.stop();
    expect(events).toEqual([
      'start store',
      'start kernel',
      'start http',
      'stop http',
      'stop kernel',
      'stop store',
    ]);
  });

  it('stops each service once, however often it is asked', async () => {
    const events: string[] = [];
    const services = new ServiceSet([recorded('store', events), recorded('http', events)], {
      logger: silentLogger,
    });
    await services.start();
    for (const step of services.stopSteps()) await step.stop();
    await services.stop();
    expect(events).toEqual(['start store', 'start http', 'stop http', 'stop store']);
  });

  it('on a failed start, stops the services already started in reverse and names the one that failed', async () => {
    const events: string[] = [];
    const cause = new Error('invalid_auth');
    const services = new ServiceSet(
      [
        recorded('store', events),
        recorded('kernel', events),
        recorded('slack', events, { failStart: cause }),
        recorded('http', events),
      ],
      { logger: silentLogger },
    );
    const error = await services.start().catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(ServiceStartError);
    expect(error).toMatchObject({ service: 'slack', message: 'slack did not start: invalid_auth', cause });
    expect(events).toEqual(['start store', 'start kernel', 'start slack', 'stop kernel', 'stop store']);
    await services.stop();
    expect(events).toHaveLength(5);
  });

  it('logs a service that fails to stop and still stops the others', async () => {
    const events: string[] = [];
    const errors: Logged[] = [];
    const services = new ServiceSet(
      [
        recorded('store', events),
        recorded('kernel', events, { failStop: new Error('stuck') }),
        recorded('http', events),
      ],
      { logger: errorLogger(errors) },
    );
    await services.start();
    await services.stop();
    expect(events.slice(3)).toEqual(['stop http', 'stop kernel', 'stop store']);
    expect(errors).toEqual([{ fields: { step: 'kernel', err: 'stuck' }, message: 'could not stop kernel' }]);
  });

  it('rolls back past a service that fails to stop during a failed start', async () => {
    const events: string[] = [];
    const errors: Logged[] = [];
    const services = new ServiceSet(
      [
        recorded('store', events),
        recorded('kernel', events, { failStop: new Error('stuck') }),
        recorded('http', events, { failStart: new Error('EADDRINUSE') }),
      ],
      { logger: errorLogger(errors) },
    );
    await expect(services.start()).rejects.toThrow('http did not start: EADDRINUSE');
    expect(events).toEqual(['start store', 'start kernel', 'start http', 'stop kernel', 'stop store']);
    expect(errors).toHaveLength(1);
  });

  it('refuses two services with one name', () => {
    const events: string[] = [];
    expect(
      () => new ServiceSet([recorded('store', events), recorded('store', events)], { logger: silentLogger }),
    ).toThrow('Two services are named store');
  });

  it("reports each started service's readiness on /readyz, under its name", async () => {
    const events: string[] = [];
    http = new HttpServer({ host: '127.0.0.1', port: 0, logger: silentLogger });
    const services = new ServiceSet(
      [
        recorded('store', events, { readiness: { ok: true, detail: 'sqlite test.sqlite' } }),
        recorded('kernel', events),
        recorded('slack', events, { readiness: { ok: false, detail: 'reconnecting' } }),
      ],
      { logger: silentLogger, readiness: http },
    );
    await services.start();
    const response = await fetch(`${await http.listen()}/readyz`);
    expect(response.status).toBe(503);
    expect(await response.json()).toEqual({
      ready: false,
      checks: {
        services: { ok: true, detail: 'all 3 started' },
        store: { ok: true, detail: 'sqlite test.sqlite' },
        slack: { ok: false, detail: 'reconnecting' },
      },
    });
  });

  it('answers /healthz while later services start, and /readyz names those still starting', async () => {
    const events: string[] = [];
    http = new HttpServer({ host: '127.0.0.1', port: 0, logger: silentLogger });
    const server = http;
    let url = '';
    let finishPatrols: () => void = () => {};
    const patrolsStarted = new Promise<void>((resolve) => {
      finishPatrols = resolve;
    });
    const listening: Service = {
      name: 'http',
      start: async () => {
        url = await server.listen();
      },
      stop: () => server.close(),
    };
    const patrols: Service = { ...recorded('patrols', events), start: () => patrolsStarted };
    const services = new ServiceSet([recorded('store', events), listening, patrols], {
      logger: silentLogger,
      readiness: server,
    });
    const starting = services.start();
    await expect.poll(() => url).not.toBe('');

    expect(await (await fetch(`${url}/healthz`)).json()).toEqual({ ok: true });
    const early = await fetch(`${url}/readyz`);
    expect(early.status).toBe(503);
    expect(await early.json()).toEqual({
      ready: false,
      checks: { services: { ok: false, detail: 'starting: patrols' } },
    });

    finishPatrols();
    await starting;
    const late = await fetch(`${url}/readyz`);
    expect(late.status).toBe(200);
    expect(await late.json()).toEqual({
      ready: true,
      checks: { services: { ok: true, detail: 'all 3 started' } },
    });
    await services.stop();
  });

  it('reports no readiness for a service that did not start', async () => {
    const events: string[] = [];
    const checks: string[] = [];
    const services = new ServiceSet(
      [
        recorded('store', events, { readiness: { ok: true, detail: 'memory' } }),
        recorded('slack', events, { failStart: new Error('no token'), readiness: { ok: true, detail: 'x' } }),
      ],
      { logger: silentLogger, readiness: { addReadinessCheck: (name) => void checks.push(name) } },
    );
    await expect(services.start()).rejects.toThrow(ServiceStartError);
    expect(checks).toEqual(['services', 'store']);
  });
});
