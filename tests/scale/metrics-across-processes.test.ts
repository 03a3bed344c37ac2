// /metrics on a gateway and a worker: each counts what it did (the gateway the runs it started, the worker the
// runs it ended and the tools it called), and both show the shared queue.
import { afterEach, describe, expect, it } from 'vitest';
import { type RecordedRequest, text, toolCalls } from '../fakes/openai-server.js';
import { freePort } from '../redis-server.js';
import { CHANNEL, type ScaleRig, startScaleRig, waitFor } from './scale-rig.js';

let rig: ScaleRig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

function model(request: RecordedRequest) {
  const messages = request.body.messages ?? [];
  if (!messages.some((message) => message.role === 'tool'))
    return toolCalls([{ name: 'system_stats', arguments: {} }]);
  return text('All fine.');
}

/** The value of one sample, e.g. `opsbot_runs_finished_total{platform="slack"}`; 0 when absent. */
function sample(metrics: string, name: string): number {
  const line = metrics.split('\n').find((candidate) => candidate.startsWith(`${name} `));
  return line ? Number(line.slice(name.length + 1)) : 0;
}

describe('/metrics across processes', () => {
  it('moves with the work: started on the gateway, finished and tools on the worker, the queue on both', async () => {
    rig = await startScaleRig();
    rig.fake.respond(model);
    await rig.start('gateway', 'gateway', { OPSBOT_METRICS: 'on' });
    const workerPort = await freePort();
    await rig.start('worker-1', 'worker', { OPSBOT_METRICS: 'on', PORT: String(workerPort) });
    const scrape = async (url: string) => {
      const response = await fetch(`${url}/metrics`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^text\/plain/);
      return response.text();
    };
    const workerUrl = `http://127.0.0.1:${workerPort}`;
    const before = await scrape(workerUrl);
    expect(sample(before, 'opsbot_runs_finished_total{platform="slack"}')).toBe(0);

    const threads: string[] = [];
    for (let task = 0; task < 5; task++) threads.push(await rig.mention(`how is the box, task ${task}`));
    const current = rig;
    const done = () =>
      threads.every((ts) =>
        current.slack.thread(CHANNEL, ts).some((message) => message.text.includes('All fine.')),
      );
    await waitFor(done, 60_000);

    // An answer reaches Slack a moment before its run's job is marked done: scrape once the queue is empty.
    let gateway = await scrape(rig.gatewayUrl);
    for (let tries = 0; !/^opsbot_queue_active 0$/m.test(gateway) && tries < 100; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      gateway = await scrape(rig.gatewayUrl);
    }
    const worker = await scrape(workerUrl);
    expect(sample(gateway, 'opsbot_runs_started_total{platform="slack"}')).toBe(5);
    expect(sample(gateway, 'opsbot_runs_finished_total{platform="slack"}')).toBe(0);
    expect(sample(worker, 'opsbot_runs_finished_total{platform="slack"}')).toBe(5);
    expect(sample(worker, 'opsbot_tool_call_duration_seconds_count{tool="system_stats",outcome="ok"}')).toBe(
      5,
    );
    expect(sample(worker, 'opsbot_model_tokens_total{kind="prompt"}')).toBeGreaterThan(0);
    for (const metrics of [gateway, worker]) {
      expect(metrics).toMatch(/^opsbot_queue_waiting 0$/m);
      expect(metrics).toMatch(/^opsbot_queue_active 0$/m);
      expect(metrics).not.toMatch(/run_[0-9a-f]{16}/);
    }
  }, 120_000);
});
