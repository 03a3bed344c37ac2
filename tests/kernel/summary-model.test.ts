// Model tiering and output caps on the wire: with a summary model, the compression and patrol summaries go to it
// and the tool loop to the main model; without one, everything to the main model; each kind sends its own cap.
import { afterEach, describe, expect, it } from 'vitest';
import { createOpenAIModelClient } from '../../agent/model/model-client.js';
import { ModelOutputCapsSchema } from '../../agent/model/model-output-caps.js';
import type { Principal } from '../../agent/principal.js';
import type { RecordedRequest } from '../fakes/openai-server.js';
import { status, text, toolCalls } from '../fakes/openai-server.js';
import { alice, conversation, createHarness, type Harness, runTask } from './harness.js';

let harness: Harness;
afterEach(async () => harness?.close());

const caps = ModelOutputCapsSchema.parse({ tool_loop: 900, context_summary: 300, patrol_summary: 100 });

function client(h: Harness, model: string) {
  return createOpenAIModelClient({
    baseURL: h.fake.baseURL,
    apiKey: 'sk-test',
    model,
    timeoutMs: 2_000,
    maxRetries: 0,
    clock: h.clock,
    maxOutputTokens: caps,
  });
}

/** A kernel whose runs compress their context after a few turns; with `summaryModel`, summaries go there. */
async function tieredKernel(summaryModel: string | undefined) {
  harness = await createHarness();
  return harness.newKernel({
    model: client(harness, 'fake-model'),
    ...(summaryModel ? { summaryModel: client(harness, summaryModel) } : {}),
    contextWindow: 4000,
    compressAt: 0.5,
    limits: { maxSteps: 10, toolTimeoutMs: 200 },
  });
}

const isSummary = (request: RecordedRequest) =>
  String(request.body.messages?.[0]?.content).startsWith('Summarize');

/** Tool calls with long arguments until the sixth turn, so that the context passes the threshold. */
function scriptLongRun(h: Harness) {
  let turns = 0;
  h.fake.respond((request) => {
    if (isSummary(request)) return text('- checked hosts 1-4: all answered 200');
    turns += 1;
    if (turns >= 6) return text('done');
    return toolCalls([
      { name: 'check_http', arguments: { url: `https://host${turns}.example/${'x'.repeat(300)}` } },
    ]);
  });
}

const longTask = `investigate ${'the api latency spike '.repeat(60)}`;

const patrol: Principal = {
  platform: 'patrol',
  userId: 'api-health',
  displayName: 'patrol api-health',
  roles: ['patrol'],
  groups: [],
};
const patrolTask = {
  text: 'patrol api-health',
  principal: patrol,
  conversation: { platform: 'patrol' as const, channelId: 'api-health' },
  engine: 'checks' as const,
  plan: {
    calls: [{ id: 'chk_api', name: 'check_http', args: { url: 'https://a.example' }, rawArguments: '{}' }],
    summaryTask: 'Summarize what changed.',
  },
};

/** The model and the cap each request named, in order. */
const sent = (h: Harness) =>
  h.fake.requests.map((request) => ({
    model: request.body.model,
    max_tokens: request.body.max_tokens,
    summary: isSummary(request),
  }));

describe('a summary model', () => {
  it('writes the compression summary, with its cap; the tool loop stays on the main model, with its own', async () => {
    const kernel = await tieredKernel('small-model');
    scriptLongRun(harness);
    const run = await runTask(kernel, { text: longTask, principal: alice, conversation });
    expect(run.status).toBe('finished');
    const requests = sent(harness);
    expect(requests.filter((request) => request.summary).length).toBeGreaterThan(0);
    for (const request of requests) {
      expect(request).toEqual(
        request.summary
          ? { model: 'small-model', max_tokens: 300, summary: true }
          : { model: 'fake-model', max_tokens: 900, summary: false },
      );
    }
  });

  it("writes a patrol's summary, with the patrol cap", async () => {
    const kernel = await tieredKernel('small-model');
    harness.fake.reply(text('All fine.'));
    const run = await runTask(kernel, patrolTask);
    expect(run.answer).toContain('All fine.');
    expect(harness.fake.requests.map((request) => [request.body.model, request.body.max_tokens])).toEqual([
      ['small-model', 100],
    ]);
  });

  it('that fails costs only the summary: the patrol still answers, and the compressed run still finishes', async () => {
    const kernel = await tieredKernel('small-model');
    harness.fake.respond((request) =>
      request.body.model === 'small-model'
        ? status(404, { message: 'The model small-model does not exist.' })
        : text('unexpected'),
    );
    const checked = await runTask(kernel, patrolTask);
    expect(checked.status).toBe('finished');
    expect(checked.answer).toMatch(/All 1 checks passed\.\n\n\(No summary: the model failed/);

    let turns = 0;
    harness.fake.respond((request) => {
      if (request.body.model === 'small-model') return status(404, { message: 'no such model' });
      turns += 1;
      if (turns >= 6) return text('done');
      return toolCalls([
        { name: 'check_http', arguments: { url: `https://host${turns}.example/${'x'.repeat(300)}` } },
      ]);
    });
    const run = await runTask(kernel, { text: longTask, principal: alice, conversation });
    expect(run.status).toBe('finished');
    expect(run.answer).toBe('done');
    expect(run.events.some((event) => event.type === 'context_compressed')).toBe(true);
  });
});

describe('without a summary model', () => {
  it('the main model writes every summary, each with the cap of its kind', async () => {
    const kernel = await tieredKernel(undefined);
    scriptLongRun(harness);
    const run = await runTask(kernel, { text: longTask, principal: alice, conversation });
    expect(run.status).toBe('finished');
    const requests = sent(harness);
    expect(requests.some((request) => request.summary)).toBe(true);
    for (const request of requests) {
      expect(request).toMatchObject({ model: 'fake-model', max_tokens: request.summary ? 300 : 900 });
    }
    harness.fake.respond(undefined).reply(text('All fine.'));
    await runTask(kernel, patrolTask);
    expect(harness.fake.lastRequest!.body).toMatchObject({ model: 'fake-model', max_tokens: 100 });
  });
});

describe('a reasoning model writing a summary', () => {
  it('keeps only what follows its <think> block, in the compressed transcript and in the patrol answer', async () => {
    const kernel = await tieredKernel(undefined);
    let turns = 0;
    harness.fake.respond((request) => {
      if (isSummary(request))
        return text('<think>PONDERING the hosts</think>\n- checked hosts 1-4: all answered 200');
      turns += 1;
      if (turns >= 6) return text('done');
      return toolCalls([
        { name: 'check_http', arguments: { url: `https://host${turns}.example/${'x'.repeat(300)}` } },
      ]);
    });
    const run = await runTask(kernel, { text: longTask, principal: alice, conversation });
    expect(run.status).toBe('finished');
    const last = harness.fake.lastRequest!.rawBody;
    expect(last).toContain('checked hosts 1-4: all answered 200');
    expect(last).not.toMatch(/PONDERING|think>/);

    harness.fake.respond(undefined).reply(text('<think>PONDERING</think>\n\nAll fine.'));
    const checked = await runTask(kernel, patrolTask);
    expect(checked.answer).toMatch(/\n\nAll fine\.$/);
    expect(JSON.stringify(checked.events)).not.toContain('PONDERING');
  });
});
