// tls_certificate against a real HTTPS server with a self-signed certificate made by openssl.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNetworkGuard } from '../../tools/network-guard.js';
import { createTlsCertificateTool } from '../../tools/tls-certificate.js';
import { ToolSettingsSchema } from '../../tools/tool-settings-schema.js';
import { makeSelfSignedCertificate } from './helpers/certificate.js';
import { makeTempDir, removeTempDirs } from './helpers/temp-dir.js';
import { callTool, dataOf } from './helpers/tool-context.js';
import { startHttpsServer, type TestWebServer } from './helpers/web-servers.js';

let https: TestWebServer;
const guard = createNetworkGuard(ToolSettingsSchema.parse({}).network);

beforeAll(async () => {
  https = await startHttpsServer(await makeSelfSignedCertificate(await makeTempDir(), 30));
});

afterAll(async () => {
  await https.close();
  await removeTempDirs();
});

describe('tls_certificate', () => {
  it('reports subject, issuer, SANs, dates and days left, and that a self-signed chain does not verify', async () => {
    const result = await callTool(createTlsCertificateTool({ guard }), {
      host: '127.0.0.1',
      port: https.port,
    });
    const data = dataOf(result);
    expect(result.ok).toBe(false);
    expect(data.subject).toBe('localhost');
    expect(data.issuer).toBe('localhost');
    expect(data.subject_alt_names).toEqual(['DNS:localhost', 'IP Address:127.0.0.1']);
    expect(data.chain_verified).toBe(false);
    expect(data.verify_error).toBe('DEPTH_ZERO_SELF_SIGNED_CERT');
    expect(data.hostname_matches).toBe(true);
    expect(data.expired).toBe(false);
    const validTo = Date.parse(String(data.valid_to));
    const validFrom = Date.parse(String(data.valid_from));
    expect(Math.round((validTo - validFrom) / 86_400_000)).toBe(30);
    expect(data.days_left).toBe(Math.floor((validTo - Date.now()) / 86_400_000));
    expect(data.fingerprint_sha256).toMatch(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
    expect(result.summary).toContain(`127.0.0.1:${https.port} presents CN=localhost issued by localhost`);
    expect(result.summary).toContain('the chain does not verify (DEPTH_ZERO_SELF_SIGNED_CERT)');
  });

  it('computes days left from the clock it is given, and flags expiry and a name mismatch', async () => {
    const tool = createTlsCertificateTool({ guard, now: () => Date.now() + 40 * 86_400_000 });
    const later = await callTool(tool, { host: '127.0.0.1', port: https.port, servername: 'other.example' });
    const data = dataOf(later);
    expect(data.expired).toBe(true);
    expect(Number(data.days_left)).toBeLessThan(0);
    expect(data.hostname_matches).toBe(false);
    expect(later.summary).toContain('it does not match other.example');
    expect(later.summary).toContain('it has expired');
  });

  it('fails clearly on a port without TLS and refuses the metadata address', async () => {
    const tool = createTlsCertificateTool({ guard });
    const plain = await callTool(tool, { host: '127.0.0.1', port: 1, timeout_ms: 2000 });
    expect(plain.ok).toBe(false);
    expect(plain.summary).toContain('Could not complete a TLS handshake with 127.0.0.1:1');
    const metadata = await callTool(tool, { host: '169.254.169.254' });
    expect(dataOf(metadata).refused).toBe(true);
  });
});
