// Is the model there? Asks the server for its models (GET /models, served by OpenAI, Ollama and vLLM alike)
// and looks for the configured one; cached, so health checks never call the server on every request.
import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError } from 'openai';
import type { Dispatcher } from 'undici';
import { type Clock, systemClock } from '../clock.js';
import { formatDuration } from '../duration-text.js';
import { errorMessage } from '../errors.js';
import { modelEndpoint } from './model-endpoint.js';
import { findErrorCode, tunnelRefusal } from './model-errors.js';
import { createModelFetch } from './model-fetch.js';
import type { ModelProxy } from './model-proxy.js';

export type ModelHealth =
  /** The server answered and lists the model. */
  | { state: 'ready'; detail: string }
  /** The server answered but does not list the model: every run would fail. */
  | { state: 'missing'; detail: string }
  /** The server answered but does not list models at all: whether the model exists is not known. */
  | { state: 'unlisted'; detail: string }
  /** No answer, an error status, or a key it refused. */
  | { state: 'unreachable'; detail: string };

export interface ModelProbeOptions {
  apiKey?: string;
  baseURL?: string;
  model: string;
  /** One attempt, no retries: a health check says how things are now. */
  timeoutMs: number;
  /** The model client's connections (and proxy), so the probe reaches the server as the client does. */
  dispatcher: Dispatcher;
  /** The proxy that dispatcher goes through, named when the server cannot be reached. */
  proxy?: ModelProxy;
}

/** Placeholder for servers without auth (Ollama, vLLM), as the model client uses. */
const NO_KEY_NEEDED = 'not-needed';
/** Names shown when the model is missing, so a typo is easy to see. */
const MODELS_SHOWN = 10;

export async function probeModel(options: ModelProbeOptions): Promise<ModelHealth> {
  const sdk = new OpenAI({
    apiKey: options.apiKey || (options.baseURL ? NO_KEY_NEEDED : 'missing-key'),
    ...modelEndpoint(options.baseURL),
    timeout: options.timeoutMs,
    maxRetries: 0,
    fetch: createModelFetch({
      dispatcher: options.dispatcher,
      timeoutMs: options.timeoutMs,
    }),
  });
  const where = sdk.baseURL.replace(/\/+$/, '');
  const name = `"${options.model}" at ${where}`;
  let ids: string[];
  try {
    const page = await sdk.models.list();
    ids = page.data.map((model) => model.id);
  } catch (error) {
    return failed(error, name, where, options);
  }
  // Ollama lists "qwen2.5:7b-instruct" and also answers to a name without its ":latest" tag.
  if (ids.includes(options.model) || ids.includes(`${options.model}:latest`)) {
    return { state: 'ready', detail: `model ${name} is reachable and available` };
  }
  const shown = ids.slice(0, MODELS_SHOWN).join(', ');
  const more = ids.length > MODELS_SHOWN ? ` and ${ids.length - MODELS_SHOWN} more` : '';
  return {
    state: 'missing',
    detail:
      `the server at ${where} answers, but has no model "${options.model}"` +
      (ids.length > 0 ? `; it serves: ${shown}${more}` : '; it lists no models') +
      '. Set OPENAI_MODEL to one it serves (for Ollama, `ollama pull <model>` first).',
  };
}

function failed(error: unknown, name: string, where: string, options: ModelProbeOptions): ModelHealth {
  const through = options.proxy
    ? ` through the proxy ${options.proxy.url} (from ${options.proxy.variable})`
    : '';
  if (error instanceof APIError && error.status === 404) {
    return {
      state: 'unlisted',
      detail: `the server at ${where} answers, but does not list its models (GET /models: 404), so whether model ${name} exists is not known`,
    };
  }
  if (error instanceof APIError && (error.status === 401 || error.status === 403)) {
    return {
      state: 'unreachable',
      detail: `model ${name} refused the key (${error.status}); check OPENAI_API_KEY`,
    };
  }
  if (error instanceof APIConnectionTimeoutError) {
    return {
      state: 'unreachable',
      detail: `model ${name} did not answer within ${formatDuration(options.timeoutMs)}${through}`,
    };
  }
  if (error instanceof APIConnectionError) {
    const refused = options.proxy ? tunnelRefusal(error, options.proxy) : undefined;
    if (refused) return { state: 'unreachable', detail: `model ${name} is unreachable: ${refused}` };
    const code = findErrorCode(error) ?? innermostMessage(error);
    return {
      state: 'unreachable',
      detail: options.proxy
        ? `model ${name} is unreachable${through}${code ? ` (${code})` : ''}; is that proxy running, and does it let opsbot reach the server (or should NO_PROXY list it)?`
        : `model ${name} is unreachable${code ? ` (${code})` : ''}; is the server running, and is OPENAI_BASE_URL right?`,
    };
  }
  if (error instanceof APIError && typeof error.status === 'number') {
    return { state: 'unreachable', detail: `model ${name} answered GET /models with ${error.status}` };
  }
  return { state: 'unreachable', detail: `model ${name} could not be checked: ${errorMessage(error)}` };
}

/** fetch's own refusals ("bad port") carry no code, only a message at the end of the cause chain. */
function innermostMessage(error: unknown): string | undefined {
  let current = error;
  while (current instanceof Error && current.cause instanceof Error) current = current.cause;
  return current === error ? undefined : errorMessage(current);
}

export interface CachedModelProbeOptions {
  probe: () => Promise<ModelHealth>;
  /** How long an answer is reused. */
  ttlMs: number;
  clock?: Clock;
}

/**
 * The latest answer, refreshed at most once per ttl and in the background: only the first check waits for the
 * server; later ones get the last answer at once while a stale one is renewed. One probe is in flight at a
 * time, so /readyz and every browser opening the playground share it.
 */
export class CachedModelProbe {
  private last: { health: ModelHealth; at: number } | undefined;
  private inFlight: Promise<ModelHealth> | undefined;
  private readonly clock: Clock;

  constructor(private readonly options: CachedModelProbeOptions) {
    this.clock = options.clock ?? systemClock;
  }

  check(): Promise<ModelHealth> {
    const last = this.last;
    if (last && this.clock.now() - last.at < this.options.ttlMs) return Promise.resolve(last.health);
    const refreshing = this.refresh();
    return last ? Promise.resolve(last.health) : refreshing;
  }

  private refresh(): Promise<ModelHealth> {
    this.inFlight ??= this.options
      .probe()
      .catch(
        (error: unknown): ModelHealth => ({
          state: 'unreachable',
          detail: `the model could not be checked: ${errorMessage(error)}`,
        }),
      )
      .then((health) => {
        this.last = { health, at: this.clock.now() };
        return health;
      })
      .finally(() => {
        this.inFlight = undefined;
      });
    return this.inFlight;
  }
}
