// /metrics for `npm start`: the gauges read at each scrape (waits, queue, patrols), mounted on the one server.
import type { Clock } from '../../agent/clock.js';
import type { Logger } from '../../agent/logger.js';
import { PatrolRepository } from '../../scheduled/patrol-repository.js';
import { AlertGroupRepository } from '../alerts/alert-group-repository.js';
import type { Opsbot } from '../compose.js';
import type { HttpServer } from '../http/http-server.js';
import { METRICS_PATH, metricsEndpoint } from './metrics-endpoint.js';
import type { OpsbotMetrics } from './opsbot-metrics.js';
import {
  alertGauges,
  type GaugeCollector,
  modelRateGauges,
  patrolGauges,
  queueGauges,
  scrape,
  waitingGauges,
} from './scraped-gauges.js';

export interface ServeMetricsOptions {
  metrics: OpsbotMetrics;
  opsbot: Pick<Opsbot, 'kernel' | 'store' | 'settings' | 'environment' | 'modelRateLimiter'>;
  http: Pick<HttpServer, 'mount'>;
  logger: Logger;
  clock: Clock;
}

export function serveMetrics(options: ServeMetricsOptions): void {
  const { metrics, opsbot, logger } = options;
  const { settings, environment } = opsbot;
  const patrols = new PatrolRepository(opsbot.store, options.clock, settings.limits.patrol_history, logger);
  const collectors = [
    waitingGauges(opsbot.kernel.runs, metrics),
    queueGauges(opsbot.kernel.queue, metrics),
    patrolGauges(Object.keys(settings.patrols), patrols, metrics),
    modelRateGauges(opsbot.modelRateLimiter, metrics),
    alertGauges(new AlertGroupRepository(opsbot.store), metrics),
  ].filter((collector): collector is GaugeCollector => collector !== undefined);
  options.http.mount(
    METRICS_PATH,
    metricsEndpoint({
      scrape: coalesced(() => scrape(metrics, collectors, logger)),
      contentType: metrics.contentType,
      host: environment.HOST,
      token: environment.OPSBOT_PLAYGROUND_TOKEN,
    }),
  );
}

/**
 * Scrapes that arrive while one is being read share its answer: two Prometheus servers (or a retrying one) cost
 * one round of Store reads, and one scrape's gauge resets cannot show in another's output.
 */
function coalesced(read: () => Promise<string>): () => Promise<string> {
  let inFlight: Promise<string> | undefined;
  return () => {
    inFlight ??= read().finally(() => {
      inFlight = undefined;
    });
    return inFlight;
  };
}
