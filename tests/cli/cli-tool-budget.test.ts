// A tool's budget through `opsbot run` against the fake model and a real HTTP server: past limits.tool_budgets the
// model is refused in words it acts on, answers, and the run ends finished and ok; a budget for a tool that does
// not exist stops start-up, naming the key.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type FakeOpenAIServer, startFakeOpenAIServer, text, toolCalls } from '../fakes/openai-server.js';
import { runCliInProcess } from './cli-process.js';

let fake: FakeOpenAIServer;
let dir: string;
let service: Server;
let hits: number;
let baseUrl: string;

function writeSettings(budgets: string[]) {
  writeFileSync(
    join(dir, 'opsbot.yaml'),
    [
      'permissions:',
      '  roles:',
      '    operator: { tools: ["*"], risks: [read, write, danger], write_without_approval: true }',
      '  identities:',
      "    'local:olive': { roles: [operator], display_name: Olive }",
      'limits:',
      '  model_retries: 1',
      '  model_timeout: 1s',
      ...budgets,
      '',
    ].join('\n'),
  );
}

beforeEach(async () => {
  fake = await startFakeOpenAIServer();
  dir = mkdtempSync(join(tmpdir(), 'opsbot-cli-budget-'));
  hits = 0;
  service = createServer((_request, response) => {
    hits += 1;
    response.writeHead(200).end('ok');
  });
  await new Promise<void>((resolve) => service.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(service.address() as AddressInfo).port}`;
});
afterEach(async () => {
  await fake.close();
  await new Promise((resolve) => service.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

function cli(argv: string[]) {
  return runCliInProcess(argv, {
    OPSBOT_CONFIG: join(dir, 'opsbot.yaml'),
    OPSBOT_DATA_DIR: join(dir, 'data'),
    OPSBOT_STORE_URL: `sqlite://${join(dir, 'data', 'opsbot.sqlite')}`,
    OPENAI_BASE_URL: fake.baseURL,
    OPENAI_MODEL: 'fake-model',
  });
}

const check = (path: string) => toolCalls([{ name: 'http_check', arguments: { url: `${baseUrl}${path}` } }]);

describe('opsbot run and a tool budget', () => {
  it('refuses http_check past its budget; the model answers and the run ends finished and ok', async () => {
    writeSettings(['  tool_budgets:', '    calls: { http_check: 2 }']);
    fake.reply(check('/a'), check('/b'), check('/c'), check('/d'), text('/a and /b answer 200.'));
    const { code, out } = await cli(['run', 'check every path', '--as', 'olive']);

    expect(hits).toBe(2);
    const refusals = fake.requests[4]?.body.messages
      ?.filter((message) => message.role === 'tool')
      .map((message) => JSON.parse(String(message.content)))
      .filter((content) => content.error?.class === 'refused_by_policy');
    expect(refusals?.map((content) => content.error.message)).toEqual([
      'http_check has used its 2 calls in this run (limits.tool_budgets.calls.http_check); use another tool or answer with what you know.',
      'http_check has used its 2 calls in this run (limits.tool_budgets.calls.http_check); use another tool or answer with what you know.',
    ]);
    expect(out).toContain('/a and /b answer 200.');
    expect(out).toMatch(/run run_[0-9a-f]+: finished\b/);
    expect(out).not.toMatch(/with a problem/);
    expect(out).not.toMatch(/Note: /);
    expect(code).toBe(0);

    const traces = join(dir, 'data', 'traces');
    const trace = readdirSync(traces)
      .map((file) => readFileSync(join(traces, file), 'utf8'))
      .join('')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(trace.filter((record) => record.kind === 'tool_budget_spent')).toHaveLength(2);
  });

  it('stops start-up on a budget for a tool that does not exist, naming the key and the closest tool', async () => {
    writeSettings(['  tool_budgets:', '    calls:', '      htp_check: 5']);
    const { code, out } = await cli(['run', 'check', '--as', 'olive']);
    expect(code).not.toBe(0);
    expect(out).toContain('limits.tool_budgets.calls.htp_check');
    expect(out).toMatch(
      /a budget for the tool "htp_check", which does not exist \(did you mean "http_check"\?\)/,
    );
    expect(fake.requests).toHaveLength(0);
  });
});
