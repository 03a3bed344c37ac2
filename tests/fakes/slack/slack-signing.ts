// Signs and sends requests as Slack does in HTTP mode: v0 HMAC over `v0:{ts}:{body}`, exact content types.
import { createHmac } from 'node:crypto';

export const FORM_CONTENT_TYPE = 'application/x-www-form-urlencoded';

export function slackSignature(secret: string, timestampSeconds: number, body: string): string {
  return `v0=${createHmac('sha256', secret).update(`v0:${timestampSeconds}:${body}`).digest('hex')}`;
}

export interface SignedPostOptions {
  secret: string;
  /** Seconds; now by default. */
  timestamp?: number;
  contentType?: string;
  /** Send this signature instead of the right one. */
  signature?: string;
  /** Leave the signature header out. */
  unsigned?: boolean;
  headers?: Record<string, string>;
  /** Gives up on the request, as Slack does after 3 seconds. */
  signal?: AbortSignal;
}

export interface SignedPostResult {
  status: number;
  body: string;
  ms: number;
}

/** Posts a body given as the exact string to sign; Bolt verifies the raw bytes. */
export async function postSigned(
  url: string,
  body: string,
  options: SignedPostOptions,
): Promise<SignedPostResult> {
  const timestamp = options.timestamp ?? Math.floor(Date.now() / 1000);
  const headers: Record<string, string> = {
    'content-type': options.contentType ?? 'application/json',
    'x-slack-request-timestamp': String(timestamp),
    ...options.headers,
  };
  if (!options.unsigned) {
    headers['x-slack-signature'] = options.signature ?? slackSignature(options.secret, timestamp, body);
  }
  const started = performance.now();
  const response = await fetch(url, {
    method: 'POST',
    headers,
    body,
    ...(options.signal ? { signal: options.signal } : {}),
  });
  const text = await response.text();
  return { status: response.status, body: text, ms: performance.now() - started };
}

export function formBody(fields: Record<string, string>): string {
  return new URLSearchParams(fields).toString();
}
