// Attack: a command's output is padded so that the head/tail cap cuts a token in two. The half next to the cut
// matches no redaction shape, so it showed (issue 27 item 9); checked on the command's result and in every sink.
import { mkdir, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redactor } from '../../agent/redaction.js';
import { createHttpCheckTool } from '../../tools/http-check.js';
import { SHOWN_LINE_CHARS } from '../../tools/log-file-search.js';
import { createLogSearchTool } from '../../tools/log-search.js';
import { createNetworkGuard } from '../../tools/network-guard.js';
import { ToolSettingsSchema } from '../../tools/tool-settings-schema.js';
import { type FakeOpenAIServer, startFakeOpenAIServer, text, toolCalls } from '../fakes/openai-server.js';
import { commandTool } from '../tools/helpers/command-settings.js';
import { makeTempDir, removeTempDirs } from '../tools/helpers/temp-dir.js';
import { callTool, dataOf } from '../tools/helpers/tool-context.js';
import { type SinkRig, startSinkRig } from './helpers/sink-rig.js';

/** 1024 bytes per stream: the first 512 and the last 512 are kept. */
const LIMIT = 1024;
const HALF = LIMIT / 2;

const SECRETS = {
  slack: 'xoxb-2412345678901-2412345678902-Zq8LmN4pR7sT1vW3yB6dF9hK',
  jwt: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhbGljZSIsInJvbGUiOiJhZG1pbiJ9.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U',
  dbPassword: 'Tr0ub4dor-and-3-horses-go',
  github: 'ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789',
  google: 'AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q',
};

function lines(prefix: string, bytes: number): string {
  let out = '';
  for (let index = 0; out.length < bytes; index++) out += `${prefix} ${index}\n`;
  return out;
}

/**
 * Output whose kept tail starts `into` characters into `line`: the start of the line (and before it, padding)
 * falls in the dropped middle, and the rest of it opens the tail.
 */
function cutAtTailStart(line: string, into: number): string {
  const padding = lines('padding line', 3 * LIMIT);
  const rest = line.length - into + 1; // the rest of the line and its newline
  const trailer = 'x'.repeat(HALF - rest - 1);
  return `${padding}${line}\n${trailer}\n`;
}

/** Output whose kept head ends `into` characters into `line`. */
function cutAtHeadEnd(line: string, into: number): string {
  const before = lines('boot', HALF - 40);
  const filler = 'y'.repeat(HALF - before.length - into - 1);
  return `${before}${filler}\n${line}\n${lines('padding line', 3 * LIMIT)}`;
}

/** Every 8-character piece of `secret`: none may show, whichever part of it the cut left. */
function expectNoPiece(shown: string, secret: string, where: string): void {
  for (let start = 0; start + 8 <= secret.length; start++) {
    const piece = secret.slice(start, start + 8);
    expect(shown.includes(piece), `${where} shows ${piece} of ${secret}`).toBe(false);
  }
}

const CASES: Array<[name: string, output: string, secret: string]> = [
  ['a Slack token cut at the tail start', cutAtTailStart(`token ${SECRETS.slack}`, 12), SECRETS.slack],
  ['a JWT cut before its signature', cutAtTailStart(`auth ${SECRETS.jwt}`, 70), SECRETS.jwt],
  [
    'DB_PASSWORD cut after its name',
    cutAtTailStart(`DB_PASSWORD=${SECRETS.dbPassword}`, 8),
    SECRETS.dbPassword,
  ],
  ['a GitHub token cut at the tail start', cutAtTailStart(`gh ${SECRETS.github}`, 10), SECRETS.github],
  ['a GitHub token cut at the head end', cutAtHeadEnd(`gh ${SECRETS.github}`, 20), SECRETS.github],
  ['a Google API key cut at the head end', cutAtHeadEnd(`maps ${SECRETS.google}`, 30), SECRETS.google],
];

const redactor = new Redactor();
let dir: string;
beforeAll(async () => {
  dir = await makeTempDir();
});
afterAll(removeTempDirs);

