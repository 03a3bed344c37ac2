// http_check against real HTTP and HTTPS servers on 127.0.0.1.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpCheckTool } from '../../tools/http-check.js';
import { createNetworkGuard } from '../../tools/network-guard.js';
import { ToolSettingsSchema } from '../../tools/tool-settings-schema.js';
import { makeSelfSignedCertificate } from './helpers/certificate.js';
import { makeTempDir, removeTempDirs } from './helpers/temp-dir.js';
import { callTool, dataOf } from './helpers/tool-context.js';
import { startHttpServer, startHttpsServer, type TestWebServer } from './helpers/web-servers.js';

let http: TestWebServer;
let https: TestWebServer;
const tool = createHttpCheckTool({ guard: createNetworkGuard(ToolSettingsSchema.parse({}).network) });

beforeAll(async () => {
  const certificate = await makeSelfSignedCertificate(await makeTempDir());
  http = await startHttpServer();
  https = await startHttpsServer(certificate);
});

afterAll(async () => {
  await Promise.all([http.close(), https.close()]);
  await removeTempDirs();
});

describe('http_check', () => {
  it('reports status, latency, headers and a body excerpt, and checks the body text', async () => {
    const result = await callTool(tool, { url: `${http.url}/health`, body_contains: 'status: ok' });
    expect(result.ok).toBe(true);
    const data = dataOf(result);
    expect(data.status).toBe(200);
    expect(data.status_ok).toBe(true);
    expect(data.body_match).toBe(true);
    expect(data.body_excerpt).toBe('status: ok version: 1.2.3');
    expect(data.headers).toMatchObject({ 'content-type': 'text/plain', server: 'test-server' });
    expect(typeof data.latency_ms).toBe('number');
    expect(data.tls).toBeNull();
    expect(result.summary).toMatch(
      /^GET http:\/\/127\.0\.0\.1:\d+\/health returned 200 OK in \d+ ms; the body contains "status: ok"\.$/,
    );
  });

  it('fails when the status is outside the expectation or the body lacks the text', async () => {
    const down = await callTool(tool, { url: `${http.url}/fail` });
    expect(down.ok).toBe(false);
    expect(down.summary).toContain('returned 503 Service Unavailable');
    expect(down.summary).toContain('200-399 was expected');

    expect((await callTool(tool, { url: `${http.url}/fail`, expected_status: 503 })).ok).toBe(true);
    expect((await callTool(tool, { url: `${http.url}/fail`, expected_status: '5xx' })).ok).toBe(true);
    expect((await callTool(tool, { url: `${http.url}/fail`, expected_status: '500-502' })).ok).toBe(false);

    const missing = await callTool(tool, { url: `${http.url}/health`, body_contains: 'version: 9' });
    expect(missing.ok).toBe(false);
    expect(missing.summary).toContain('the body does not contain "version: 9"');
  });

  it('follows redirects, reports each hop, and enforces the limit', async () => {
    const followed = await callTool(tool, { url: `${http.url}/redirect/3` });
    expect(followed.ok).toBe(true);
    const data = dataOf(followed);
    expect(data.final_url).toBe(`${http.url}/redirect/0`);
    expect(data.redirects).toEqual([
      { status: 302, url: `${http.url}/redirect/3`, location: `${http.url}/redirect/2` },
      { status: 301, url: `${http.url}/redirect/2`, location: `${http.url}/redirect/1` },
      { status: 302, url: `${http.url}/redirect/1`, location: `${http.url}/redirect/0` },
    ]);
    expect(followed.summary).toContain('after 3 redirect(s)');

    const limited = await callTool(tool, { url: `${http.url}/redirect/3`, max_redirects: 2 });
    expect(limited.ok).toBe(false);
    expect(limited.summary).toContain('still redirecting after 2 redirects');

    const loop = await callTool(tool, { url: `${http.url}/loop` });
    expect(loop.ok).toBe(false);
    expect(dataOf(loop).redirects).toHaveLength(6);

    const notFollowed = await callTool(tool, { url: `${http.url}/redirect/1`, follow_redirects: false });
    expect(dataOf(notFollowed).status).toBe(302);
  });

  it('refuses a redirect to the metadata address', async () => {
    const result = await callTool(tool, { url: `${http.url}/to-metadata` });
    expect(result.ok).toBe(false);
    expect(dataOf(result).refused).toBe(true);
    expect(result.summary).toContain('169.254.169.254 is a cloud metadata address');
  });

  it('drops credentials when a redirect leaves the origin', async () => {
    const sameOrigin = await callTool(tool, {
      url: `${http.url}/echo-headers`,
      headers: { Authorization: 'Bearer test-value', 'X-Trace': 'abc' },
    });
    expect(dataOf(sameOrigin).body_excerpt).toContain('"authorization":"Bearer test-value"');
    const crossed = await callTool(tool, {
      url: `${http.url}/cross-origin`,
      headers: { Authorization: 'Bearer test-value', 'X-Trace': 'abc' },
    });
    expect(crossed.ok).toBe(true);
    expect(dataOf(crossed).body_excerpt).not.toContain('authorization');
    expect(dataOf(crossed).body_excerpt).toContain('"x-trace":"abc"');
  });

  it('reads only a capped part of a large body', async () => {
    const result = await callTool(tool, { url: `${http.url}/big`, body_contains: 'needle' });
    expect(dataOf(result).body_truncated).toBe(true);
    expect(dataOf(result).body_bytes_read).toBe(256 * 1024);
    expect(String(dataOf(result).body_excerpt).length).toBeLessThanOrEqual(501);
    expect(result.ok).toBe(false);
  });

  it('stops at its time limit', async () => {
    const started = Date.now();
    const result = await callTool(tool, { url: `${http.url}/slow`, timeout_ms: 300 });
    expect(result.ok).toBe(false);
    expect(result.summary).toContain('timed out after 300 ms');
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it('refuses an unverifiable certificate by default, and reports TLS expiry when told not to verify', async () => {
    const verified = await callTool(tool, { url: `${https.url}/health` });
    expect(verified.ok).toBe(false);
    expect(verified.summary).toMatch(/self[- ]signed certificate/i);

    const inspected = await callTool(tool, { url: `${https.url}/health`, verify_tls: false });
    expect(inspected.ok).toBe(true);
    const tls = dataOf(inspected).tls as Record<string, unknown>;
    expect(tls.authorized).toBe(false);
    expect(tls.subject).toBe('localhost');
    expect(tls.days_left).toBeGreaterThanOrEqual(28);
    expect(tls.days_left).toBeLessThanOrEqual(30);
    expect(inspected.summary).toMatch(/the certificate expires in (29|30) days\.$/);
  });

  it('accepts only side-effect-free methods and plain headers', () => {
    expect(() => tool.input.parse({ url: `${http.url}/`, method: 'POST' })).toThrow();
    expect(() => tool.input.parse({ url: `${http.url}/`, headers: { Host: 'evil' } })).toThrow();
    expect(() => tool.input.parse({ url: `${http.url}/`, headers: { 'X-A': 'a\r\nInjected: 1' } })).toThrow();
    expect(() => tool.input.parse({ url: 'file:///etc/passwd' })).toThrow();
  });
});
