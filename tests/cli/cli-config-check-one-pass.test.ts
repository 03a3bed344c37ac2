// `opsbot config check` names every problem of a file in one pass: a schema error does not hide what the tool
// checks find in the valid parts; a misspelt patrol argument is said as one, with the nearest name; and a valid
// file's summary lists its patrols, alerts and MCP servers.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCliInProcess } from './cli-process.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'opsbot-config-check-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function check(lines: string[]) {
  writeFileSync(join(dir, 'opsbot.yaml'), `${lines.join('\n')}\n`);
  return runCliInProcess(['config', 'check'], {
    OPSBOT_CONFIG: join(dir, 'opsbot.yaml'),
    OPSBOT_DATA_DIR: join(dir, 'data'),
    LOG_LEVEL: 'error',
  });
}

const patrol = [
  'patrols:',
  '  disk:',
  "    schedule: '*/5 * * * *'",
  '    channel: playground:ops',
  '    checks:',
];

describe('opsbot config check', () => {
  it('reports a schema error, a misspelt check argument and an unknown check tool at once', async () => {
    const { code, out } = await check([
      'limits:',
      '  max_stepz: 5',
      ...patrol,
      "      - { id: d, tool: disk_usage, args: { pathz: ['/'] } }",
      '      - { id: x, tool: no_such_tool }',
    ]);
    expect(code).toBe(2);
    expect(out).toContain('has 3 problems');
    expect(out).toContain('limits.max_stepz (line 2): unknown key (did you mean "max_steps"?)');
    expect(out).toContain(
      'patrols.disk.checks[0].args.pathz (line 8): check "d" of patrol disk: disk_usage takes no argument "pathz" (did you mean "paths"?)',
    );
    expect(out).toContain(
      'patrols.disk.checks[1].tool (line 9): check "x" of patrol disk names the tool "no_such_tool"',
    );
  });

  it('lists the patrols, alerts and MCP servers of a valid file', async () => {
    const { code, out } = await check([
      ...patrol,
      "      - { id: d, tool: disk_usage, args: { paths: ['/'] } }",
    ]);
    expect(out).toContain('✔ settings OK');
    expect(out).toContain('patrols: disk (*/5 * * * *, playground:ops, 1 check)');
    expect(out).toContain('alerts: none (no alerts.channel)');
    expect(out).toContain('MCP servers: none');
    expect(code).toBe(0);
  });
});
