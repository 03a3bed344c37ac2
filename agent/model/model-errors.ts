// Turns what the openai SDK throws into errors a person in chat can act on, and tells outages from rejections.
import { STATUS_CODES } from 'node:http';
import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import { formatDuration } from '../duration-text.js';
import { ErrorCode, errorMessage, SystemError } from '../errors.js';
import { formatBytes, ModelResponseTooLargeError } from './model-fetch.js';
import type { ModelProxy } from './model-proxy.js';
import { preview } from './openai-mapping.js';

export interface FailureContext {
  model: string;
  baseURL: string;
  /** HTTP attempts made for this call, retries included. */
  attempts: number;
  timeoutMs: number;
  /** The proxy the call went through, named when the connection fails: it is where to look. */
  proxy?: ModelProxy;
}

export type ModelFailure =
  /** The caller aborted: nothing was learned about the server. */
  | { kind: 'aborted' }
  /** The server is down, overloaded or unreachable: counts towards opening the breaker. */
  | { kind: 'outage'; reason: string; error: SystemError }
  /** The server answered but refused or garbled this request: retrying as is will not help. */
  | { kind: 'rejected'; error: SystemError };

/** TLS refusals of a certificate whose issuer Node does not know: a company's own CA, most often. */
const UNTRUSTED_ISSUER_CODES: ReadonlySet<string> = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_GET_ISSUER_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
]);
const UNTRUSTED_ISSUER_ADVICE =
  "; its certificate's issuer is not trusted: if a private CA signed it, set NODE_EXTRA_CA_CERTS to that CA's PEM file";

/** Statuses the SDK retries (see PROTOCOLS.md); after its retries they mean the server is not serving. */
function isOutageStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

export function classifyModelFailure(error: unknown, context: FailureContext): ModelFailure {
  const who = `The model "${context.model}" at ${context.baseURL}`;
  const tries = context.attempts > 1 ? ` after ${context.attempts} attempts` : '';

  if (error instanceof APIUserAbortError) return { kind: 'aborted' };
  const through = context.proxy ? ` through the proxy ${proxyName(context.proxy)}` : '';
  if (error instanceof APIConnectionTimeoutError) {
    const each = context.attempts > 1 ? ` on each of ${context.attempts} attempts` : '';
    return outage(who, `timed out after ${formatDuration(context.timeoutMs)}${each}${through}`, error);
  }
  if (error instanceof APIConnectionError) {
    const code = findErrorCode(error);
    const refused = context.proxy ? tunnelRefusal(error, context.proxy) : undefined;
    if (refused) return outage(who, `${refused}${tries}`, error);
    const untrusted = code && UNTRUSTED_ISSUER_CODES.has(code) ? UNTRUSTED_ISSUER_ADVICE : '';
    return outage(who, `could not connect${through}${code ? ` (${code})` : ''}${tries}${untrusted}`, error);
  }
  const tooLarge = findCause(error, ModelResponseTooLargeError);
  if (tooLarge) {
    // The same answer would come again: not an outage, and not worth a retry.
    const message =
      `${who} sent an answer larger than ${formatBytes(tooLarge.limitBytes)}, the most opsbot reads from a model ` +
      '(MAX_MODEL_RESPONSE_BYTES), so it was not used. A chat completion is far smaller: check that ' +
      "OPENAI_BASE_URL is the server's OpenAI-compatible API.";
    return { kind: 'rejected', error: new SystemError(ErrorCode.ModelFailed, message, { cause: error }) };
  }
  if (error instanceof APIError && typeof error.status === 'number') {
    const status = `${error.status} ${STATUS_CODES[error.status] ?? 'error'}`;
    const said = serverMessage(error);
    const saidText = said ? ` The server said: ${preview(said)}.` : '';
    if (isOutageStatus(error.status)) return outage(who, `${status}${tries}`, error, saidText);
    const redirect = redirectTarget(error);
    if (redirect !== undefined) {
      // Not followed: a redirected POST may arrive as a GET, so the address is the setting to change.
      const message = `${who} answered ${status}, sending the request to ${redirect}. Set OPENAI_BASE_URL to the address the server names.`;
      return { kind: 'rejected', error: new SystemError(ErrorCode.ModelFailed, message, { cause: error }) };
    }
    return { kind: 'rejected', error: rejection(error.status, status, who, saidText, error) };
  }
  if (error instanceof SyntaxError) {
    return {
      kind: 'rejected',
      error: new SystemError(
        ErrorCode.ModelFailed,
        `${who} sent a reply that is not valid JSON (${error.message}).`,
        { cause: error },
      ),
    };
  }
  return {
    kind: 'rejected',
    error: new SystemError(ErrorCode.ModelFailed, `${who} failed: ${errorMessage(error)}`, { cause: error }),
  };
}

function outage(who: string, reason: string, cause: unknown, saidText = ''): ModelFailure {
  return {
    kind: 'outage',
    reason,
    error: new SystemError(ErrorCode.ModelUnavailable, `${who} is unavailable: ${reason}.${saidText}`, {
      cause,
    }),
  };
}

function rejection(code: number, status: string, who: string, saidText: string, cause: unknown): SystemError {
  const message =
    code === 401
      ? `${who} rejected the credentials (${status}). Check OPENAI_API_KEY, or the user and password in OPENAI_BASE_URL.`
      : code === 403
        ? `${who} refused access (${status}); the API key may not be allowed to use this model.`
        : code === 404
          ? `${who} was not found (${status}). Check the model name and OPENAI_BASE_URL.`
          : `${who} rejected the request (${status}).`;
  return new SystemError(ErrorCode.ModelFailed, `${message}${saidText}`, { cause });
}

function redirectTarget(error: APIError): string | undefined {
  if (error.status === undefined || error.status < 300 || error.status > 399) return undefined;
  return error.headers?.get('location') ?? 'another address';
}

function serverMessage(error: APIError): string | undefined {
  const body = error.error as { message?: unknown } | undefined;
  return typeof body?.message === 'string' && body.message.trim() !== '' ? body.message : undefined;
}

function proxyName(proxy: ModelProxy): string {
  return `${proxy.url} (from ${proxy.variable})`;
}

/** A proxy that answered its CONNECT with something other than 200 (undici says only "Proxy response (403)"). */
export function tunnelRefusal(error: unknown, proxy: ModelProxy): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    const status = /Proxy response \((\d{3})\)/.exec(current.message)?.[1];
    if (status) {
      const code = Number(status);
      const login =
        code === 407
          ? `; give its user and password in ${proxy.variable} (http://user:password@host:port)`
          : '';
      return `the proxy ${proxyName(proxy)} refused to connect to it (CONNECT answered ${code} ${STATUS_CODES[code] ?? 'error'})${login}`;
    }
    current = current.cause;
  }
  return undefined;
}

function findCause<T extends Error>(error: unknown, type: new (...args: never[]) => T): T | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    if (current instanceof type) return current;
    current = current.cause;
  }
  return undefined;
}

/** undici hides the useful code (ECONNREFUSED, ENOTFOUND) a few causes deep. */
export function findErrorCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current instanceof Object; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && code !== '') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}
