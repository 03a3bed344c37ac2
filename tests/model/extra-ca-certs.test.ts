// NODE_EXTRA_CA_CERTS for an https model behind a private CA: Node reads it once, at start-up, so each case is
// its own node process with the model client's defaults (proxy variables from process.env, Node's CA list).
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROXY_VARIABLES } from '../../agent/model/model-proxy.js';
import { type FakeConnectProxy, startFakeConnectProxy } from '../fakes/connect-proxy.js';
import { type FakeOpenAIServer, startFakeOpenAIServer, text } from '../fakes/openai-server.js';
import { makePrivateAuthority, type PrivateAuthority } from '../tools/helpers/certificate.js';

const SCRIPT = fileURLToPath(new URL('./helpers/call-model-process.ts', import.meta.url));
const TSX = createRequire(import.meta.url).resolve('tsx');

let dir: string;
let authority: PrivateAuthority;
let fake: FakeOpenAIServer;
let egress: FakeConnectProxy;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'opsbot-extra-ca-'));
  authority = await makePrivateAuthority(dir);
  fake = await startFakeOpenAIServer({ tls: authority.server });
  fake.respond(() => text('trusted'));
  egress = await startFakeConnectProxy();
});
afterAll(async () => {
  await Promise.all([fake?.close(), egress?.close()]);
  await rm(dir, { recursive: true, force: true });
});

/** Runs the model calls in a fresh node with `extra` added to a copy of this environment, without its proxies. */
async function callsInChild(extra: Record<string, string>, routes: string[]): Promise<unknown[]> {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra };
  for (const variable of PROXY_VARIABLES) delete env[variable];
  if (!extra.NODE_EXTRA_CA_CERTS) delete env.NODE_EXTRA_CA_CERTS;
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--import', TSX, SCRIPT, fake.baseURL, ...routes],
    { env, timeout: 60_000 },
  );
  return stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as unknown);
}

describe('NODE_EXTRA_CA_CERTS', () => {
  it('makes an https model behind a private CA trusted, directly and through HTTPS_PROXY; without it, it is not', async () => {
    const [trusted, untrusted] = await Promise.all([
      callsInChild({ NODE_EXTRA_CA_CERTS: authority.caPath }, ['direct', egress.url]),
      callsInChild({}, ['direct']),
    ]);
    expect(trusted).toEqual([
      { route: 'direct', content: 'trusted' },
      { route: egress.url, content: 'trusted' },
    ]);
    expect(egress.connects).toEqual([`CONNECT ${new URL(fake.baseURL).host}`]);
    expect(untrusted).toEqual([
      {
        route: 'direct',
        error: `The model "fake-model" at ${fake.baseURL} is unavailable: could not connect (UNABLE_TO_VERIFY_LEAF_SIGNATURE); its certificate's issuer is not trusted: if a private CA signed it, set NODE_EXTRA_CA_CERTS to that CA's PEM file.`,
      },
    ]);
  });
});
