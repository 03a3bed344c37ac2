// A typed command whose output passes the run's output cap is still shown as a table in the terminal, as the
// chat shows it: not as one raw line of cut JSON.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCliInProcess } from './cli-process.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'opsbot-cli-table-'));
  mkdirSync(join(dir, 'logs'));
  const lines = Array.from(
    { length: 300 },
    (_, index) =>
      `2026-12-04T01:${String(index % 60).padStart(2, '0')}:00Z ERROR api request ${index} failed: upstream timeout after 3000 ms`,
  );
  writeFileSync(join(dir, 'logs', 'api.log'), `${lines.join('\n')}\n`);
  writeFileSync(join(dir, 'opsbot.yaml'), `tools:\n  log_roots: [${join(dir, 'logs')}]\n`);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('a long typed command result in the terminal', () => {
  it('is a table under its summary', async () => {
    const { code, out } = await runCliInProcess(
      ['run', `log_search glob=${join(dir, 'logs')}/*.log pattern=ERROR`],
      { OPSBOT_CONFIG: join(dir, 'opsbot.yaml'), OPSBOT_DATA_DIR: join(dir, 'data'), LOG_LEVEL: 'error' },
    );
    expect(code).toBe(0);
    expect(out).toMatch(/✔ Found 100 lines matching "ERROR" in 1 file/);
    expect(out).toMatch(/file\s+line\s+line_from_end\s+timestamp\s+text/);
    expect(out).not.toContain('"matches":[');
    expect(out).not.toContain('characters truncated');
  });
});
