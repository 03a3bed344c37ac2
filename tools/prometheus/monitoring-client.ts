// One JSON request to Prometheus or Alertmanager: through the network guard and http_check's pinned-address client,
// with the configured headers, a capped answer, and zod checking what came back (their answers are a boundary).
import type { z } from 'zod';
import { ToolArgumentError } from '../../agent/tool-errors.js';
import type { CallLimits } from '../call-limits.js';
import { sendHttpRequest } from '../http-request.js';
import type { NetworkGuard } from '../network-guard.js';
import { type Environment, expandHeaders, withoutSecrets } from './endpoint-headers.js';
import type { EndpointSettings } from './endpoint-settings.js';

/** Large enough for a few thousand series; a bigger answer asks the model to narrow its query instead. */
const MAX_ANSWER_BYTES = 4 * 1024 * 1024;

export interface MonitoringRequest {
  method: 'GET' | 'POST' | 'DELETE';
  /** Under the base URL's path, such as `api/v1/query`. */
  path: string;
  query?: Record<string, string>;
  body?: unknown;
}

export interface MonitoringAnswer {
  status: number;
  /** The parsed JSON body; undefined when the body is empty or not JSON. */
  json: unknown;
  /** The body's first characters, for an error message. */
  excerpt: string;
}

/** The server answered something other than what its API documents: a fault of the server (or the URL). */
export class UnexpectedAnswerError extends Error {
  override name = 'UnexpectedAnswerError';
}

export class MonitoringClient {
  private readonly base: URL;
  private readonly headers: Record<string, string>;
  /** The expanded header values: never shown in a result. */
  readonly secrets: readonly string[];

  constructor(
    readonly server: 'Prometheus' | 'Alertmanager',
    settings: EndpointSettings,
    private readonly guard: NetworkGuard,
    environment: Environment,
  ) {
    this.base = new URL(settings.url.endsWith('/') ? settings.url : `${settings.url}/`);
    const expanded = expandHeaders(settings.headers, environment);
    this.headers = expanded.headers;
    this.secrets = expanded.secrets;
  }

  /** The server's URL for a path, for people (no headers in it). */
  urlOf(path: string): string {
    return new URL(path, this.base).href;
  }

  /** Sends one request. Throws NetworkRefusal when the guard refuses the host, and an Error when it fails. */
  async send(request: MonitoringRequest, limits: CallLimits): Promise<MonitoringAnswer> {
    const url = new URL(request.path, this.base);
    for (const [name, value] of Object.entries(request.query ?? {})) url.searchParams.set(name, value);
    const checked = await this.guard.check(url.hostname, limits.signal);
    const address = checked.addresses[0]!;
    const body = request.body === undefined ? undefined : JSON.stringify(request.body);
    const response = await sendHttpRequest({
      url,
      method: request.method,
      headers: {
        'user-agent': 'opsbot',
        accept: 'application/json',
        ...(body === undefined
          ? {}
          : { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) }),
        ...this.headers,
      },
      address,
      verifyTls: true,
      maxBodyBytes: MAX_ANSWER_BYTES,
      signal: limits.signal,
      ...(body === undefined ? {} : { body }),
    });
    if (response.bodyTruncated) {
      throw new ToolArgumentError(
        `${this.server}'s answer is over ${MAX_ANSWER_BYTES / 1024 / 1024} MB; narrow the query (fewer series, a ` +
          'shorter range or a larger step)',
      );
    }
    let json: unknown;
    try {
      json = response.body === '' ? undefined : JSON.parse(response.body);
    } catch {
      json = undefined;
    }
    return {
      status: response.status,
      json,
      excerpt: withoutSecrets(response.body.replace(/\s+/g, ' ').trim().slice(0, 300), this.secrets),
    };
  }

  /** Checks an answer against its documented shape; throws UnexpectedAnswerError naming what did not fit. */
  parse<Schema extends z.ZodType>(schema: Schema, answer: MonitoringAnswer, what: string): z.output<Schema> {
    const checked = schema.safeParse(answer.json);
    if (checked.success) return checked.data;
    const issue = checked.error.issues[0];
    const where = issue?.path.length ? ` at ${issue.path.join('.')}` : '';
    throw new UnexpectedAnswerError(
      `${this.server} answered ${what} with HTTP ${answer.status} and a body that is not its API's shape` +
        `${where} (${issue?.message ?? 'invalid'}): ${answer.excerpt || 'an empty body'}`,
    );
  }
}
