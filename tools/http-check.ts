// The http_check tool: requests a URL, follows redirects up to a limit, and checks status and body.
import { z } from 'zod';
import { defineTool, type Tool } from '../agent/tool.js';
import { abortText, errorText, timeoutField, withCallLimits } from './call-limits.js';
import { type HttpResponseSummary, sendHttpRequest } from './http-request.js';
import { metadataHeaderProblem } from './metadata-headers.js';
import { type NetworkGuard, NetworkRefusal } from './network-guard.js';
import { cutTextEnd } from './output-cut.js';

const DEFAULT_TIMEOUT_MS = 10_000;
const MAX_TIMEOUT_MS = 60_000;
const MAX_BODY_BYTES = 256 * 1024;
const EXCERPT_CHARS = 500;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
/** Headers the tool sets itself; letting the model set them could smuggle requests or misroute them. */
const RESERVED_HEADERS = new Set([
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'upgrade',
  'te',
]);
/** Dropped when a redirect leaves the origin, as browsers do, so credentials do not follow to another host. */
const CREDENTIAL_HEADERS = ['authorization', 'cookie', 'proxy-authorization'];

const statusExpectation = z
  .union([
    z.number().int().min(100).max(599),
    z
      .string()
      .regex(/^([1-5]xx|[1-5]\d\d(-[1-5]\d\d)?)$/i, 'a status (200), a range (200-299) or a class (2xx)'),
  ])
  .describe(
    'Expected final status: a code (200), a range ("200-299") or a class ("2xx"). Default "200-399".',
  );

const input = z
  .object({
    url: z
      .string()
      .max(2048)
      .regex(/^https?:\/\//i, 'an http:// or https:// URL')
      .describe('The URL to request, http:// or https://.'),
    method: z
      .enum(['GET', 'HEAD', 'OPTIONS'])
      .default('GET')
      .describe('HTTP method; only methods without side effects.'),
    expected_status: statusExpectation.optional(),
    body_contains: z
      .string()
      .min(1)
      .max(1024)
      .optional()
      .describe(`Text the response body must contain (searched in its first ${MAX_BODY_BYTES / 1024} KB).`),
    headers: z
      .record(
        z.string().regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/, 'a header name'),
        z
          .string()
          .max(4096)
          .regex(/^[^\r\n\0]*$/, 'one line of text'),
      )
      .optional()
      .refine(
        (headers) =>
          !headers || Object.keys(headers).every((name) => !RESERVED_HEADERS.has(name.toLowerCase())),
        `these headers are set by the tool: ${[...RESERVED_HEADERS].join(', ')}`,
      )
      .describe('Extra request headers, e.g. {"Accept": "application/json"}.'),
    follow_redirects: z.boolean().default(true).describe('Follow 301/302/303/307/308 responses.'),
    max_redirects: z.number().int().min(0).max(10).default(5).describe('Most redirects to follow (0-10).'),
    verify_tls: z
      .boolean()
      .default(true)
      .describe(
        'Refuse an https certificate that does not verify. Set false only to inspect a self-signed service.',
      ),
    timeout_ms: timeoutField(DEFAULT_TIMEOUT_MS, MAX_TIMEOUT_MS),
  })
  .strict();

const description = `Sends one HTTP or HTTPS request (GET, HEAD or OPTIONS), follows redirects up to a limit, and checks the final status against an expectation and, optionally, that the body contains a text.
Result data: url, final_url, status, status_text, status_ok, body_match, latency_ms (total, all hops), redirects [{status, url, location}], headers (content-type, server, ...), body_excerpt (first ${EXCERPT_CHARS} characters), tls {valid_to, days_left, issuer, authorized} for https.
Use this when you need to know whether a web service or health endpoint answers as expected and how fast: after a deploy, during an incident, or to see where a URL redirects.
Do not use it to change anything (only side-effect-free methods are allowed), to download large bodies (only the first ${MAX_BODY_BYTES / 1024} KB are read), or for non-HTTP ports (use tcp_check). Hosts outside the network allow list, cloud metadata addresses, the unspecified addresses (0.0.0.0, ::) and cloud metadata request headers (Metadata-Flavor, X-aws-ec2-metadata-token, Metadata) are refused, at every redirect hop.`;

function statusMatches(status: number, expected: string | number): boolean {
  if (typeof expected === 'number') return status === expected;
  const text = expected.toLowerCase();
  if (text.endsWith('xx')) return Math.floor(status / 100) === Number(text[0]);
  const [low, high = low] = text.split('-').map(Number);
  return status >= (low ?? 0) && status <= (high ?? 0);
}

function excerpt(body: string): string {
  const compact = body.replace(/\s+/g, ' ').trim();
  return compact.length > EXCERPT_CHARS ? `${cutTextEnd(compact, EXCERPT_CHARS)}…` : compact;
}

const SHOWN_HEADERS = [
  'content-type',
  'content-length',
  'server',
  'location',
  'cache-control',
  'retry-after',
];

