// `opsbot config check`'s MCP section through the real CLI entry, against our own test MCP server over stdio, a
// server that cannot start and a SQLite store: each tool's risk and its source, the pin state, a down server and a
// stray `risk:` key as warnings (exit 0, as the bot still starts), and no pin recorded by looking.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../agent/store/sqlite-database.js';
import { runCli } from '../../bot/cli/main.js';
import { DEFAULT_TEST_TOOLS } from '../fakes/mcp/test-mcp-tools.js';

const SERVER = resolve('tests/fakes/mcp/test-mcp-server.ts');

let dir: string;

function settings(servers: string[]): string {
  return [
    'permissions:',
    '  roles:',
    '    admin: { tools: ["*"], approve: ["*"], admin: true }',
    '  identities:',
    "    'local:operator': { roles: [admin], display_name: Olive }",
    'mcp:',
    '  servers:',
    ...servers,
    '',
  ].join('\n');
}

function testServer(risk: string): string[] {
  return [
    '    test:',
    `      command: ${JSON.stringify([process.execPath, '--import', 'tsx', SERVER])}`,
    `      env: ${JSON.stringify([`MCP_TEST_TOOLS=${join(dir, 'tools.json')}`])}`,
    '      timeout: 20s',
    '      tools:',
    '        exclude: [hang]',
    `        risk: ${risk}`,
  ];
}

const goneServer = ['    gone:', '      command: [<dir>/no-such-mcp-server]', '      timeout: 5s'];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'opsbot-mcp-config-check-'));
  writeFileSync(join(dir, 'tools.json'), JSON.stringify(DEFAULT_TEST_TOOLS));
  writeFileSync(join(dir, 'opsbot.yaml'), settings(testServer('{ big: read }')));
  writeFileSync(
    join(dir, 'with-down.yaml'),
    settings([...testServer('{ big: read }'), ...goneServer.map((line) => line.replace('<dir>', dir))]),
  );
  writeFileSync(join(dir, 'stray-risk.yaml'), settings(testServer('{ big: read, ehco: read }')));
  writeFileSync(join(dir, 'no-mcp.yaml'), settings(['    {}']).replace('mcp:\n  servers:\n    {}', ''));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

async function cli(argv: string[], config = 'opsbot.yaml', storeUrl?: string) {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const stdin = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (chunk) => {
    out += chunk;
  });
  stderr.on('data', (chunk) => {
    err += chunk;
  });
  stdin.end();
  const env = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    OPSBOT_CONFIG: join(dir, config),
    OPSBOT_DATA_DIR: join(dir, 'data'),
    OPSBOT_STORE_URL: storeUrl ?? `sqlite://${join(dir, 'data', 'opsbot.sqlite')}`,
    LOG_LEVEL: 'error',
    NO_COLOR: '1',
  };
  const code = await runCli(argv, { env, stdout, stderr, stdin, interactive: false });
  return { code, out, err };
}

/** The row of a tool in the MCP section's table. */
function row(out: string, name: string): string {
  const found = out.split('\n').find((line) => line.trim().startsWith(`${name} `));
  if (found === undefined) throw new Error(`no row for ${name} in:\n${out}`);
  return found.trim().replace(/\s+/g, ' ');
}

/** A port nothing listens on: one the system gave out, closed again. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  await new Promise((done) => server.close(done));
  return port;
}

/** The store's keys that hold MCP pins, read from the SQLite file itself. */
function pinKeys(): string[] {
  const db = openDatabase(join(dir, 'data', 'opsbot.sqlite'), { readOnly: true });
  try {
    const rows = db.prepare("SELECT key FROM keyv WHERE key LIKE '%mcp-pins:%'").all() as Array<{
      key: string;
    }>;
    return rows.map((found) => found.key);
  } finally {
    db.close();
  }
}

