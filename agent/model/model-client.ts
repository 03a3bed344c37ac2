// The model client the kernel calls: one chat completion over the openai SDK, behind a circuit breaker.
import OpenAI from 'openai';
import type { Dispatcher } from 'undici';
import { CircuitBreaker, type CircuitBreakerOptionsInput } from '../circuit-breaker.js';
import { type Clock, systemClock } from '../clock.js';
import { formatDuration } from '../duration-text.js';
import { CallerError, ErrorCode, errorMessage, SystemError } from '../errors.js';
import { type Logger, silentLogger } from '../logger.js';
import { modelEndpoint } from './model-endpoint.js';
import { classifyModelFailure } from './model-errors.js';
import { createModelDispatcher, createModelFetch, ModelTimeoutError } from './model-fetch.js';
import type { ModelOutputCaps } from './model-output-caps.js';
import type { ModelClient, ModelOutage, ModelReply, ModelRequest } from './model-port.js';
import { type ModelProxy, modelProxyFor, type ProxyEnvironment } from './model-proxy.js';
import {
  answeredProblem,
  type ModelRetry,
  retryAfterMs,
  sdkRetriesResponse,
  unansweredProblem,
} from './model-retry.js';
import { readCompletion, toOpenAIMessages, toOpenAITools } from './openai-mapping.js';

export type { ModelClient, ModelReply, ModelRequest, ModelToolSpec } from './model-port.js';

export interface OpenAIModelClient extends ModelClient {
  readonly baseURL: string;
  /** The HTTP proxy calls go through (HTTPS_PROXY, HTTP_PROXY, NO_PROXY), for start-up and config check to say. */
  readonly proxy: ModelProxy | undefined;
  /** The keep-alive connections (and proxy) calls use, for other requests to the same server (the health probe). */
  readonly dispatcher: Dispatcher;
  /** In the Store it was given (the bot's, see compose.ts), so shared by every process on it; else this client's own. */
  readonly breaker: CircuitBreaker;
}

export interface OpenAIModelClientOptions {
  apiKey?: string;
  baseURL?: string;
  model: string;
  /** Per HTTP attempt, from sending the request to the last byte of the answer. */
  timeoutMs: number;
  /** Retries by the SDK on 408, 409, 429, 5xx, connection errors and timeouts. */
  maxRetries: number;
  clock?: Clock;
  /** A breaker kept in the Store (the bot's), or options for one of this client's own (tests). */
  breaker?: CircuitBreakerOptionsInput | CircuitBreaker;
  logger?: Logger;
  temperature?: number;
  /** HTTPS_PROXY, HTTP_PROXY and NO_PROXY (either case); process.env by default. */
  proxyEnv?: ProxyEnvironment;
  /** Certificate authorities to trust in place of Node's (tests); NODE_EXTRA_CA_CERTS works without it. */
  ca?: string | Buffer;
  /** Another client's connections and proxy, to the same server (the summary model's client); else its own. */
  dispatcher?: Dispatcher;
  /** The output cap of each kind of call (`model.max_output_tokens`); a call that names no purpose has none. */
  maxOutputTokens?: ModelOutputCaps;
  /** The request field the cap is sent in (`model.output_cap_field`); `max_tokens` by default. */
  outputCapField?: OutputCapField;
  /** Told of every 429 answer, retries included, with the wait it asks for (the rate limiter slows down). */
  onThrottled?: (retryAfterMs: number | undefined) => void;
}

export type OutputCapField = 'max_tokens' | 'max_completion_tokens';

const ATTEMPTS = Symbol('opsbot.modelAttempts');
interface AttemptCounter {
  count: number;
  /** The caller's signal: a call it cancels is not retried, so nothing is announced. */
  signal?: AbortSignal;
  onRetry?: (retry: ModelRetry) => void;
}
type CountedInit = RequestInit & { [ATTEMPTS]?: AttemptCounter };