export function createHttpCheckTool(options: { guard: NetworkGuard }): Tool {
  return defineTool({
    name: 'http_check',
    description,
    input,
    risk: 'read',
    timeoutMs: MAX_TIMEOUT_MS,
    execute(ctx, args) {
      return withCallLimits(ctx, args.timeout_ms, DEFAULT_TIMEOUT_MS, async (limits) => {
        const expected = args.expected_status ?? '200-399';
        const redirects: { status: number; url: string; location: string }[] = [];
        let url: URL;
        try {
          url = new URL(args.url);
        } catch {
          return {
            ok: false,
            summary: `http_check refused: ${args.url} is not a valid URL.`,
            data: { refused: true },
          };
        }
        let headers: Record<string, string> = { ...args.headers };
        const headerProblem = metadataHeaderProblem(headers);
        if (headerProblem) {
          return { ok: false, summary: `http_check refused: ${headerProblem}.`, data: { refused: true } };
        }
        const started = performance.now();
        let response: HttpResponseSummary;
        try {
          for (;;) {
            if (url.protocol !== 'http:' && url.protocol !== 'https:') {
              throw new NetworkRefusal(`refused: ${url.href} is not http or https`);
            }
            const checked = await options.guard.check(url.hostname, limits.signal);
            const address = checked.addresses[0];
            if (!address) throw new NetworkRefusal(`refused: ${url.hostname} has no usable address`);
            response = await sendHttpRequest({
              url,
              method: args.method,
              headers,
              address,
              verifyTls: args.verify_tls,
              maxBodyBytes: MAX_BODY_BYTES,
              signal: limits.signal,
            });
            const location = response.headers.location;
            if (!args.follow_redirects || !REDIRECT_STATUSES.has(response.status) || !location) break;
            if (redirects.length >= args.max_redirects) {
              redirects.push({ status: response.status, url: url.href, location });
              const latency = Math.round(performance.now() - started);
              return {
                ok: false,
                summary: `${args.method} ${args.url} was still redirecting after ${args.max_redirects} redirects (next: ${location}), so it stopped.`,
                data: {
                  url: args.url,
                  final_url: url.href,
                  status: response.status,
                  redirects,
                  latency_ms: latency,
                },
              };
            }
            const next = new URL(location, url);
            redirects.push({ status: response.status, url: url.href, location: next.href });
            if (next.origin !== url.origin) {
              headers = Object.fromEntries(
                Object.entries(headers).filter(([name]) => !CREDENTIAL_HEADERS.includes(name.toLowerCase())),
              );
            }
            url = next;
          }
        } catch (error) {
          const where =
            redirects.length > 0 ? `${url.href} (after ${redirects.length} redirect(s))` : args.url;
          if (error instanceof NetworkRefusal) {
            return {
              ok: false,
              summary: `http_check ${where} ${error.message}.`,
              data: { refused: true, redirects },
            };
          }
          const why = limits.signal.aborted ? abortText(limits) : errorText(error);
          return {
            ok: false,
            summary: `${args.method} ${where} failed: ${why}.`,
            data: { url: args.url, final_url: url.href, status: null, error: why, redirects },
          };
        }

        const latencyMs = Math.round(performance.now() - started);
        const statusOk = statusMatches(response.status, expected);
        const bodyMatch =
          args.body_contains === undefined ? null : response.body.includes(args.body_contains);
        const shownHeaders = Object.fromEntries(
          SHOWN_HEADERS.flatMap((name) => (response.headers[name] ? [[name, response.headers[name]]] : [])),
        );
        const problems: string[] = [];
        if (!statusOk) problems.push(`${expected} was expected`);
        if (bodyMatch === false)
          problems.push(`the body does not contain ${JSON.stringify(args.body_contains)}`);
        let summary = `${args.method} ${args.url} returned ${response.status}${response.statusText ? ` ${response.statusText}` : ''} in ${latencyMs} ms`;
        if (redirects.length > 0) summary += ` after ${redirects.length} redirect(s) to ${url.href}`;
        summary += problems.length > 0 ? `, but ${problems.join(' and ')}` : '';
        if (bodyMatch === true) summary += `; the body contains ${JSON.stringify(args.body_contains)}`;
        if (response.tls?.days_left !== null && response.tls?.days_left !== undefined) {
          summary += `; the certificate expires in ${response.tls.days_left} days`;
        }
        return {
          ok: statusOk && bodyMatch !== false,
          summary: `${summary}.`,
          data: {
            url: args.url,
            final_url: url.href,
            method: args.method,
            status: response.status,
            status_text: response.statusText,
            expected_status: expected,
            status_ok: statusOk,
            body_contains: args.body_contains ?? null,
            body_match: bodyMatch,
            latency_ms: latencyMs,
            time_to_headers_ms: Math.round(response.timeToHeadersMs),
            redirects,
            headers: shownHeaders,
            body_excerpt: excerpt(response.body),
            body_bytes_read: response.bodyBytesRead,
            body_truncated: response.bodyTruncated,
            tls: response.tls,
          },
        };
      });
    },
  });
}