describe('opsbot config check with MCP servers', () => {
  it("shows each server up and each tool's risk, where it came from and its pin state", async () => {
    const { code, out } = await cli(['config', 'check']);
    expect(code).toBe(0);
    expect(out).toContain('✔ MCP server test: up, 6 tools');
    expect(out).toMatch(/^ {4}tool +risk +risk from +pin$/m);
    expect(row(out, 'test__echo')).toBe(
      'test__echo read readOnlyHint trusted at first sight (no pins yet: pinned as listed when opsbot connects)',
    );
    expect(row(out, 'test__drop_table')).toMatch(/^test__drop_table danger destructiveHint trusted/);
    expect(row(out, 'test__big')).toMatch(/^test__big read settings trusted/);
    expect(row(out, 'test__crash')).toMatch(/^test__crash write default trusted/);
    expect(row(out, 'test__hang')).toBe('test__hang write default left out by include/exclude');
    expect(out).not.toContain('⚠');
  });

  it('records no pin: the store holds no mcp-pins: key afterwards, though trusting the tools would', async () => {
    expect((await cli(['config', 'check'])).code).toBe(0);
    expect(pinKeys()).toEqual([]);
    // The same look at the store finds pins once they are recorded: the check above can fail.
    expect((await cli(['mcp', 'trust', 'test'])).code).toBe(0);
    expect(pinKeys()).toEqual([expect.stringContaining('mcp-pins:test')]);
    const checked = await cli(['config', 'check']);
    expect(row(checked.out, 'test__echo')).toMatch(
      /^test__echo read readOnlyHint trusted \(by local:operator, /,
    );
  });

  it('shows a changed tool as changed, held back, with what to run', async () => {
    expect((await cli(['mcp', 'trust', 'test'])).code).toBe(0);
    const tools = DEFAULT_TEST_TOOLS.tools.map((tool) =>
      tool.name === 'echo' ? { ...tool, description: 'Answers with its text, and more' } : tool,
    );
    writeFileSync(join(dir, 'tools.json'), JSON.stringify({ tools }));
    const { code, out } = await cli(['config', 'check']);
    expect(code).toBe(0);
    expect(row(out, 'test__echo')).toBe('test__echo read readOnlyHint changed: description (held back)');
    expect(out).toContain(
      '⚠ MCP server test: 1 tool held back until an admin trusts them: opsbot mcp diff test',
    );
  });

  it('warns about a server that is down, says what to do, shows the rest, and exits 0', async () => {
    const { code, out } = await cli(['config', 'check'], 'with-down.yaml');
    expect(code).toBe(0);
    expect(out).toContain('✔ MCP server test: up, 6 tools');
    const warning = out.split('\n').find((line) => line.startsWith('⚠ MCP server gone is down: '));
    expect(warning).toBeDefined();
    expect(warning).toContain('no-such-mcp-server');
    expect(warning).toContain(
      'opsbot would still start, without its tools until the server answers (it is tried again with backoff)',
    );
    expect(warning).toContain('Fix mcp.servers.gone');
    expect(warning).toContain('then run opsbot config check again');
  });

  it('warns about a risk: key naming a tool the server does not list, with a did-you-mean', async () => {
    const { code, out } = await cli(['config', 'check'], 'stray-risk.yaml');
    expect(code).toBe(0);
    expect(out).toContain(
      '⚠ mcp.servers.test.tools.risk names "ehco", which test does not list (did you mean "echo"?); ' +
        'it lists: echo, crash, hang, big',
    );
    expect(row(out, 'test__echo')).toMatch(/^test__echo read readOnlyHint /);
  });

  it('says the pin state is unknown when the store cannot be opened, and still shows the risks', async () => {
    const { code, out } = await cli(
      ['config', 'check'],
      'opsbot.yaml',
      `redis://127.0.0.1:${await closedPort()}`,
    );
    // The store being unusable is what config check exits 1 for; the MCP section is still there.
    expect(code).toBe(1);
    expect(out).toMatch(/^✘ store unreachable: Redis store at redis:\/\/127\.0\.0\.1:\d+ could not connect/m);
    expect(out).not.toContain('store: memory');
    expect(row(out, 'test__echo')).toBe('test__echo read readOnlyHint unknown (store not opened)');
    expect(row(out, 'test__big')).toBe('test__big read settings unknown (store not opened)');
    expect(row(out, 'test__hang')).toBe('test__hang write default left out by include/exclude');
    expect(out).toContain('⚠ MCP pins: unknown (store not opened)');
  });

  it("accepts a budget for an MCP tool (its server's tools are not built, only looked at), not a misspelt one", async () => {
    const budget = (tool: string) =>
      `${settings(testServer('{ big: read }'))}limits:\n  tool_budgets:\n    calls: { ${tool}: 3 }\n`;
    writeFileSync(join(dir, 'budget.yaml'), budget('test__echo'));
    writeFileSync(join(dir, 'bad-budget.yaml'), budget('http_chek'));
    expect((await cli(['config', 'check'], 'budget.yaml')).code).toBe(0);
    const bad = await cli(['config', 'check'], 'bad-budget.yaml');
    expect(bad.code).toBe(2);
    expect(bad.err).toContain(
      'a budget for the tool "http_chek", which does not exist (did you mean "http_check"?)',
    );
  });

  it('has no MCP section when mcp.servers names no server', async () => {
    const { code, out } = await cli(['config', 'check'], 'no-mcp.yaml');
    expect(code).toBe(0);
    // The summary says there are none; no server is inspected.
    expect(out).toContain('MCP servers: none');
    expect(out).not.toContain('MCP server ');
    expect(out).not.toContain('MCP pins');
  });
});