describe('attack: a token cut by the output cap', () => {
  CASES.forEach(([name, output, secret], index) => {
    it(`attack: ${name} shows no part of it`, async () => {
      const file = join(dir, `case-${index}.txt`);
      await writeFile(file, output);
      const tool = await commandTool(
        'show_file',
        { description: 'Prints a file, for testing.', argv: ['/usr/bin/cat', file] },
        { allowed: ['/usr/bin/cat'], outputLimitBytes: LIMIT },
      );
      const data = dataOf(redactor.redactValue(await callTool(tool, {})));
      expect(data.output_truncated).toBe(true);
      const stdout = String(data.stdout);
      expectNoPiece(stdout, secret, 'stdout');
      // What is kept still reads as whole lines around the marker.
      expect(stdout).toMatch(
        /\n\[\.\.\. \d+ bytes omitted, \d+ bytes in total; showing the first \d+ and last \d+ \.\.\.\]\n/,
      );
    });
  });
});

describe('attack: a token cut where a tool shortens what it shows', () => {
  it('attack: a long log line cut inside a token shows no part of it', async () => {
    const root = join(dir, 'logs');
    await mkdir(root, { recursive: true });
    const line = `${'x '.repeat((SHOWN_LINE_CHARS - 20) / 2)}gh ${SECRETS.github} and more after it`;
    await writeFile(join(root, 'app.log'), `${line}\n`);
    const tool = createLogSearchTool({ roots: [root] });
    const result = redactor.redactValue(await callTool(tool, { glob: '*.log', pattern: 'more' }));
    const [match] = dataOf(result).matches as { text: string; truncated: boolean }[];
    expect(match?.truncated).toBe(true);
    expectNoPiece(JSON.stringify(result), SECRETS.github, 'log_search');
  });

  it("attack: http_check's body excerpt cut inside a token shows no part of it", async () => {
    const body = `${'ok '.repeat(160)}token ${SECRETS.github} then the rest of the page`;
    const server = createServer((_request, response) => response.end(body));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const tool = createHttpCheckTool({ guard: createNetworkGuard(ToolSettingsSchema.parse({}).network) });
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
      const result = redactor.redactValue(await callTool(tool, { url }));
      expect(String(dataOf(result).body_excerpt)).toMatch(/^ok ok .*…$/);
      expectNoPiece(JSON.stringify(result), SECRETS.github, 'http_check');
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('attack: a token cut by the output cap, in every sink', () => {
  let model: FakeOpenAIServer;
  let rig: SinkRig;
  const [, output, secret] = CASES[0] as [string, string, string];

  beforeAll(async () => {
    model = await startFakeOpenAIServer();
    rig = await startSinkRig(model, output, { outputLimitBytes: LIMIT });
    model.reply(toolCalls([{ name: 'show_config', arguments: {} }]), text('Read the config.'));
    await rig.say('alice', '@opsbot show the config');
    await rig.settled();
  }, 30_000);

  afterAll(async () => {
    await rig?.stop();
    await model?.close();
  });

  it('attack: the rest of the token reaches no model request, chat message, run record or trace', async () => {
    const toolMessage = JSON.stringify(model.requests[1]?.body.messages?.at(-1));
    expect(toolMessage).toContain('bytes omitted');
    expectNoPiece(
      JSON.stringify(model.requests.map((request) => request.body)),
      secret,
      'the model requests',
    );
    const page = await (await fetch(`${rig.url}/api/channels/ops/messages`)).text();
    expectNoPiece(page, secret, 'the chat');
    expectNoPiece(JSON.stringify(rig.live.events), secret, 'the SSE stream');
    const runIds = new Set((await rig.opsbot.audit.list()).map((entry) => entry.runId));
    for (const runId of runIds)
      if (runId) expectNoPiece(JSON.stringify(await rig.opsbot.kernel.get(runId)), secret, 'the run record');
    expect(rig.filesOnDisk().traces).toContain('show_config');
    expectNoPiece(rig.filesOnDisk().traces, secret, 'the trace files');
    expectNoPiece(rig.filesOnDisk().store, secret, 'the store on disk');
  });
});
