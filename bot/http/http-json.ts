// JSON in and out over node:http: bounded bodies, zod-checked input, and errors a person can act on.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { z } from 'zod';

/** A request the server refuses, with the status and message the client gets. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

export function sendJson(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const payload = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(payload),
    'cache-control': 'no-store',
    ...headers,
  });
  response.end(payload);
}

export function sendHttpError(response: ServerResponse, error: HttpError): void {
  sendJson(response, error.status, {
    error: error.message,
    ...(error.details === undefined ? {} : { details: error.details }),
  });
}

/**
 * Reads a JSON body of at most `limitBytes` and checks it with `schema`. Only `application/json` is accepted:
 * a page on another site can send a form or text/plain without asking, but not JSON without a CORS preflight.
 */
export async function readJson<Schema extends z.ZodType>(
  request: IncomingMessage,
  schema: Schema,
  limitBytes = 64 * 1024,
): Promise<z.output<Schema>> {
  const type = (request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/json') {
    throw new HttpError(415, 'Send the body as JSON, with content-type: application/json.');
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > limitBytes) throw new HttpError(413, `The body is larger than ${limitBytes} bytes.`);
    chunks.push(chunk as Buffer);
  }
  let value: unknown;
  try {
    value = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new HttpError(400, 'The body is not valid JSON.');
  }
  const result = schema.safeParse(value);
  if (!result.success) {
    const problems = result.error.issues.map((issue) => ({
      path: issue.path.map(String).join('.') || '(body)',
      message: issue.message,
    }));
    const summary = problems.map((problem) => `${problem.path}: ${problem.message}`).join('; ');
    throw new HttpError(400, `The request is not valid: ${summary}`, problems);
  }
  return result.data;
}
