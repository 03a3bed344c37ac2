// One HTTP(S) request to an address the network guard approved: status, timing, a capped body, the TLS expiry.

import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { isIP } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { metadataHeaderProblem } from './metadata-headers.js';
import { NetworkRefusal, type ResolvedAddress } from './network-guard.js';

export interface HttpResponseSummary {
  status: number;
  statusText: string;
  headers: Record<string, string>;
  /** The first bytes of the body, as text. */
  body: string;
  bodyBytesRead: number;
  /** The body was longer than the bytes read. */
  bodyTruncated: boolean;
  timeToHeadersMs: number;
  tls: TlsSummary | null;
}

export interface TlsSummary {
  valid_to: string | null;
  days_left: number | null;
  subject: string | null;
  issuer: string | null;
  authorized: boolean;
  authorization_error: string | null;
  protocol: string | null;
}

export interface HttpRequestOptions {
  url: URL;
  method: string;
  headers: Record<string, string>;
  /** The address to connect to; the URL's host name is still sent as Host and SNI. */
  address: ResolvedAddress;
  verifyTls: boolean;
  maxBodyBytes: number;
  signal: AbortSignal;
  /** A request body (the caller sets its content-type); none when absent. */
  body?: string;
}

/** Always answers with the address the guard checked, so a second DNS answer cannot redirect the connection. */
export function pinnedLookup(address: ResolvedAddress): LookupFunction {
  return ((_hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options?.all) callback(null, [{ address: address.address, family: address.family }]);
    else callback(null, address.address, address.family);
  }) as LookupFunction;
}

/** Certificate name fields are a string, or an array when the name repeats the attribute. */
export function firstValue(value: string | string[] | undefined): string | null {
  if (Array.isArray(value)) return value[0] ?? null;
  return value ?? null;
}

export function tlsSummary(socket: TLSSocket, nowMs = Date.now()): TlsSummary {
  const certificate = socket.getPeerCertificate();
  const validTo = certificate?.valid_to ? new Date(certificate.valid_to) : undefined;
  const time = validTo && Number.isFinite(validTo.getTime()) ? validTo : undefined;
  return {
    valid_to: time?.toISOString() ?? null,
    days_left: time ? Math.floor((time.getTime() - nowMs) / 86_400_000) : null,
    subject: firstValue(certificate?.subject?.CN),
    issuer: firstValue(certificate?.issuer?.CN) ?? firstValue(certificate?.issuer?.O),
    authorized: socket.authorized,
    authorization_error: socket.authorizationError ? String(socket.authorizationError) : null,
    protocol: socket.getProtocol(),
  };
}

async function readBody(
  response: IncomingMessage,
  maxBytes: number,
): Promise<{ body: Buffer; truncated: boolean }> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of response as AsyncIterable<Buffer>) {
    const room = maxBytes - total;
    if (chunk.length >= room) {
      chunks.push(chunk.subarray(0, room));
      total += room;
      return { body: Buffer.concat(chunks), truncated: chunk.length > room || !response.complete };
    }
    chunks.push(chunk);
    total += chunk.length;
  }
  return { body: Buffer.concat(chunks), truncated: false };
}

/** Sends one request (no redirects followed here) and reads at most maxBodyBytes of the body. */
export function sendHttpRequest(options: HttpRequestOptions): Promise<HttpResponseSummary> {
  const { url } = options;
  const isHttps = url.protocol === 'https:';
  const send = isHttps ? httpsRequest : httpRequest;
  const hostname = url.hostname.replace(/^\[|\]$/g, '');
  const started = performance.now();
  const headerProblem = metadataHeaderProblem(options.headers);
  if (headerProblem) return Promise.reject(new NetworkRefusal(`refused: ${headerProblem}`));
  return new Promise<HttpResponseSummary>((resolve, reject) => {
    const request = send(url, {
      method: options.method,
      headers: { 'user-agent': 'opsbot-http-check', accept: '*/*', ...options.headers },
      agent: false,
      lookup: pinnedLookup(options.address),
      signal: options.signal,
      ...(isHttps
        ? { rejectUnauthorized: options.verifyTls, servername: isIP(hostname) ? undefined : hostname }
        : {}),
    });
    request.once('error', reject);
    request.once('response', (response) => {
      const timeToHeadersMs = performance.now() - started;
      const tls = isHttps ? tlsSummary(response.socket as TLSSocket) : null;
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(response.headers)) {
        if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
      }
      const finish = (body: Buffer, truncated: boolean) => {
        request.destroy();
        resolve({
          status: response.statusCode ?? 0,
          statusText: response.statusMessage ?? '',
          headers,
          body: body.toString('utf8'),
          bodyBytesRead: body.length,
          bodyTruncated: truncated,
          timeToHeadersMs,
          tls,
        });
      };
      if (options.method === 'HEAD') {
        finish(Buffer.alloc(0), false);
        return;
      }
      readBody(response, options.maxBodyBytes).then(
        ({ body, truncated }) => finish(body, truncated),
        (error: unknown) => {
          request.destroy();
          reject(error);
        },
      );
    });
    request.end(options.body);
  });
}