/** Placeholder for servers without auth (Ollama, vLLM): the SDK refuses to start without a key. */
const NO_KEY_NEEDED = 'not-needed';

export function modelConfigured(env: { OPENAI_API_KEY?: string; OPENAI_BASE_URL?: string }): boolean {
  return Boolean(env.OPENAI_API_KEY?.trim() || env.OPENAI_BASE_URL?.trim());
}

export function createOpenAIModelClient(options: OpenAIModelClientOptions): OpenAIModelClient {
  const clock = options.clock ?? systemClock;
  const logger = (options.logger ?? silentLogger).child({ component: 'model', model: options.model });
  const breaker =
    options.breaker instanceof CircuitBreaker
      ? options.breaker
      : new CircuitBreaker({
          name: 'model',
          ...(options.breaker ? { options: options.breaker } : {}),
          clock,
        });
  // Counts the SDK's HTTP attempts per call, retries included. The counter rides along in fetch's init under
  // a symbol: the SDK spreads per-request fetchOptions into init, and a symbol never reaches the wire.
  const proxyEnv = options.proxyEnv ?? process.env;
  let dispatcher: Dispatcher;
  try {
    dispatcher =
      options.dispatcher ??
      createModelDispatcher(proxyEnv, {
        connectTimeoutMs: options.timeoutMs,
        ...(options.ca ? { ca: options.ca } : {}),
      });
  } catch (error) {
    throw new CallerError(
      ErrorCode.InvalidSettings,
      `The model client could not start: ${errorMessage(error)}. Check HTTPS_PROXY, HTTP_PROXY and NO_PROXY: a proxy is a URL such as http://proxy.internal:3128.`,
      { cause: error },
    );
  }
  const baseFetch = createModelFetch({ dispatcher, timeoutMs: options.timeoutMs });
  // Set from the SDK's own once it is built (without user-info); the fetch below runs only after that.
  let baseURL = '';
  let proxy: ModelProxy | undefined;
  const countingFetch: typeof fetch = (input, init) => {
    const counter = (init as CountedInit | undefined)?.[ATTEMPTS];
    if (!counter) return baseFetch(input, init);
    const attempt = ++counter.count;
    const { [ATTEMPTS]: _omitted, ...plain } = init as CountedInit;
    // Said as soon as an attempt fails and the SDK will try again, so the wait before the retry is explained.
    const announce = (problem: string) => {
      if (attempt > options.maxRetries || counter.signal?.aborted) return;
      counter.onRetry?.({ attempt: attempt + 1, attempts: options.maxRetries + 1, problem });
    };
    return baseFetch(input, plain).then(
      (response) => {
        if (response.status === 429) options.onThrottled?.(retryAfterMs(response.headers, clock.now()));
        if (!response.ok && sdkRetriesResponse(response)) announce(answeredProblem(response.status));
        return response;
      },
      (error: unknown) => {
        // The SDK aborts its own signal when an attempt times out; the fetch has its own deadline too.
        const timedOut = plain.signal?.aborted === true || error instanceof ModelTimeoutError;
        announce(unansweredProblem(timedOut, options.timeoutMs, baseURL, proxy?.url));
        throw error;
      },
    );
  };

  let sdk: OpenAI;
  try {
    sdk = new OpenAI({
      apiKey: options.apiKey || (options.baseURL ? NO_KEY_NEEDED : undefined),
      ...modelEndpoint(options.baseURL),
      timeout: options.timeoutMs,
      maxRetries: options.maxRetries,
      fetch: countingFetch,
    });
  } catch (error) {
    throw new CallerError(
      ErrorCode.InvalidSettings,
      `The model client could not start: ${errorMessage(error)} Set OPENAI_API_KEY, or OPENAI_BASE_URL for a local server.`,
      { cause: error },
    );
  }
  baseURL = sdk.baseURL.replace(/\/+$/, '');
  proxy = modelProxyFor(baseURL, proxyEnv);
  let lastOutage = '';
  /** When this streak of unanswered calls began; cleared by any answer. */
  let outageSince: number | undefined;
  const answered = () => {
    outageSince = undefined;
  };
  function outage(): ModelOutage | undefined {
    if (outageSince === undefined && breaker.state() !== 'open') return undefined;
    return {
      where: `"${options.model}" at ${baseURL}`,
      since: outageSince ?? breaker.failingSince() ?? clock.now(),
      reason: lastOutage || 'it failed repeatedly, so calls are held back for now',
    };
  }

  function refuseFast(): SystemError {
    const reopensAt = breaker.reopensAt();
    const when =
      reopensAt === undefined
        ? 'it is being re-checked right now; try again in a moment'
        : `it will be tried again in ${formatDuration(reopensAt - clock.now())} (at ${new Date(reopensAt).toISOString()})`;
    const last = lastOutage ? ` The last error was: ${lastOutage}.` : '';
    return new SystemError(
      ErrorCode.ModelUnavailable,
      `The model "${options.model}" at ${baseURL} is unavailable after repeated failures, so it is not being called; ${when}.${last}`,
    );
  }

  async function complete(request: ModelRequest): Promise<ModelReply> {
    if (!(await breaker.canPass())) throw refuseFast();
    const counter: AttemptCounter = {
      count: 0,
      ...(request.signal ? { signal: request.signal } : {}),
      ...(request.onRetry ? { onRetry: request.onRetry } : {}),
    };
    const started = performance.now();
    const cap = request.purpose === undefined ? undefined : options.maxOutputTokens?.[request.purpose];
    let body: unknown;
    try {
      body = await sdk.chat.completions.create(
        {
          model: options.model,
          messages: toOpenAIMessages(request.messages),
          ...(request.tools.length > 0 ? { tools: toOpenAITools(request.tools) } : {}),
          ...(options.temperature === undefined ? {} : { temperature: options.temperature }),
          ...(cap === undefined ? {} : { [options.outputCapField ?? 'max_tokens']: cap }),
        },
        { signal: request.signal, fetchOptions: { [ATTEMPTS]: counter } as object },
      );
    } catch (error) {
      const failure = classifyModelFailure(error, {
        model: options.model,
        baseURL,
        attempts: Math.max(counter.count, 1),
        timeoutMs: options.timeoutMs,
        ...(proxy ? { proxy } : {}),
      });
      if (failure.kind === 'aborted') {
        await breaker.recordCancelled();
        throw request.signal?.reason ?? error;
      }
      if (failure.kind === 'outage') {
        lastOutage = failure.reason;
        outageSince ??= clock.now();
        const before = breaker.state();
        await breaker.recordFailure();
        if (before !== 'open' && breaker.state() === 'open') {
          // The first opening is news; a failed re-check of an open circuit is expected during an outage.
          const level = before === 'closed' ? 'warn' : 'info';
          logger[level]({ reopensAt: breaker.reopensAt(), reason: failure.reason }, 'model circuit open');
        }
      } else {
        // The server answered, so it is reachable: a refused request is not an outage.
        answered();
        await breaker.recordSuccess();
      }
      logger.warn({ attempts: counter.count, error: failure.error.message }, 'model call failed');
      throw failure.error;
    }

    answered();
    await breaker.recordSuccess();
    const checked = readCompletion(body);
    if (!checked.ok) {
      throw new SystemError(
        ErrorCode.ModelFailed,
        `The model "${options.model}" at ${baseURL} sent a reply that could not be used: ${checked.problem}.`,
      );
    }
    logger.debug(
      { attempts: counter.count, ms: Math.round(performance.now() - started), usage: checked.reply.usage },
      'model call done',
    );
    return checked.reply;
  }

  return { model: options.model, baseURL, proxy, dispatcher, breaker, complete, outage };
}
