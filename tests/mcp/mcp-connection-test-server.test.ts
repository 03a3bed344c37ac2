// McpConnection against our own test server (tests/fakes/mcp/test-mcp-server.ts): a crash and its restart, a call
// that hangs, a tool list that changes, the environment allow-list, and a large result.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ManualClock } from '../../agent/clock.js';
import {
  McpConnection,
  type McpConnectionState,
  McpServerDownError,
} from '../../tools/mcp/mcp-connection.js';
import type { McpServerEndpoint } from '../../tools/mcp/mcp-endpoint.js';
import { DEFAULT_TEST_TOOLS, type TestToolFile } from '../fakes/mcp/test-mcp-tools.js';
import { ManualTimers } from '../manual-timers.js';

const SERVER = resolve('tests/fakes/mcp/test-mcp-server.ts');
const WAIT = { timeout: 20_000, interval: 25 };

let directory: string;
let toolFile: string;
const opened: McpConnection[] = [];
beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), 'mcp-test-'));
  toolFile = join(directory, 'tools.json');
  writeTools(DEFAULT_TEST_TOOLS);
});
afterEach(async () => {
  await Promise.all(opened.splice(0).map((connection) => connection.close()));
  rmSync(directory, { recursive: true, force: true });
});

function writeTools(file: TestToolFile): void {
  // The server re-reads on every change event; one that sees half a file waits for the next.
  writeFileSync(toolFile, JSON.stringify(file));
}

function testServer(options: { env?: string[]; parent?: NodeJS.ProcessEnv; timers?: ManualTimers } = {}) {
  const clock = new ManualClock();
  const timers = options.timers ?? new ManualTimers();
  const states: McpConnectionState[] = [];
  const listings: string[][] = [];
  const endpoint: McpServerEndpoint = {
    name: 'test',
    command: [process.execPath, '--import', 'tsx', SERVER],
    env: ['MCP_TEST_TOOLS', ...(options.env ?? [])],
    headers: {},
    timeoutMs: 20_000,
  };
  const connection = new McpConnection({
    endpoint,
    clock,
    timers,
    parentEnvironment: { ...(options.parent ?? process.env), MCP_TEST_TOOLS: toolFile },
    onStateChanged: (state) => states.push(state),
    onToolsChanged: (tools) => listings.push(tools.map((tool) => tool.name)),
  });
  opened.push(connection);
  return { connection, clock, timers, states, listings };
}

function textOf(result: { content: unknown[] }): string {
  return result.content.map((part) => (part as { text?: string }).text ?? '').join('');
}

