// `opsbot audit` through the real CLI entry: filters by time, run, person, tool and kind, and patrol runs that
// changed nothing folded into one line, while a run that changed something is listed in full.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type AuditEntryInput, AuditLog } from '../../agent/policy/audit-log.js';
import { openStore } from '../../agent/store/open-store.js';
import { runCliInProcess } from './cli-process.js';

let dir: string;
const HOUR = 3_600_000;
const start = Date.now() - 3 * HOUR;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'opsbot-cli-audit-'));
  const store = await openStore(`sqlite://${join(dir, 'opsbot.sqlite')}`);
  const audit = new AuditLog(store);
  const patrol = { key: 'patrol:disk', displayName: 'patrol disk' };
  const alice = { key: 'local:alice', displayName: 'Alice', surface: 'playground' as const };
  const lines: AuditEntryInput[] = [];
  // Ten runs of patrol disk a minute apart: the first passes, the 2nd–6th repeat it, the 7th fails, the rest
  // repeat the failure.
  for (let run = 1; run <= 10; run++) {
    const outcome = run < 7 ? 'ok' : 'failed';
    const at = start + run * 60_000;
    lines.push(
      { at, kind: 'request', actor: patrol, runId: `run_p${run}`, reason: 'patrol disk' },
      { at, kind: 'outcome', actor: patrol, runId: `run_p${run}`, tool: 'disk_usage', outcome },
    );
  }
  lines.push(
    {
      at: start + 2 * HOUR,
      kind: 'refusal',
      actor: alice,
      runId: 'run_a1',
      tool: 'restart_service',
      outcome: 'permission_denied',
    },
    {
      at: start + 2 * HOUR,
      kind: 'outcome',
      actor: alice,
      runId: 'run_a1',
      tool: 'check_http',
      outcome: 'ok',
    },
  );
  for (const line of lines) await audit.record(line);
  await store.close();
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const audit = (...args: string[]) =>
  runCliInProcess(['audit', ...args], {
    OPSBOT_STORE_URL: `sqlite://${join(dir, 'opsbot.sqlite')}`,
    OPSBOT_DATA_DIR: dir,
    LOG_LEVEL: 'error',
  });

describe('opsbot audit', () => {
  it('folds patrol runs that repeat the run before, and lists the runs that changed something', async () => {
    const { code, out: stdout } = await audit();
    expect(code).toBe(0);
    for (const run of ['run_p1', 'run_p7', 'run_a1']) expect(stdout).toContain(run);
    for (const run of ['run_p2', 'run_p6', 'run_p8', 'run_p10']) expect(stdout).not.toContain(run);
    expect(stdout).toContain('… 5 more runs of patrol disk with the same outcomes as the run before');
    expect(stdout).toContain('… 3 more runs of patrol disk with the same outcomes as the run before');
  });

  it('lists every line with --all', async () => {
    const { out: stdout } = await audit('--all');
    for (let run = 1; run <= 10; run++) expect(stdout).toContain(`run_p${run} `);
    expect(stdout).not.toContain('more runs of patrol');
  });

  it('filters by person, tool, kind, run and time', async () => {
    const byWho = await audit('--who', 'alice');
    expect(byWho.out).toContain('run_a1');
    expect(byWho.out).not.toContain('run_p1');
    const byTool = await audit('--tool', 'restart_*');
    expect(byTool.out.trim().split('\n')).toHaveLength(2);
    expect(byTool.out).toContain('permission_denied');
    const byKind = await audit('--kind', 'refusal', '--json');
    expect(
      byKind.out
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line).kind),
    ).toEqual(['refusal']);
    const byRun = await audit('--run', 'run_p7', '--json');
    expect(byRun.out.trim().split('\n')).toHaveLength(2);
    const recent = await audit('--since', '2h', '--json');
    expect(
      recent.out
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line).runId),
    ).toEqual(['run_a1', 'run_a1']);
  });

  it('says which kinds there are for a kind it does not know, with the nearest', async () => {
    const { code, out: stderr } = await audit('--kind', 'refusals');
    expect(code).toBe(2);
    expect(stderr).toContain('--kind "refusals" is not an audit kind');
    expect(stderr).toContain('refusal');
  });

  it('says when entries exist but none match', async () => {
    const { out: stdout } = await audit('--who', 'nobody');
    expect(stdout).toBe('No audit entries match.\n');
  });
});
