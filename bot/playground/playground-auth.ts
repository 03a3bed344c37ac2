// Who may use the playground: the token when one is set (the HTTP server refuses foreign Host names first).
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type Clock, systemClock } from '../../agent/clock.js';
import { sendJson } from '../http/http-json.js';
import {
  type Attempter,
  DEFAULT_FAILED_ATTEMPT_LIMITS,
  FailedAttemptLimiter,
  type FailedAttemptLimits,
} from './failed-attempts.js';
import { sourceAddressKey } from './source-address.js';

export const TOKEN_COOKIE = 'opsbot_playground';
export const TOKEN_HEADER = 'x-opsbot-token';
/** Names the browser tab (the page's client id) when the request is not an event stream with ?client=. */
export const CLIENT_HEADER = 'x-opsbot-client';

export interface PlaygroundGuardOptions {
  /** OPSBOT_PLAYGROUND_TOKEN; without it the playground relies on being reachable from this machine only. */
  token: string | undefined;
  clock?: Clock;
  /** How many wrong tokens are checked before 429; the defaults suit a person typing. */
  failedAttempts?: FailedAttemptLimits;
}

/** Returns true when the request may go on; otherwise it has already answered it. */
export type PlaygroundGuard = (request: IncomingMessage, response: ServerResponse) => boolean;

export function createPlaygroundGuard(options: PlaygroundGuardOptions): PlaygroundGuard {
  const { token } = options;
  // The cookie holds a value derived from the token, so the secret itself never sits in the browser's jar.
  const session =
    token === undefined ? undefined : createHmac('sha256', token).update('session').digest('hex');
  const attempts = new FailedAttemptLimiter(
    options.clock ?? systemClock,
    options.failedAttempts ?? DEFAULT_FAILED_ATTEMPT_LIMITS,
  );

  return (request, response) => {
    if (token === undefined || session === undefined) return true;
    // A signed-in browser keeps working while someone else is being throttled: its cookie is a 256-bit HMAC,
    // so checking it first tells a guesser nothing. A right token, too, gets past the total ceiling (but not
    // past its own client's or address's limit): a flood from many addresses must not lock the real user out.
    const cookie = cookieValue(request, TOKEN_COOKIE);
    if (cookie !== undefined && sameSecret(cookie, session)) return true;
    const url = new URL(request.url ?? '/', 'http://playground');
    const attempter = attempterOf(request, url);
    const waitMs = attempts.retryAfterMs(attempter);
    if (waitMs > 0) {
      tooManyAttempts(response, waitMs);
      return false;
    }
    const fromQuery = url.searchParams.get('token');
    if (fromQuery !== null && sameSecret(fromQuery, token)) {
      // The first visit carries ?token=; the cookie keeps it, and the address bar loses it.
      url.searchParams.delete('token');
      response.writeHead(303, {
        location: `${url.pathname}${url.search}`,
        'set-cookie': `${TOKEN_COOKIE}=${session}; Path=/; HttpOnly; SameSite=Strict`,
        'cache-control': 'no-store',
      });
      response.end();
      return false;
    }
    const header = headerToken(request);
    if (header !== undefined && sameSecret(header, token)) return true;
    // Only a credential that was tried and wrong counts; opening the page without one is not a guess.
    if (fromQuery !== null || header !== undefined || cookie !== undefined) {
      const floodWaitMs = attempts.recordFailure(attempter);
      if (floodWaitMs > 0) {
        tooManyAttempts(response, floodWaitMs);
        return false;
      }
    }
    refuse(request, response);
    return false;
  };
}

/**
 * Who is guessing: the page's client id (from ?client= or the header), else the peer address; and the peer
 * address (an IPv6 /64) itself, which rotating client ids cannot change. Forwarded-for headers are not read:
 * anyone can write them.
 */
function attempterOf(request: IncomingMessage, url: URL): Attempter {
  const address = sourceAddressKey(request.socket.remoteAddress);
  const named = url.searchParams.get('client') ?? request.headers[CLIENT_HEADER];
  const client =
    typeof named === 'string' && named !== '' ? `client:${named.slice(0, 128)}` : `address:${address}`;
  return { client, address };
}

function tooManyAttempts(response: ServerResponse, waitMs: number): void {
  const seconds = Math.max(1, Math.ceil(waitMs / 1000));
  sendJson(
    response,
    429,
    { error: `Too many wrong playground tokens; try again in ${seconds} s.` },
    { 'retry-after': String(seconds) },
  );
}

function refuse(request: IncomingMessage, response: ServerResponse): void {
  const message =
    'This playground needs its token: open it once as /?token=<the value of OPSBOT_PLAYGROUND_TOKEN>, ' +
    `or send the token in the ${TOKEN_HEADER} header.`;
  if ((request.headers.accept ?? '').includes('text/html')) {
    response.writeHead(401, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' });
    response.end(`${message}\n`);
    return;
  }
  sendJson(response, 401, { error: message });
}

/** Compares in constant time; hashing first makes the lengths equal, so the length does not leak either. */
export function sameSecret(given: string, expected: string): boolean {
  const digest = (value: string) => createHmac('sha256', 'opsbot-compare').update(value).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

function headerToken(request: IncomingMessage): string | undefined {
  const direct = request.headers[TOKEN_HEADER];
  if (typeof direct === 'string') return direct;
  const authorization = request.headers.authorization;
  const bearer = authorization === undefined ? undefined : /^Bearer\s+(.+)$/i.exec(authorization);
  return bearer?.[1];
}

function cookieValue(request: IncomingMessage, name: string): string | undefined {
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const [key, ...value] = part.trim().split('=');
    if (key === name) return value.join('=');
  }
  return undefined;
}
