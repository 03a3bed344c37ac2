// The summary model through the real `opsbot` process: config check names both models and where the summary one
// came from, and asks the server for it; a patrol's summary goes to it with the configured cap.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type FakeOpenAIServer, startFakeOpenAIServer, text } from '../fakes/openai-server.js';
import { cliEnvironment, runCliProcess } from './cli-process.js';

let fake: FakeOpenAIServer;
let dir: string;

beforeEach(async () => {
  fake = await startFakeOpenAIServer({ models: ['fake-model', 'small-model'] });
  dir = mkdtempSync(join(tmpdir(), 'opsbot-cli-tiering-'));
});
afterEach(async () => {
  await fake.close();
  rmSync(dir, { recursive: true, force: true });
});

function settings(model: string[] = []): string {
  const path = join(dir, 'opsbot.yaml');
  writeFileSync(
    path,
    [
      'limits:',
      '  model_retries: 0',
      ...(model.length > 0 ? ['model:', ...model.map((line) => `  ${line}`)] : []),
      'patrols:',
      '  api:',
      "    schedule: '*/5 * * * *'",
      '    channel: playground:ops',
      '    task: Say what changed.',
      '    checks:',
      `      - { id: models, tool: http_check, args: { url: '${fake.baseURL}/models' } }`,
      '',
    ].join('\n'),
  );
  return path;
}

function env(config: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return cliEnvironment({
    OPSBOT_CONFIG: config,
    OPSBOT_DATA_DIR: join(dir, 'data'),
    OPSBOT_STORE_URL: `sqlite://${join(dir, 'data', 'opsbot.sqlite')}`,
    OPENAI_BASE_URL: fake.baseURL,
    OPENAI_MODEL: 'fake-model',
    ...extra,
  });
}

describe('opsbot config check with a summary model', () => {
  it('names both models and the variable the summary one came from, and asks the server for each', async () => {
    const check = await runCliProcess(
      ['config', 'check'],
      env(settings(['summary: other-model']), { OPENAI_SUMMARY_MODEL: 'small-model' }),
    );
    expect(check.stdout).toContain(
      `model: fake-model at ${fake.baseURL}; summaries: small-model (from OPENAI_SUMMARY_MODEL, over model.summary: other-model)`,
    );
    expect(check.stdout).toContain(`✔ model "fake-model" at ${fake.baseURL} is reachable and available`);
    expect(check.stdout).toContain(`✔ model "small-model" at ${fake.baseURL} is reachable and available`);
    expect(check.code).toBe(0);
  });

  it('names the settings key when the model comes from there, and fails on a model the server lacks', async () => {
    const check = await runCliProcess(['config', 'check'], env(settings(['summary: tiny-model'])));
    expect(check.stdout).toContain(`summaries: tiny-model (from model.summary)`);
    expect(check.stdout).toContain(`✘ the server at ${fake.baseURL} answers, but has no model "tiny-model"`);
    expect(check.code).toBe(1);
  });

  it('says the main model writes the summaries when none is set', async () => {
    const check = await runCliProcess(['config', 'check'], env(settings()));
    expect(check.stdout).toContain(`model: fake-model at ${fake.baseURL}; summaries: the main model`);
    expect(check.code).toBe(0);
  });
});

describe('a patrol run with a summary model', () => {
  it("sends the patrol's summary to the summary model, with the configured cap", async () => {
    fake.reply(text('Nothing changed.'));
    const run = await runCliProcess(
      ['patrol', 'run', 'api'],
      env(settings(['max_output_tokens: { patrol_summary: 128 }']), { OPENAI_SUMMARY_MODEL: 'small-model' }),
    );
    expect(run.stdout).toContain('Nothing changed.');
    const completions = fake.requests.filter((request) => request.path.endsWith('/chat/completions'));
    expect(completions.map((request) => [request.body.model, request.body.max_tokens])).toEqual([
      ['small-model', 128],
    ]);
  });
});
