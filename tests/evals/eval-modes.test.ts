// The eval command's modes through its real entry point: --live against the fake OpenAI server standing in for a
// live model (through the recording proxy), --record writing a cassette, its replay in scripted mode, a stale
// cassette asking to be recorded again, pass rates over repeats, and the lock on what the model is sent.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { turnFromReply } from '../../evals/cassette.js';
import { evalCommand } from '../../evals/eval-command.js';
import { loadScenarios } from '../../evals/load-scenarios.js';
import { runScenario } from '../../evals/run-scenario.js';
import { readLock } from '../../evals/sent-lock.js';
import {
  type FakeOpenAIServer,
  type RecordedRequest,
  startFakeOpenAIServer,
  text,
  toolCalls,
} from '../fakes/openai-server.js';

let dir: string;
let fake: FakeOpenAIServer;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'opsbot-eval-modes-'));
  fake = await startFakeOpenAIServer();
});
afterEach(async () => {
  await fake.close();
  rmSync(dir, { recursive: true, force: true });
});

async function evalRun(argv: string[], env: NodeJS.ProcessEnv = {}) {
  const lines: string[] = [];
  const code = await evalCommand(
    [...argv, '--cassettes', join(dir, 'cassettes'), '--results', join(dir, 'results')],
    env,
    { out: (line) => lines.push(line), err: (line) => lines.push(line), progress: () => {} },
  );
  return { code, output: lines.join('\n') };
}

const liveEnv = () => ({ OPENAI_BASE_URL: fake.baseURL, OPENAI_MODEL: 'stand-in-model' });

/** A stand-in for a sensible live model on "is the payments API up?": it reads the team's notes for the URL. */
function sensibleModel(request: RecordedRequest) {
  const messages = request.body.messages ?? [];
  if (!messages.some((message) => message.role === 'tool')) {
    const notes = String(messages[0]?.content ?? '');
    const url = /payments: HTTP, checked at (\S+)/.exec(notes)?.[1];
    return toolCalls([{ name: 'http_check', arguments: { url: url ?? 'unknown' } }]);
  }
  return text('The payments API is up: it answered 200.', {
    usage: { promptTokens: 700, completionTokens: 12 },
  });
}

const cassetteFile = () => join(dir, 'cassettes', 'diagnosis', 'payments-api-up.yaml');

describe('npm run eval -- --live', () => {
  it('judges the live model by the scenario, records a passing run, and replays it as a scripted scenario', async () => {
    fake.respond(sensibleModel);
    const live = await evalRun(['--live', '--record', '--filter', 'payments-api-up'], liveEnv());
    expect(live.output).toMatch(/diagnosis\/payments-api-up\s+pass/);
    expect(live.output).toContain('1/1 passed (100%)');
    expect(live.code).toBe(0);
    // The proxy forwarded the real requests, with the live model's name, and kept the live usage.
    expect(fake.requests.map((request) => request.body.model)).toEqual(['stand-in-model', 'stand-in-model']);
    expect(live.output).toMatch(/payments-api-up\s+pass\s+2\s+1\s+710\s+17/);

    const cassette = parse(readFileSync(cassetteFile(), 'utf8'));
    expect(cassette).toMatchObject({ scenario: 'diagnosis/payments-api-up', model: 'stand-in-model' });
    // The world's address is stored as its placeholder, so the replay works in a new world on other ports.
    expect(cassette.turns[0].reply).toEqual({
      tool_calls: [{ name: 'http_check', args: { url: '{{http.payments.url}}' } }],
      usage: { prompt: 10, completion: 5 },
    });
    expect(cassette.turns[0].sent.tools).toContain('http_check');

    const served = fake.requests.length;
    const replay = await evalRun(['--filter', 'payments-api-up']);
    expect(replay.output).toMatch(/diagnosis\/payments-api-up\s+pass/);
    expect(replay.output).toMatch(/diagnosis\/payments-api-up \(cassette\)\s+pass/);
    expect(replay.code).toBe(0);
    expect(fake.requests.length).toBe(served);
  });

  it('fails a cassette recorded against another prompt, and asks for it to be recorded again', async () => {
    fake.respond(sensibleModel);
    expect((await evalRun(['--live', '--record', '--filter', 'payments-api-up'], liveEnv())).code).toBe(0);
    const cassette = parse(readFileSync(cassetteFile(), 'utf8'));
    cassette.turns[1].sent.system_prompt = '000000000000';
    writeFileSync(cassetteFile(), stringify(cassette));

    const replay = await evalRun(['--filter', 'payments-api-up']);
    expect(replay.code).toBe(1);
    expect(replay.output).toMatch(/payments-api-up\s+pass/);
    expect(replay.output).toContain(
      'no longer matches what the model is sent (request 2: system prompt 000000000000 → ',
    );
    expect(replay.output).toContain(
      'record it again: npm run eval -- --live --record --filter diagnosis/payments-api-up',
    );
  });

  it('reports the pass rate over repeats, and records only a passing run', async () => {
    let round = 0;
    fake.respond((request) => {
      const first = !(request.body.messages ?? []).some((message) => message.role === 'tool');
      if (first) round += 1;
      // The second time round, the model guesses instead of checking.
      if (round === 2) return text('It is probably down.');
      return sensibleModel(request);
    });
    const live = await evalRun(
      ['--live', '--record', '--repeat', '3', '--filter', 'payments-api-up'],
      liveEnv(),
    );
    expect(live.code).toBe(1);
    expect(live.output).toContain('2/3 passed (67%)');
    expect(live.output).toMatch(
      /diagnosis\/payments-api-up\s+2\/3 \(67%\)\s+first failure: expected a call to http_check/,
    );
    const cassette = parse(readFileSync(cassetteFile(), 'utf8'));
    expect(cassette.turns).toHaveLength(2);
  });

  it('skips scenarios that script a model failure, saying why, and records none for them', async () => {
    const live = await evalRun(['--live', '--record', '--filter', 'budgets/*'], liveEnv());
    expect(live.code).toBe(0);
    expect(live.output).toMatch(/budgets\/never-wraps-up\s+skip: scripts a model that never wraps up/);
    expect(live.output).toContain('0/0 passed (0%), 5 skipped');
    expect(fake.requests).toHaveLength(0);
    expect(existsSync(join(dir, 'cassettes', 'budgets'))).toBe(false);
  });

  it('says what is missing instead of running', async () => {
    const noModel = await evalRun(['--live']);
    expect(noModel.code).toBe(2);
    expect(noModel.output).toContain('--live needs the model to judge: set OPENAI_BASE_URL');
    const recordAlone = await evalRun(['--record']);
    expect(recordAlone.code).toBe(2);
    expect(recordAlone.output).toContain('--record records a live model: add --live');
  });

  it('runs as `npm run eval` does, in its own process', async () => {
    fake.respond(sensibleModel);
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        'evals/cli.ts',
        '--live',
        '--filter',
        'payments-api-up',
        '--results',
        join(dir, 'results'),
        '--cassettes',
        join(dir, 'cassettes'),
      ],
      { env: { ...process.env, ...liveEnv() }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
    });
    child.stderr.on('data', (chunk) => {
      output += chunk;
    });
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(output).toContain('live model: stand-in-model at http://127.0.0.1:');
    expect(output).toMatch(/diagnosis\/payments-api-up\s+pass/);
    expect(code).toBe(0);
  }, 60_000);
});

