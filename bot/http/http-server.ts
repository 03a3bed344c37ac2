// The one HTTP server: liveness and readiness, and mount points for the playground and the platform adapters.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { formatDuration } from '../../agent/duration-text.js';
import { errorMessage } from '../../agent/errors.js';
import type { Logger } from '../../agent/logger.js';
import { sendJson } from './http-json.js';
import { FOREIGN_HOST_MESSAGE, hostAllowed } from './loopback-host.js';

/** A handler for everything under a mounted prefix; Bolt's `HTTPReceiver.requestListener` has this shape. */
export type RequestHandler = (request: IncomingMessage, response: ServerResponse) => void | Promise<void>;

export interface ReadinessStatus {
  ok: boolean;
  /** What a person checking /readyz wants to know: which backend, how many clients, why not ready. */
  detail?: string;
  /**
   * Reported, but the bot still serves without it (the model: commands still run, and people are told the model
   * is down), so a failure does not take this replica out of service.
   */
  advisory?: boolean;
}

export type ReadinessCheck = () => Promise<ReadinessStatus>;

export interface HttpServerOptions {
  host: string;
  /** 0 picks a free port (tests). */
  port: number;
  logger: Logger;
  /** A check that does not answer in this long counts as not ready. */
  readinessTimeoutMs?: number;
  /** How long a client may take to send its request; tests make these short. */
  timeouts?: Partial<HttpTimeouts>;
}

export interface HttpTimeouts {
  /** Receiving the request line and headers. */
  headersMs: number;
  /**
   * Receiving the whole request, body included; a client still sending after this gets 408 and is closed. It
   * bounds the request only: a response that streams (SSE) stays open after it.
   */
  requestMs: number;
  /** An idle keep-alive connection is closed after this. */
  keepAliveMs: number;
}

export const DEFAULT_HTTP_TIMEOUTS = {
  headersMs: 10_000,
  requestMs: 30_000,
  keepAliveMs: 5_000,
} satisfies HttpTimeouts;

interface Mount {
  prefix: string;
  handler: RequestHandler;
}

export class HttpServer {
  private readonly server: Server;
  private readonly mounts: Mount[] = [];
  private readonly checks = new Map<string, ReadinessCheck>();
  private boundPort: number | undefined;

  constructor(private readonly options: HttpServerOptions) {
    const timeouts = { ...DEFAULT_HTTP_TIMEOUTS, ...options.timeouts };
    // A body trickled a byte at a time would otherwise hold its socket (and a handler) open for ever. Node checks
    // the timeouts every `connectionsCheckingInterval` (30 s by default), which would let one run twice as long.
    this.server = createServer(
      {
        headersTimeout: Math.min(timeouts.headersMs, timeouts.requestMs),
        requestTimeout: timeouts.requestMs,
        keepAliveTimeout: timeouts.keepAliveMs,
        connectionsCheckingInterval: Math.max(50, Math.min(1_000, Math.floor(timeouts.requestMs / 4))),
      },
      (request, response) => {
        this.route(request, response).catch((error) => this.fail(request, response, error));
      },
    );
  }

  /**
   * Sends every request whose path is `prefix` or lies under it to `handler`. The longest matching prefix wins,
   * so the playground can take `/` while Slack takes `/slack/events`.
   */
  mount(prefix: string, handler: RequestHandler): void {
    const normalized = prefix === '/' ? '/' : prefix.replace(/\/+$/, '');
    if (!normalized.startsWith('/')) throw new Error(`A mount prefix starts with "/": ${prefix}`);
    if (this.mounts.some((mount) => mount.prefix === normalized)) {
      throw new Error(`Something is already mounted at ${normalized}`);
    }
    this.mounts.push({ prefix: normalized, handler });
    this.mounts.sort((a, b) => b.prefix.length - a.prefix.length);
  }

  /** Adds a named part to /readyz: the store, or an adapter saying whether it is connected. */
  addReadinessCheck(name: string, check: ReadinessCheck): void {
    this.checks.set(name, check);
  }

  async listen(): Promise<string> {
    await new Promise<void>((resolve, reject) => {
      const onError = (error: Error) => reject(error);
      this.server.once('error', onError);
      this.server.listen(this.options.port, this.options.host, () => {
        this.server.off('error', onError);
        resolve();
      });
    });
    this.boundPort = (this.server.address() as AddressInfo).port;
    return this.url;
  }

  get port(): number {
    if (this.boundPort === undefined) throw new Error('The HTTP server is not listening yet');
    return this.boundPort;
  }

  /** The address people open: IPv6 hosts in brackets, and the wildcard hosts shown as they were configured. */
  get url(): string {
    const host = this.options.host.includes(':') ? `[${this.options.host}]` : this.options.host;
    return `http://${host}:${this.port}`;
  }

  /** Stops listening and ends open connections (SSE streams would otherwise keep the server alive). */
  async close(): Promise<void> {
    if (!this.server.listening) return;
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeIdleConnections();
    this.server.closeAllConnections();
    await closed;
  }

  private async route(request: IncomingMessage, response: ServerResponse): Promise<void> {
    // Before any route, so that no route (a probe, /metrics, an adapter's) can forget it.
    if (!hostAllowed(this.options.host, request.headers.host)) {
      return sendJson(response, 403, { error: FOREIGN_HOST_MESSAGE });
    }
    const path = pathOf(request);
    if (path === '/healthz') return sendJson(response, 200, { ok: true });
    if (path === '/readyz') return this.readiness(response);
    const mount = this.mounts.find(
      ({ prefix }) => prefix === '/' || path === prefix || path.startsWith(`${prefix}/`),
    );
    if (!mount) return sendJson(response, 404, { error: `Nothing is served at ${path}` });
    await mount.handler(request, response);
  }

  private async readiness(response: ServerResponse): Promise<void> {
    const timeoutMs = this.options.readinessTimeoutMs ?? 3_000;
    const entries = await Promise.all(
      [...this.checks].map(async ([name, check]) => [name, await withTimeout(check, timeoutMs)] as const),
    );
    const checks = Object.fromEntries(entries);
    const ready = entries.every(([, status]) => status.ok || status.advisory === true);
    sendJson(response, ready ? 200 : 503, { ready, checks });
  }

  private fail(request: IncomingMessage, response: ServerResponse, error: unknown): void {
    if (request.destroyed && !request.complete) {
      // The client went away, or was timed out, while sending: there is nobody to answer.
      this.options.logger.debug(
        { err: errorMessage(error), path: pathOf(request) },
        'a request ended unfinished',
      );
      response.destroy();
      return;
    }
    this.options.logger.error({ err: errorMessage(error) }, 'an HTTP request failed');
    if (response.headersSent) {
      response.destroy();
      return;
    }
    sendJson(response, 500, { error: 'Something went wrong on the server; the details are in the bot log.' });
  }
}

export function pathOf(request: IncomingMessage): string {
  const raw = request.url ?? '/';
  const end = raw.search(/[?#]/);
  return end === -1 ? raw : raw.slice(0, end);
}

async function withTimeout(check: ReadinessCheck, timeoutMs: number): Promise<ReadinessStatus> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<ReadinessStatus>((resolve) => {
    timer = setTimeout(
      () => resolve({ ok: false, detail: `no answer within ${formatDuration(timeoutMs)}` }),
      timeoutMs,
    );
  });
  try {
    return await Promise.race([
      check().catch((error): ReadinessStatus => ({ ok: false, detail: errorMessage(error) })),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}
