// The handler behind /slack/events: the timestamp window and the store check, then Bolt's HTTP receiver.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { HTTPReceiver } from '@slack/bolt';
import { systemClock } from '../../agent/clock.js';
import { errorMessage } from '../../agent/errors.js';
import type { Logger } from '../../agent/logger.js';
import { SLACK_EVENTS_PATH } from './slack-app.js';

export type SlackHttpHandler = (request: IncomingMessage, response: ServerResponse) => boolean;

/** Slack's replay window: a signed request older or newer than this is refused. */
const SLACK_TIMESTAMP_TOLERANCE_SECONDS = 300;

export interface SlackHttpHandlerOptions {
  logger?: Logger;
  /**
   * Undefined when the store answered lately; otherwise a ping, which rejects while the store cannot be reached.
   * Bolt acks an event before any listener runs, so an event acked then could be neither deduped nor saved, and
   * Slack would not send it again: it is refused with 503 instead.
   */
  storeReachable?: () => Promise<void> | undefined;
}

/** The body of a 503 while the store is down; Slack shows nothing of it, it is for people reading logs. */
const STORE_UNREACHABLE_BODY = JSON.stringify({
  error: 'The store cannot be reached, so this request was not taken; Slack sends events again later.',
});

/**
 * Why a request's x-slack-request-timestamp is unacceptable, or undefined. Bolt refuses only timestamps too far
 * in the past; a request signed with a future timestamp (a leaked signature, or a skewed clock at the sender)
 * would stay replayable until that time had come and gone, so both directions are checked here.
 */
function slackTimestampProblem(header: string | string[] | undefined, nowMs: number): string | undefined {
  if (typeof header !== 'string' || !/^\d{1,12}$/.test(header)) return 'a missing or malformed timestamp';
  const skew = Number(header) - Math.floor(nowMs / 1000);
  if (Math.abs(skew) <= SLACK_TIMESTAMP_TOLERANCE_SECONDS) return undefined;
  return `a timestamp ${Math.abs(skew)} s in the ${skew > 0 ? 'future' : 'past'}`;
}

/**
 * Takes requests to /slack/events (true) and leaves every other path to the caller (false). Every request
 * to Bolt passes here, so the timestamp window is enforced before Bolt or any handler sees the request.
 */
export function slackHttpHandler(
  receiver: HTTPReceiver,
  options: SlackHttpHandlerOptions = {},
): SlackHttpHandler {
  return (request, response) => {
    const pathname = new URL(request.url ?? '/', 'http://localhost').pathname;
    if (pathname !== SLACK_EVENTS_PATH) return false;
    if (request.method !== 'POST') {
      response.writeHead(405, { allow: 'POST' }).end();
      return true;
    }
    // The wall clock, not the kernel's: Bolt checks the past side of the window against Date.now(), and both
    // sides of the window must agree.
    const problem = slackTimestampProblem(request.headers['x-slack-request-timestamp'], systemClock.now());
    if (problem !== undefined) {
      options.logger?.warn({ problem }, 'Slack request refused before verification');
      // As Bolt answers a bad signature: 401 and nothing else, so the refusal reveals nothing.
      request.resume();
      response.writeHead(401).end();
      return true;
    }
    // Undefined: the store answered a moment ago, so the request goes to Bolt at once, with no round trip.
    const reachable = options.storeReachable?.();
    if (!reachable) {
      receiver.requestListener(request, response);
      return true;
    }
    reachable.then(
      () => receiver.requestListener(request, response),
      (error: unknown) => {
        options.logger?.warn(
          { err: errorMessage(error) },
          'Slack request refused with 503 while the store is unreachable; Slack retries events',
        );
        request.resume();
        response.writeHead(503, { 'content-type': 'application/json' }).end(STORE_UNREACHABLE_BODY);
      },
    );
    return true;
  };
}
