// `POST /alerts/alertmanager`: Alertmanager's webhook. A bearer token in constant time, a bounded JSON body, the
// version-4 payload checked by zod, and answers Alertmanager acts on: 4xx is final, 5xx (the Store is down) is
// retried.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { errorMessage, isStoreUnavailable } from '../../agent/errors.js';
import type { Logger } from '../../agent/logger.js';
import { sendJson } from '../http/http-json.js';
import { pathOf, type RequestHandler } from '../http/http-server.js';
import { AlertGroupLockTimeout } from './alert-group-repository.js';
import type { AlertMetrics, AlertNotifications } from './alert-notifications.js';
import { payloadProblem, type WebhookPayload, WebhookPayloadSchema } from './alertmanager-payload.js';

export const ALERTS_PATH = '/alerts/alertmanager';
export const MAX_BODY_BYTES = 1024 * 1024;
const DRAIN_LIMIT_BYTES = 8 * MAX_BODY_BYTES;

export interface AlertReceiverOptions {
  token: string;
  notifications: Pick<AlertNotifications, 'receive'>;
  logger: Logger;
  /** Counts the requests refused here (`unauthorized`, `refused`); handled ones are counted by their outcome. */
  metrics?: AlertMetrics;
}

class BadRequest extends Error {}

export function alertReceiver(options: AlertReceiverOptions): RequestHandler {
  const expected = digest(options.token);
  return async (request, response) => {
    if (pathOf(request) !== ALERTS_PATH) {
      return sendJson(response, 404, { error: `Nothing is served at ${pathOf(request)}` });
    }
    if (request.method !== 'POST') {
      return sendJson(response, 405, { error: `${ALERTS_PATH} takes POST only` }, { allow: 'POST' });
    }
    if (!authorized(request, expected)) {
      options.logger.warn({ from: senderOf(request) }, 'an alert notification had a wrong or missing token');
      options.metrics?.notificationHandled('unauthorized');
      drain(request);
      return sendJson(
        response,
        401,
        { error: 'A wrong or missing bearer token (OPSBOT_ALERTS_TOKEN).' },
        { 'www-authenticate': 'Bearer realm="opsbot alerts"' },
      );
    }
    let payload: WebhookPayload;
    try {
      payload = await readPayload(request);
    } catch (error) {
      if (!(error instanceof BadRequest)) throw error;
      options.logger.warn(
        { from: senderOf(request), reason: error.message },
        'an alert notification was refused',
      );
      options.metrics?.notificationHandled('refused');
      return sendJson(
        response,
        400,
        { error: error.message },
        request.complete ? {} : { connection: 'close' },
      );
    }
    try {
      const outcome = await options.notifications.receive(payload);
      return sendJson(response, 200, { ok: true, outcome });
    } catch (error) {
      if (isStoreUnavailable(error) || error instanceof AlertGroupLockTimeout) {
        options.logger.error({ err: errorMessage(error) }, 'an alert notification could not be stored');
        return sendJson(response, 503, { error: 'The Store is unavailable; Alertmanager will retry.' });
      }
      throw error;
    }
  };
}

async function readPayload(request: IncomingMessage): Promise<WebhookPayload> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    // The rest is read and dropped, so the sender gets the 400 rather than a reset connection; a body past
    // DRAIN_LIMIT_BYTES is cut off instead.
    if (size > DRAIN_LIMIT_BYTES) break;
    if (size <= MAX_BODY_BYTES) chunks.push(chunk as Buffer);
  }
  if (size > MAX_BODY_BYTES) throw new BadRequest(`the body is larger than 1 MB (${MAX_BODY_BYTES} bytes)`);
  let value: unknown;
  try {
    value = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new BadRequest('the body is not JSON');
  }
  const parsed = WebhookPayloadSchema.safeParse(value);
  if (!parsed.success) throw new BadRequest(payloadProblem(parsed.error));
  return parsed.data;
}

/** Compares digests, so neither the token's length nor its bytes show in the time taken. */
function authorized(request: IncomingMessage, expected: Buffer): boolean {
  const header = request.headers.authorization ?? '';
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match) return false;
  return timingSafeEqual(digest(match[1]!), expected);
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

function senderOf(request: IncomingMessage): string {
  return `${request.socket.remoteAddress ?? 'unknown'}:${request.socket.remotePort ?? ''}`;
}

/** A refused request's body is read and dropped, so its connection can answer. */
function drain(request: IncomingMessage): void {
  request.resume();
}

/** With OPSBOT_ALERTS_TOKEN unset, the path answers 404 and says why. */
export function alertsOff(_request: IncomingMessage, response: ServerResponse): void {
  sendJson(response, 404, {
    error: 'Alerts are off: set OPSBOT_ALERTS_TOKEN to turn on POST /alerts/alertmanager.',
  });
}
