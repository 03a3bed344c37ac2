// The bot's model clients: the main model, an optional summary model on the same server, and one rate limit for
// both, with a health probe each and the line that says which model does what.
import { CircuitBreaker } from '../agent/circuit-breaker.js';
import { type Clock, systemClock } from '../agent/clock.js';
import type { Logger } from '../agent/logger.js';
import { createOpenAIModelClient, type OpenAIModelClient } from '../agent/model/model-client.js';
import type { ModelClient } from '../agent/model/model-port.js';
import { CachedModelProbe, probeModel } from '../agent/model/model-probe.js';
import { ModelRateLimiter, rateLimitedModelClient } from '../agent/model/model-rate-limit.js';

import type { Store } from '../agent/store/store.js';
import { maskUrlUserinfo } from '../agent/url-userinfo.js';
import type { Environment } from './config/environment.js';
import type { Settings } from './config/settings-schema.js';
import { meteredModelClient } from './metrics/metered-model-client.js';
import type { OpsbotMetrics } from './metrics/opsbot-metrics.js';

/** Which model writes the summaries, and which setting said so. */
export interface SummaryModelChoice {
  model: string;
  source: 'OPENAI_SUMMARY_MODEL' | 'model.summary';
  /** The settings key's model, when the environment variable overrides it. */
  overrides?: string;
}

export interface ModelClients {
  main: OpenAIModelClient;
  /** The summary model's own client; undefined when the main model writes the summaries. */
  summary: OpenAIModelClient | undefined;
  summaryChoice: SummaryModelChoice | undefined;
  /** What the kernel calls: rate-limited, and metered when metrics are on. */
  forKernel: { model: ModelClient; summaryModel?: ModelClient };
  limiter: ModelRateLimiter;
  health: CachedModelProbe;
  summaryHealth: CachedModelProbe | undefined;
  /** "gpt-4o-mini at https://…/v1; summaries: gpt-4.1-nano (from OPENAI_SUMMARY_MODEL)". */
  describe(): string;
}

export interface ModelClientsOptions {
  environment: Environment;
  settings: Settings;
  store: Store;
  logger: Logger;
  clock?: Clock;
  metrics?: OpsbotMetrics;
}

/** How long a model health answer is reused, and how long one may take (under /readyz's 3 s). */
const MODEL_HEALTH_TTL_MS = 30_000;
const MODEL_HEALTH_TIMEOUT_MS = 2_500;

/**
 * The environment wins, as it does for the main model (`OPENAI_MODEL`): a deployment names its models next to
 * the server they run on, while opsbot.yaml is often shared by several deployments.
 */
export function summaryModelChoice(
  environment: Pick<Environment, 'OPENAI_SUMMARY_MODEL'>,
  settings: Pick<Settings['model'], 'summary'>,
): SummaryModelChoice | undefined {
  const fromEnvironment = environment.OPENAI_SUMMARY_MODEL?.trim();
  if (fromEnvironment) {
    const overridden = settings.summary !== undefined && settings.summary !== fromEnvironment;
    return {
      model: fromEnvironment,
      source: 'OPENAI_SUMMARY_MODEL',
      ...(overridden ? { overrides: settings.summary } : {}),
    };
  }
  return settings.summary === undefined ? undefined : { model: settings.summary, source: 'model.summary' };
}

export function createModelClients(options: ModelClientsOptions): ModelClients {
  const { environment, settings, logger, metrics } = options;
  const limits = settings.limits;
  const limiter = new ModelRateLimiter({
    requestsPerSecond: settings.model.rate_limit.requests_per_second,
    burst: settings.model.rate_limit.burst,
    maxInFlight: settings.model.rate_limit.max_in_flight,
    ...(options.clock ? { clock: options.clock } : {}),
  });
  const clientFor = (model: string, dispatcher?: OpenAIModelClient['dispatcher']) =>
    createOpenAIModelClient({
      ...(environment.OPENAI_API_KEY ? { apiKey: environment.OPENAI_API_KEY } : {}),
      ...(environment.OPENAI_BASE_URL ? { baseURL: environment.OPENAI_BASE_URL } : {}),
      model,
      timeoutMs: limits.model_timeout,
      maxRetries: limits.model_retries,
      // One breaker per model: a summary model that is down never stops the tool loop.
      breaker: modelBreaker(environment, model, options.store, logger, options.clock),
      logger,
      ...(settings.model.temperature === undefined ? {} : { temperature: settings.model.temperature }),
      ...(options.clock ? { clock: options.clock } : {}),
      proxyEnv: environment,
      maxOutputTokens: settings.model.max_output_tokens,
      outputCapField: settings.model.output_cap_field,
      onThrottled: (retryAfterMs) => limiter.throttled(retryAfterMs),
      ...(dispatcher ? { dispatcher } : {}),
    });
  const main = clientFor(environment.OPENAI_MODEL);
  const summaryChoice = summaryModelChoice(environment, settings.model);
  const summary =
    summaryChoice && summaryChoice.model !== environment.OPENAI_MODEL
      ? clientFor(summaryChoice.model, main.dispatcher)
      : undefined;
  const forKernel = (client: ModelClient) =>
    rateLimitedModelClient(
      metrics ? meteredModelClient(client, metrics, options.clock ?? systemClock) : client,
      limiter,
    );
  const probeFor = (client: OpenAIModelClient) =>
    new CachedModelProbe({
      ttlMs: MODEL_HEALTH_TTL_MS,
      ...(options.clock ? { clock: options.clock } : {}),
      probe: () =>
        probeModel({
          ...(environment.OPENAI_API_KEY ? { apiKey: environment.OPENAI_API_KEY } : {}),
          ...(environment.OPENAI_BASE_URL ? { baseURL: environment.OPENAI_BASE_URL } : {}),
          model: client.model,
          timeoutMs: Math.min(limits.model_timeout, MODEL_HEALTH_TIMEOUT_MS),
          // Through the model's own connections and proxy, so the answer is the model client's.
          dispatcher: client.dispatcher,
          ...(client.proxy ? { proxy: client.proxy } : {}),
        }),
    });
  return {
    main,
    summary,
    summaryChoice,
    forKernel: { model: forKernel(main), ...(summary ? { summaryModel: forKernel(summary) } : {}) },
    limiter,
    health: probeFor(main),
    summaryHealth: summary ? probeFor(summary) : undefined,
    describe: () =>
      `${main.model} at ${maskUrlUserinfo(main.baseURL)}${main.proxy ? ` (through proxy ${main.proxy.url})` : ''}; ` +
      `summaries: ${describeSummaries(summaryChoice)}`,
  };
}

function describeSummaries(choice: SummaryModelChoice | undefined): string {
  if (!choice) return 'the main model';
  const over = choice.overrides ? `, over model.summary: ${choice.overrides}` : '';
  return `${choice.model} (from ${choice.source}${over})`;
}

/**
 * A model's breaker, kept in the Store: a model found down stays refused after a restart, and by every process on
 * the same Store, until its open time has run out. One per endpoint and model, so a changed one starts closed.
 */
function modelBreaker(
  environment: Environment,
  model: string,
  store: Store,
  logger: Logger,
  clock: Clock | undefined,
) {
  const endpoint = maskUrlUserinfo(environment.OPENAI_BASE_URL ?? 'https://api.openai.com/v1');
  return new CircuitBreaker({
    name: `model:${model}@${endpoint}`,
    store,
    logger,
    ...(clock ? { clock } : {}),
  });
}