describe('the lock on what the model is sent', () => {
  const scenario = () => {
    const found = loadScenarios().find((candidate) => candidate.name === 'viewer-may-read');
    if (!found) throw new Error('no scenario viewer-may-read');
    return found;
  };

  it('fails a scenario whose tools offered or prompt changed, naming the change and how to accept it', async () => {
    const lock = readLock();
    const entry = lock['permissions/viewer-may-read']!;
    expect(entry[0]!.tools).not.toContain('restart_service');
    const changed = {
      ...lock,
      'permissions/viewer-may-read': [{ ...entry[0]!, tools: [...entry[0]!.tools, 'restart_service'] }],
    };
    const result = await runScenario(scenario(), { kind: 'scripted', lock: changed });
    expect(result.reasons).toEqual([
      expect.stringMatching(
        /^what the model is sent changed \(tools offered -restart_service\); .* run `npm run eval -- --update-lock`/,
      ),
    ]);
    const missing = await runScenario(scenario(), { kind: 'scripted', lock: {} });
    expect(missing.reasons).toEqual([
      'evals/sent.lock.json has no entry for permissions/viewer-may-read: run `npm run eval -- --update-lock` and commit the file',
    ]);
  });

  it('--update-lock writes what each scenario sends now', async () => {
    const lockFile = join(dir, 'sent.lock.json');
    const { code } = await evalRun(['--update-lock', '--lock', lockFile, '--filter', 'viewer-may-read']);
    expect(code).toBe(0);
    const written = JSON.parse(readFileSync(lockFile, 'utf8'));
    expect(Object.keys(written)).toEqual(['permissions/viewer-may-read']);
    expect(written['permissions/viewer-may-read']).toEqual(readLock()['permissions/viewer-may-read']);
  });
});

describe('recording a reply', () => {
  it('keeps errors, garbage and unparseable arguments as they came', () => {
    expect(turnFromReply(429, '{"error":{}}', {})).toEqual({ error_status: 429 });
    expect(turnFromReply(200, 'not json at all', {})).toEqual({ malformed_body: 'not json at all' });
    const broken = JSON.stringify({
      choices: [{ message: { tool_calls: [{ function: { name: 'tcp_check', arguments: '{"port": 54' } }] } }],
    });
    expect(turnFromReply(200, broken, {})).toEqual({
      tool_calls: [{ name: 'tcp_check', args: '{"port": 54' }],
    });
    const port = JSON.stringify({
      choices: [
        { message: { tool_calls: [{ function: { name: 'tcp_check', arguments: '{"port": 5432}' } }] } },
      ],
    });
    expect(turnFromReply(200, port, { 'tcp.db.port': '5432' })).toEqual({
      tool_calls: [{ name: 'tcp_check', args: { port: '{{tcp.db.port}}' } }],
    });
  });
});
