// The model client's HTTP: undici's fetch through one keep-alive EnvHttpProxyAgent (HTTPS_PROXY, HTTP_PROXY,
// NO_PROXY). Each call reads the whole answer within its own deadline and under a size cap, then hands the openai
// SDK a plain Response of those bytes: the SDK's timeout stops at the headers, this one covers the body too.
import { type Dispatcher, EnvHttpProxyAgent, fetch as undiciFetch } from 'undici';
import { formatDuration } from '../duration-text.js';
import { type ProxyEnvironment, proxySettings } from './model-proxy.js';

/** The most a model answer may be: a long chat completion is tens of KiB, so this is room, not a limit. */
export const MAX_MODEL_RESPONSE_BYTES = 8 * 1024 * 1024;

export interface ModelDispatcherOptions {
  /** Covers connecting (a proxy's tunnel included); the rest of the call is under the fetch's own deadline. */
  connectTimeoutMs: number;
  /**
   * Certificate authorities to trust in place of Node's (tests). Without it Node's list is used, with
   * NODE_EXTRA_CA_CERTS added as for any TLS client in the process.
   */
  ca?: string | Buffer;
}

/** One keep-alive pool per origin, direct or through the proxy the variables name; made once per model client. */
export function createModelDispatcher(env: ProxyEnvironment, options: ModelDispatcherOptions): Dispatcher {
  const proxies = proxySettings(env);
  const tls = options.ca ? { ca: options.ca } : undefined;
  return new EnvHttpProxyAgent({
    // Given even when empty: EnvHttpProxyAgent would otherwise read process.env itself.
    httpProxy: proxies.http?.url ?? '',
    httpsProxy: proxies.https?.url ?? '',
    noProxy: proxies.noProxy,
    connectTimeout: options.connectTimeoutMs,
    // The fetch below owns the deadline for headers and body; undici's own would fail with other words.
    headersTimeout: 0,
    bodyTimeout: 0,
    // `connect` is for direct connections, `requestTls` for TLS inside a proxy's tunnel.
    ...(tls ? { connect: tls, requestTls: tls } : {}),
  });
}

export interface ModelFetchOptions {
  dispatcher: Dispatcher;
  /** One attempt, from sending to the last byte of the answer. */
  timeoutMs: number;
  maxResponseBytes?: number;
}

/** An answer over the cap, refused unread; the model client says so, naming the model and its address. */
export class ModelResponseTooLargeError extends Error {
  override readonly name = 'ModelResponseTooLargeError';
  constructor(readonly limitBytes: number) {
    super(`the answer is larger than ${formatBytes(limitBytes)}, the most opsbot reads from a model`);
  }
}

/**
 * This fetch's own deadline. Its message says "timed out", which is how the openai SDK tells a timeout from a
 * connection failure (client.js), so it is retried and reported as one.
 */
export class ModelTimeoutError extends Error {
  override readonly name = 'TimeoutError';
  constructor(readonly timeoutMs: number) {
    super(`timed out after ${formatDuration(timeoutMs)}, before the whole answer arrived`);
  }
}

/** Statuses whose response has no body, which the Response constructor refuses one for. */
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

export function createModelFetch(options: ModelFetchOptions): typeof fetch {
  const limit = options.maxResponseBytes ?? MAX_MODEL_RESPONSE_BYTES;
  return async (input, init) => {
    const callerSignal = init?.signal ?? undefined;
    if (callerSignal?.aborted) throw abortError(callerSignal);
    // A timer of its own, cleared when the call settles: AbortSignal.timeout inside AbortSignal.any can be
    // collected before it fires on Node 20.
    const deadline = new AbortController();
    const onAbort = () => deadline.abort(abortError(callerSignal));
    callerSignal?.addEventListener('abort', onAbort, { once: true });
    const timer = setTimeout(
      () => deadline.abort(new ModelTimeoutError(options.timeoutMs)),
      options.timeoutMs,
    );
    try {
      const url = input instanceof Request ? input.url : String(input);
      // What the SDK sets (client.js fetchWithTimeout); nothing else of a RequestInit means anything here.
      const answer = await undiciFetch(url, {
        method: init?.method ?? 'GET',
        headers: headerPairs(init?.headers),
        body: sendable(init?.body),
        signal: deadline.signal,
        dispatcher: options.dispatcher,
        // Not followed: a redirected POST may arrive as a GET; the model client names the address to set.
        redirect: 'manual',
      });
      return await readWhole(answer, limit);
    } catch (error) {
      // undici rejects with the abort reason already; a body read cut by the abort may not.
      throw deadline.signal.aborted ? deadline.signal.reason : error;
    } finally {
      clearTimeout(timer);
      callerSignal?.removeEventListener('abort', onAbort);
    }
  };
}

type UndiciResponse = Awaited<ReturnType<typeof undiciFetch>>;

/** As pairs, which undici's fetch takes whichever copy of the Headers class made them. */
function headerPairs(headers: RequestInit['headers']): [string, string][] {
  if (headers === undefined) return [];
  return [...(headers instanceof Headers ? headers : new Headers(headers))];
}

/** The SDK sends chat completions as JSON text; a form or a stream (file uploads) is not something opsbot sends. */
function sendable(body: RequestInit['body']): string | Uint8Array | null {
  if (body === undefined || body === null || typeof body === 'string' || body instanceof Uint8Array)
    return body ?? null;
  throw new TypeError('the model client sends text or bytes only, not a form or a stream');
}

async function readWhole(answer: UndiciResponse, limit: number): Promise<Response> {
  const headers = new Headers(answer.headers);
  // undici has decoded the body; the length and encoding were the encoded body's.
  if (headers.has('content-encoding')) {
    headers.delete('content-encoding');
    headers.delete('content-length');
  }
  const init = { status: answer.status, statusText: answer.statusText, headers };
  if (NULL_BODY_STATUSES.has(answer.status)) {
    await answer.body?.cancel();
    return new Response(null, init);
  }
  const bytes = await readCapped(answer, limit);
  if (bytes === undefined) {
    // Handed on as a body that fails when read, so the SDK raises it as it parses, without retrying: a retry
    // would fetch the same answer again.
    const tooLarge = new ModelResponseTooLargeError(limit);
    const refused = new ReadableStream<Uint8Array>({ start: (controller) => controller.error(tooLarge) });
    return new Response(refused, init);
  }
  return new Response(bytes, init);
}

/** The whole body, or undefined once it passes `limit` (the rest is not read, and the connection is dropped). */
async function readCapped(answer: UndiciResponse, limit: number): Promise<Uint8Array | undefined> {
  const declared = Number(answer.headers.get('content-length'));
  if (!answer.headers.has('content-encoding') && declared > limit) {
    await answer.body?.cancel();
    return undefined;
  }
  if (!answer.body) return new Uint8Array(0);
  const chunks: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of answer.body) {
    total += chunk.byteLength;
    // Leaving the loop cancels the stream.
    if (total > limit) return undefined;
    chunks.push(chunk);
  }
  return chunks.length === 1 && chunks[0] ? chunks[0] : Buffer.concat(chunks, total);
}

/** As fetch rejects: a DOMException named AbortError, which the SDK tells from a connection failure. */
function abortError(signal: AbortSignal | undefined): unknown {
  const reason: unknown = signal?.reason;
  return reason instanceof Error && reason.name === 'AbortError'
    ? reason
    : new DOMException('This operation was aborted', 'AbortError');
}

export function formatBytes(bytes: number): string {
  const mib = bytes / (1024 * 1024);
  return Number.isInteger(mib) ? `${mib} MiB` : `${bytes} bytes`;
}