describe('McpConnection with the test server', () => {
  it('goes down with "exit 1" when the server crashes, fails calls as transient meanwhile, and restarts', async () => {
    const { connection, clock, timers, states } = testServer();
    await connection.connect();
    expect(connection.state()).toEqual({ kind: 'up' });
    expect(connection.tools().find((tool) => tool.name === 'drop_table')?.annotations?.destructiveHint).toBe(
      true,
    );

    clock.advance(5_000);
    await expect(connection.call('crash', {})).rejects.toThrow(McpServerDownError);
    expect(connection.state()).toEqual({ kind: 'down', since: clock.now(), reason: 'exit 1' });
    expect(connection.stderrTail()).toContain('crashing on purpose');
    const refused = connection.call('echo', { text: 'meanwhile' });
    await expect(refused).rejects.toThrow(McpServerDownError);
    await expect(refused).rejects.toThrow(
      `MCP server test is down since ${new Date(clock.now()).toISOString()} (exit 1)`,
    );
    expect([...timers.delays.values()]).toEqual([1_000]);

    timers.fire();
    await vi.waitFor(() => expect(connection.state()).toEqual({ kind: 'up' }), WAIT);
    expect(textOf(await connection.call('echo', { text: 'back' }))).toBe('back');
    expect(states.map((state) => state.kind)).toEqual(['up', 'down', 'up']);
  });

  it('backs off 1 s, 2 s, 4 s while the server keeps failing to start, and at most 60 s', async () => {
    const timers = new ManualTimers();
    const clock = new ManualClock();
    const connection = new McpConnection({
      endpoint: {
        name: 'missing',
        command: ['/nonexistent/mcp-server'],
        env: [],
        headers: {},
        timeoutMs: 5_000,
      },
      clock,
      timers,
    });
    opened.push(connection);
    await connection.connect();
    const state = connection.state();
    expect(state.kind === 'down' && state.reason).toMatch(
      /cannot start: spawn \/nonexistent\/mcp-server ENOENT/,
    );
    const delays: number[] = [];
    for (let attempt = 0; attempt < 8; attempt++) {
      await vi.waitFor(() => expect(timers.delays.size).toBe(1), WAIT);
      delays.push(...timers.delays.values());
      timers.fire();
    }
    expect(delays).toEqual([1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 60_000, 60_000]);
  });

  it('times out a call that never answers, with a clear error, and keeps the connection', async () => {
    const { connection, timers } = testServer();
    await connection.connect();
    const hanging = connection.call('hang', {}, { timeoutMs: 1_500 });
    await vi.waitFor(() => expect([...timers.delays.values()]).toEqual([1_500]), WAIT);
    timers.fire();
    await expect(hanging).rejects.toThrow(
      'MCP server test did not answer hang within 1.5 s; the call was cancelled',
    );
    expect(connection.state()).toEqual({ kind: 'up' });
    expect(textOf(await connection.call('echo', { text: 'still here' }))).toBe('still here');
  });

  it('aborts a call when the caller signal aborts', async () => {
    const { connection } = testServer();
    await connection.connect();
    const controller = new AbortController();
    const hanging = connection.call('hang', {}, { signal: controller.signal });
    controller.abort(new Error('the run was cancelled'));
    await expect(hanging).rejects.toThrow('the run was cancelled');
    expect(connection.state()).toEqual({ kind: 'up' });
  });

  it('follows notifications/tools/list_changed with a new listing', async () => {
    const { connection, listings } = testServer();
    await connection.connect();
    expect(listings).toHaveLength(1);
    writeTools({
      tools: [{ name: 'echo', behaviour: 'echo', description: 'Now says something else' }],
    });
    await vi.waitFor(() => expect(connection.tools().map((tool) => tool.name)).toEqual(['echo']), WAIT);
    expect(connection.tools()[0]?.description).toBe('Now says something else');
    expect(listings.at(-1)).toEqual(['echo']);
  });

  it('gives the child only the allow-listed variables and the base ones', async () => {
    const parent = {
      PATH: process.env.PATH,
      HOME: '/home/opsbot',
      SHELL: '/bin/bash',
      TERM: 'xterm',
      SECRET_TOKEN: 's3cret',
      LISTED_VALUE: 'yes',
    };
    const { connection } = testServer({ env: ['LISTED_VALUE', 'SET_HERE=1'], parent });
    await connection.connect();
    const names = JSON.parse(textOf(await connection.call('env', {})));
    expect(names).toContain('LISTED_VALUE');
    expect(names).toContain('SET_HERE');
    expect(names).toContain('MCP_TEST_TOOLS');
    expect(names).not.toContain('SECRET_TOKEN');
    expect(names).not.toContain('SHELL');
    expect(names).not.toContain('TERM');
  });

  it("passes a large result through whole (capping it is the result mapping's job)", async () => {
    const { connection } = testServer();
    await connection.connect();
    const result = await connection.call('big', { bytes: 10 * 1024 * 1024 });
    expect(textOf(result)).toHaveLength(10 * 1024 * 1024);
  });

  it('is down with "closed" after close, and calls fail fast', async () => {
    const { connection } = testServer();
    await connection.connect();
    await connection.close();
    const state = connection.state();
    expect(state.kind === 'down' && state.reason).toBe('closed');
    await expect(connection.call('echo', { text: 'x' })).rejects.toThrow(McpServerDownError);
  });
});
