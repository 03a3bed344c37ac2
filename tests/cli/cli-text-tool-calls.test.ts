// `opsbot run` with a small local model that writes its tool calls in the text: the real http_check runs against a
// local server and the run ends with what it found, in-process and through the real `opsbot` command.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type FakeOpenAIServer, startFakeOpenAIServer, text } from '../fakes/openai-server.js';
import { cliEnvironment, runCliInProcess, runCliProcess } from './cli-process.js';

let fake: FakeOpenAIServer;
let service: Server;
let requests: number;
let url: string;
let dir: string;

beforeEach(async () => {
  fake = await startFakeOpenAIServer();
  requests = 0;
  service = createServer((_request, response) => {
    requests += 1;
    response.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
  });
  await new Promise<void>((resolve) => service.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(service.address() as AddressInfo).port}/`;
  dir = mkdtempSync(join(tmpdir(), 'opsbot-cli-text-calls-'));
  writeFileSync(
    join(dir, 'opsbot.yaml'),
    [
      'permissions:',
      '  roles:',
      '    viewer: { tools: ["*"], risks: [read] }',
      '  identities:',
      "    'local:vera': { roles: [viewer], display_name: Vera }",
      'limits:',
      '  model_retries: 0',
      '',
    ].join('\n'),
  );
});
afterEach(async () => {
  await fake.close();
  await new Promise((resolve) => service.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

function environment(): NodeJS.ProcessEnv {
  return {
    OPSBOT_CONFIG: join(dir, 'opsbot.yaml'),
    OPSBOT_DATA_DIR: join(dir, 'data'),
    OPSBOT_STORE_URL: `sqlite://${join(dir, 'data', 'opsbot.sqlite')}`,
    OPENAI_BASE_URL: fake.baseURL,
    OPENAI_MODEL: 'fake-model',
  };
}

function cli(argv: string[]) {
  return runCliInProcess(argv, environment());
}

const check = () => JSON.stringify({ name: 'http_check', arguments: { url } });
const formats: [string, () => string][] = [
  ['a bare JSON object', check],
  ['a <tool_call> block', () => `<tool_call>\n${check()}\n</tool_call>`],
  ['a fenced json block', () => `I will check it.\n\`\`\`json\n${check()}\n\`\`\``],
];

describe('opsbot run with tool calls written as text', () => {
  it.each(formats)('runs the http_check given as %s and answers from its result', async (_label, content) => {
    fake.reply(text(content()), text('The service is up: it answered 200.'));
    const { code, out } = await cli(['run', 'is the service up?', '--as', 'vera']);
    expect(requests).toBe(1);
    expect(out).toMatch(/✓ http_check: GET http:\/\/127\.0\.0\.1:\d+\/ returned 200 OK/);
    expect(out).toContain('The service is up: it answered 200.');
    expect(code).toBe(0);
    const tool = fake.requests[1]?.body.messages?.find((message) => message.role === 'tool');
    expect(tool?.tool_call_id).toBe('text_call_1_1');
    expect(JSON.parse(String(tool?.content))).toMatchObject({ ok: true });
  });

  it('runs it through the real opsbot command too', async () => {
    fake.reply(text(`<tool_call>\n${check()}\n</tool_call>`), text('Up, answered 200.'));
    const result = await runCliProcess(
      ['run', 'is the service up?', '--as', 'vera'],
      cliEnvironment(environment()),
    );
    expect(requests).toBe(1);
    expect(result.stdout).toMatch(/✓ http_check: GET http:\/\/127\.0\.0\.1:\d+\/ returned 200 OK/);
    expect(result.stdout).toContain('Up, answered 200.');
    expect(result.code).toBe(0);
  });

  it('answers with text that only mentions a JSON call of a tool it was not offered, running nothing', async () => {
    const content = JSON.stringify({ name: 'restart_everything', arguments: {} });
    fake.reply(text(content));
    const { code, out } = await cli(['run', 'is the service up?', '--as', 'vera']);
    expect(requests).toBe(0);
    expect(out).toContain('restart_everything');
    expect(out).not.toContain('http_check');
    expect(code).toBe(0);
  });
});
