// GET /metrics on the one HTTP server, in Prometheus' text format. Off the loopback it needs the playground's
// token as a bearer token: the numbers say what the bot is doing, and when.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendJson } from '../http/http-json.js';
import { pathOf, type RequestHandler } from '../http/http-server.js';
import { isLoopback } from '../http/loopback-host.js';
import { sameSecret } from '../playground/playground-auth.js';

export const METRICS_PATH = '/metrics';

export interface MetricsEndpointOptions {
  /** Reads the gauges and renders every metric. */
  scrape: () => Promise<string>;
  contentType: string;
  /** HOST: on the loopback no token is asked for, as with the playground. */
  host: string;
  /** OPSBOT_PLAYGROUND_TOKEN; the environment check refuses to start off the loopback without it. */
  token: string | undefined;
}

export function metricsEndpoint(options: MetricsEndpointOptions): RequestHandler {
  const { token } = options;
  const needsToken = !isLoopback(options.host);
  if (needsToken && token === undefined) {
    // readEnvironment refuses this first; a caller composing by hand must not get an open endpoint either.
    throw new Error(
      `/metrics on HOST=${options.host} needs OPSBOT_PLAYGROUND_TOKEN, sent as "Authorization: Bearer <token>"`,
    );
  }
  return async (request: IncomingMessage, response: ServerResponse) => {
    if (pathOf(request) !== METRICS_PATH) {
      return sendJson(response, 404, { error: `Nothing is served at ${pathOf(request)}` });
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      return sendJson(response, 405, { error: `${METRICS_PATH} takes GET.` }, { allow: 'GET, HEAD' });
    }
    if (needsToken && token !== undefined && !bearerMatches(request, token)) {
      return sendJson(
        response,
        401,
        { error: 'This needs the playground token: send "Authorization: Bearer <OPSBOT_PLAYGROUND_TOKEN>".' },
        { 'www-authenticate': 'Bearer realm="opsbot metrics"' },
      );
    }
    const body = await options.scrape();
    response.writeHead(200, {
      'content-type': options.contentType,
      'content-length': Buffer.byteLength(body),
      'cache-control': 'no-store',
    });
    response.end(request.method === 'HEAD' ? undefined : body);
  };
}

function bearerMatches(request: IncomingMessage, token: string): boolean {
  const given = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '')?.[1];
  return given !== undefined && sameSecret(given, token);
}
