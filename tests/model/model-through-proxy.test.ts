// The real model client through a CONNECT proxy on 127.0.0.1, as behind a corporate egress proxy: https and
// http models, NO_PROXY, and a proxy that is down or says no.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ErrorCode, SystemError } from '../../agent/errors.js';
import { createOpenAIModelClient, type OpenAIModelClientOptions } from '../../agent/model/model-client.js';
import { type FakeConnectProxy, startFakeConnectProxy } from '../fakes/connect-proxy.js';
import { type FakeOpenAIServer, startFakeOpenAIServer, text } from '../fakes/openai-server.js';
import { makePrivateAuthority, type PrivateAuthority } from '../tools/helpers/certificate.js';

let dir: string;
let authority: PrivateAuthority;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'opsbot-model-proxy-'));
  authority = await makePrivateAuthority(dir);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const closing: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(closing.splice(0).map((one) => one.close()));
});

async function model(tls: boolean): Promise<FakeOpenAIServer> {
  const fake = await startFakeOpenAIServer(tls ? { tls: authority.server } : {});
  closing.push(fake);
  return fake;
}

async function proxy(options?: Parameters<typeof startFakeConnectProxy>[0]): Promise<FakeConnectProxy> {
  const started = await startFakeConnectProxy(options);
  closing.push(started);
  return started;
}

function client(fake: FakeOpenAIServer, proxyEnv: OpenAIModelClientOptions['proxyEnv']) {
  return createOpenAIModelClient({
    baseURL: fake.baseURL,
    model: 'fake-model',
    timeoutMs: 5_000,
    maxRetries: 0,
    proxyEnv,
    ca: authority.ca,
  });
}

const ask = { messages: [{ role: 'user' as const, content: 'is the api up?' }], tools: [] };

function authorityOf(fake: FakeOpenAIServer): string {
  return new URL(fake.baseURL).host;
}

async function failure(promise: Promise<unknown>): Promise<SystemError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(SystemError);
  return error as SystemError;
}

describe('the model client through a proxy', () => {
  it('reaches an https model through HTTPS_PROXY, one tunnel kept for the next call', async () => {
    const fake = await model(true);
    const egress = await proxy();
    fake.reply(text('up'), text('still up'));
    const modelClient = client(fake, { HTTPS_PROXY: egress.url });
    expect(modelClient.proxy).toEqual({ url: egress.url, variable: 'HTTPS_PROXY' });
    expect((await modelClient.complete(ask)).content).toBe('up');
    await new Promise((resolve) => setImmediate(resolve));
    expect((await modelClient.complete(ask)).content).toBe('still up');
    expect(egress.connects).toEqual([`CONNECT ${authorityOf(fake)}`]);
    expect(fake.requests).toHaveLength(2);
  });

  it('reaches an http model through HTTP_PROXY, tunnelled with CONNECT too', async () => {
    const fake = await model(false);
    const egress = await proxy();
    fake.reply(text('up'));
    const modelClient = client(fake, { HTTP_PROXY: egress.url, HTTPS_PROXY: 'http://127.0.0.1:1' });
    expect(modelClient.proxy).toEqual({ url: egress.url, variable: 'HTTP_PROXY' });
    expect((await modelClient.complete(ask)).content).toBe('up');
    expect(egress.seen.map((one) => one.line)).toEqual([`CONNECT ${authorityOf(fake)}`]);
  });

  it('goes straight to a host NO_PROXY names', async () => {
    const fake = await model(true);
    const egress = await proxy();
    fake.reply(text('direct'));
    const modelClient = client(fake, { HTTPS_PROXY: egress.url, NO_PROXY: 'localhost,127.0.0.1' });
    expect(modelClient.proxy).toBeUndefined();
    expect((await modelClient.complete(ask)).content).toBe('direct');
    expect(egress.seen).toEqual([]);
  });

  it('sends the credentials in the proxy URL, and never shows them', async () => {
    const fake = await model(true);
    const egress = await proxy({ authorization: `Basic ${Buffer.from('alice:s3cret').toString('base64')}` });
    fake.reply(text('up'));
    const withLogin = egress.url.replace('//', '//alice:s3cret@');
    const modelClient = client(fake, { https_proxy: withLogin });
    expect(modelClient.proxy).toEqual({ url: egress.url.replace('//', '//***@'), variable: 'https_proxy' });
    expect((await modelClient.complete(ask)).content).toBe('up');

    const wrong = await failure(client(fake, { https_proxy: egress.url }).complete(ask));
    expect(wrong.message).toContain(`the proxy ${egress.url} (from https_proxy) refused to connect to it`);
    expect(wrong.message).toContain('CONNECT answered 407 Proxy Authentication Required');
    expect(wrong.message).toContain('give its user and password in https_proxy');
  });

  it('names the proxy when it is down, in the retries said and in the failure', async () => {
    const fake = await model(true);
    const egress = await proxy();
    await egress.close();
    const retries: string[] = [];
    const modelClient = createOpenAIModelClient({
      baseURL: fake.baseURL,
      model: 'fake-model',
      timeoutMs: 5_000,
      maxRetries: 1,
      proxyEnv: { HTTPS_PROXY: egress.url },
    });
    const error = await failure(
      modelClient.complete({ ...ask, onRetry: (retry) => retries.push(retry.problem) }),
    );
    expect(retries).toEqual([`could not reach ${fake.baseURL} through the proxy ${egress.url}`]);
    expect(error.code).toBe(ErrorCode.ModelUnavailable);
    expect(error.message).toBe(
      `The model "fake-model" at ${fake.baseURL} is unavailable: could not connect through the proxy ${egress.url} (from HTTPS_PROXY) (ECONNREFUSED) after 2 attempts.`,
    );
    expect(fake.requests).toHaveLength(0);
  });

  it('names the proxy and what it answered when it refuses the tunnel', async () => {
    const fake = await model(true);
    const egress = await proxy({ refuseWith: 403 });
    const error = await failure(client(fake, { HTTPS_PROXY: egress.url }).complete(ask));
    expect(error.code).toBe(ErrorCode.ModelUnavailable);
    expect(error.message).toBe(
      `The model "fake-model" at ${fake.baseURL} is unavailable: the proxy ${egress.url} (from HTTPS_PROXY) refused to connect to it (CONNECT answered 403 Forbidden).`,
    );
    expect(egress.connects).toEqual([`CONNECT ${authorityOf(fake)}`]);
    expect(fake.requests).toHaveLength(0);
  });
});
