// Mounts Bolt's HTTP receiver on the one HTTP server that also serves /healthz and the playground.
import type { IncomingMessage, RequestListener, Server, ServerResponse } from 'node:http';
import type { HTTPReceiver } from '@slack/bolt';
import { SLACK_EVENTS_PATH } from './slack-app.js';

export type SlackHttpHandler = (request: IncomingMessage, response: ServerResponse) => boolean;

/** Takes requests to /slack/events (true) and leaves every other path to the caller (false). */
export function slackHttpHandler(receiver: HTTPReceiver, path = SLACK_EVENTS_PATH): SlackHttpHandler {
  return (request, response) => {
    const pathname = new URL(request.url ?? '/', 'http://localhost').pathname;
    if (pathname !== path) return false;
    if (request.method !== 'POST') {
      response.writeHead(405, { allow: 'POST' }).end();
      return true;
    }
    receiver.requestListener(request, response);
    return true;
  };
}

/**
 * Puts the Slack handler in front of the server's existing request listeners, the way engine.io attaches to a
 * server it does not own; the returned function puts them back. Listeners added later also see /slack/events,
 * so either attach last or route to the handler yourself.
 */
export function attachToServer(server: Server, handle: SlackHttpHandler): () => void {
  const previous = server.listeners('request') as RequestListener[];
  server.removeAllListeners('request');
  const listener: RequestListener = (request, response) => {
    if (handle(request, response)) return;
    if (previous.length === 0) {
      response.writeHead(404).end();
      return;
    }
    for (const other of previous) other.call(server, request, response);
  };
  server.on('request', listener);
  return () => {
    server.removeListener('request', listener);
    for (const other of previous) server.on('request', other);
  };
}
