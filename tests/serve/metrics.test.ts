// GET /metrics against the whole bot (`serve`, real HTTP, the fake model): off by default, Prometheus text when
// on, counters that move with a run and its tool call, no ids in the labels, and the token off the loopback.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type Serving, serve } from '../../bot/serve.js';
import { FakeOpenAIServer, text, toolCalls } from '../fakes/openai-server.js';

const TOKEN = '941a58f128ecfd69e85e2e56de1fd485cafc03bf';

let serving: Serving | undefined;
let model: FakeOpenAIServer | undefined;
const dirs: string[] = [];
afterEach(async () => {
  await serving?.stop();
  await model?.close();
  serving = undefined;
  model = undefined;
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function environment(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const dir = mkdtempSync(join(tmpdir(), 'opsbot-metrics-'));
  dirs.push(dir);
  return {
    PORT: '0',
    HOST: '127.0.0.1',
    OPSBOT_DATA_DIR: dir,
    OPSBOT_STORE_URL: `sqlite://${join(dir, 'opsbot.sqlite')}`,
    LOG_LEVEL: 'silent',
    ...extra,
  };
}

/** The value of one sample line, `name{labels} value`, or 0 when the series is not there yet. */
function sample(metrics: string, series: string): number {
  const line = metrics.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
}

async function scrape(url: string, headers: Record<string, string> = {}): Promise<string> {
  const response = await fetch(`${url}/metrics`, { headers });
  expect(response.status).toBe(200);
  return response.text();
}

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('GET /metrics', () => {
  it('is not served unless OPSBOT_METRICS=on', async () => {
    serving = await serve({ env: environment({ OPSBOT_PLAYGROUND: 'off' }), argv: [] });
    expect((await fetch(`${serving.url}/metrics`)).status).toBe(404);
  });

  it('is not served by the playground, which takes every other path, when off', async () => {
    serving = await serve({ env: environment(), argv: [] });
    const response = await fetch(`${serving.url}/metrics`);
    expect(response.status).toBe(404);
    expect(await response.text()).not.toContain('opsbot_');
  });

  it('answers in Prometheus text format, and its counters move with a run and its tool call', async () => {
    model = await new FakeOpenAIServer().listen();
    model.reply(
      toolCalls([{ name: 'disk_usage', arguments: { paths: ['/'] } }], {
        usage: { promptTokens: 120, completionTokens: 30 },
      }),
      text('The root disk has room.', { usage: { promptTokens: 200, completionTokens: 12 } }),
    );
    serving = await serve({
      env: environment({ OPSBOT_METRICS: 'on', OPENAI_BASE_URL: model.baseURL, OPENAI_MODEL: 'fake' }),
      argv: [],
    });
    const response = await fetch(`${serving.url}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const before = await response.text();
    expect(before).toContain('# TYPE opsbot_runs_finished_total counter');
    expect(before).toContain('# TYPE opsbot_tool_call_duration_seconds histogram');
    expect(before).toContain('opsbot_process_cpu_user_seconds_total');
    expect(sample(before, 'opsbot_queue_waiting')).toBe(0);
    expect(sample(before, 'opsbot_approvals_waiting')).toBe(0);

    const posted = await fetch(`${serving.url}/api/channels/ops/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ user: 'alice', clientId: 'client-metrics', text: '@opsbot how full is /?' }),
    });
    expect(posted.status).toBeLessThan(300);
    const url = serving.url;
    const after = await until(
      () => scrape(url),
      (metrics) => sample(metrics, 'opsbot_runs_finished_total{platform="playground"}') >= 1,
      'the run to finish',
    );
    expect(sample(after, 'opsbot_runs_started_total{platform="playground"}')).toBe(1);
    expect(sample(after, 'opsbot_runs_finished_total{platform="playground"}')).toBe(1);
    expect(sample(after, 'opsbot_run_duration_seconds_count{platform="playground",status="finished"}')).toBe(
      1,
    );
    expect(sample(after, 'opsbot_tool_call_duration_seconds_count{tool="disk_usage",outcome="ok"}')).toBe(1);
    expect(sample(after, 'opsbot_model_request_duration_seconds_count{outcome="ok"}')).toBe(2);
    expect(sample(after, 'opsbot_model_tokens_total{kind="prompt"}')).toBe(320);
    expect(sample(after, 'opsbot_model_tokens_total{kind="completion"}')).toBe(42);
    expect(sample(after, 'opsbot_queue_active')).toBe(0);

    // Labels name platforms, states and tools, never a run, a person or a thread.
    const history = await (await fetch(`${url}/api/channels/ops/messages`)).text();
    const runIds = [...new Set(history.match(/run_[0-9a-f]{8,}/g) ?? [])];
    expect(runIds.length).toBeGreaterThan(0);
    for (const runId of runIds) expect(after).not.toContain(runId);
    expect(after).not.toMatch(/alice/i);
    expect(after).not.toContain('client-metrics');
  });

  it('counts waits for people from the Store, and refused tool calls apart from failed ones', async () => {
    model = await new FakeOpenAIServer().listen();
    model.reply(
      toolCalls([{ name: 'restart_service', arguments: { service: 'api' } }]),
      toolCalls([{ name: 'ask_user', arguments: { question: 'Which disk do you mean?' } }]),
      toolCalls([{ name: 'restart_service', arguments: { service: 'api' } }]),
      text('I may not restart services; ask an operator.'),
    );
    serving = await serve({
      env: environment({ OPSBOT_METRICS: 'on', OPENAI_BASE_URL: model.baseURL, OPENAI_MODEL: 'fake' }),
      argv: [],
    });
    const url = serving.url;
    const say = async (user: string, words: string) => {
      const posted = await fetch(`${url}/api/channels/ops/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ user, clientId: `client-${user}`, text: `@opsbot ${words}` }),
      });
      expect(posted.status).toBeLessThan(300);
    };
    await say('alice', 'restart the api');
    await until(
      () => scrape(url),
      (metrics) => sample(metrics, 'opsbot_approvals_waiting') === 1,
      'the approval to wait',
    );
    await say('alice', 'check the disk');
    const waiting = await until(
      () => scrape(url),
      (metrics) => sample(metrics, 'opsbot_questions_waiting') === 1,
      'the question to wait',
    );
    expect(sample(waiting, 'opsbot_approvals_waiting')).toBe(1);
    await say('carol', 'restart the api');
    const refused = await until(
      () => scrape(url),
      (metrics) => sample(metrics, 'opsbot_runs_finished_total{platform="playground"}') === 1,
      "carol's run to finish",
    );
    expect(
      sample(refused, 'opsbot_tool_call_duration_seconds_count{tool="restart_service",outcome="refused"}'),
    ).toBe(1);
    expect(sample(refused, 'opsbot_runs_started_total{platform="playground"}')).toBe(3);
    expect(sample(refused, 'opsbot_approvals_waiting')).toBe(1);
    expect(sample(refused, 'opsbot_questions_waiting')).toBe(1);
    expect(sample(refused, 'opsbot_store_errors_total')).toBe(0);
  });

  describe('bound outside the loopback', () => {
    it('needs the playground token as a bearer token', async () => {
      serving = await serve({
        env: environment({ HOST: '0.0.0.0', OPSBOT_METRICS: 'on', OPSBOT_PLAYGROUND_TOKEN: TOKEN }),
        argv: [],
      });
      const url = serving.url.replace('0.0.0.0', '127.0.0.1');
      const none = await fetch(`${url}/metrics`);
      expect(none.status).toBe(401);
      expect(((await none.json()) as { error: string }).error).toMatch(/Authorization: Bearer/);
      const wrong = await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}x` } });
      expect(wrong.status).toBe(401);
      const playgroundHeader = await fetch(`${url}/metrics`, { headers: { 'x-opsbot-token': TOKEN } });
      expect(playgroundHeader.status).toBe(401);
      const metrics = await scrape(url, { authorization: `Bearer ${TOKEN}` });
      expect(metrics).toContain('# TYPE opsbot_runs_started_total counter');
      expect(metrics).not.toContain(TOKEN);
    });

    it('refuses to start without a token, naming OPSBOT_METRICS', async () => {
      await expect(
        serve({
          env: environment({ HOST: '0.0.0.0', OPSBOT_METRICS: 'on', OPSBOT_PLAYGROUND: 'off' }),
          argv: [],
        }),
      ).rejects.toThrow(/OPSBOT_METRICS[\s\S]*OPSBOT_PLAYGROUND_TOKEN/);
    });
  });
});
