// disk_usage, system_stats and process_check against this machine.
import { type ChildProcess, spawn } from 'node:child_process';
import { statfs } from 'node:fs/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { createDiskUsageTool } from '../../tools/disk-usage.js';
import { createProcessCheckTool } from '../../tools/process-check.js';
import { createSystemStatsTool } from '../../tools/system-stats.js';
import { makeTempDir, removeTempDirs } from './helpers/temp-dir.js';
import { callTool, dataOf } from './helpers/tool-context.js';

const children: ChildProcess[] = [];
afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await removeTempDirs();
});

describe('disk_usage', () => {
  it('reports used, total and percent for / and a temp dir, matching statfs', async () => {
    const temp = await makeTempDir();
    const result = await callTool(createDiskUsageTool(), { paths: ['/', temp] });
    expect(result.ok).toBe(true);
    const rows = dataOf(result).rows as Record<string, unknown>[];
    expect(rows.map((row) => row.path)).toEqual(['/', temp]);
    const root = rows[0] ?? {};
    const info = await statfs('/');
    expect(root.total_bytes).toBe(info.blocks * info.bsize);
    expect(root.mount).toBe('/');
    expect(Number(root.percent)).toBeGreaterThanOrEqual(0);
    expect(Number(root.percent)).toBeLessThanOrEqual(100);
    expect(Number(root.used_bytes)).toBeLessThanOrEqual(Number(root.total_bytes));
    expect(typeof root.used).toBe('string');
    expect(typeof rows[1]?.mount).toBe('string');
    expect(result.summary).toMatch(/^\/ is [\d.]+% full, [\d.]+ \S+ of [\d.]+ \S+;/);
  });

  it('fails for a missing path and above max_percent', async () => {
    const missing = await callTool(createDiskUsageTool(), { paths: ['/nonexistent/opsbot'] });
    expect(missing.ok).toBe(false);
    expect((dataOf(missing).rows as { error: string }[])[0]?.error).toContain('ENOENT');
    const full = await callTool(createDiskUsageTool(), { paths: ['/'], max_percent: 0 });
    expect(full.ok).toBe(false);
    expect(full.summary).toContain('Above 0%: /.');
    expect(() => createDiskUsageTool().input.parse({ paths: ['relative/path'] })).toThrow();
  });
});

describe('system_stats', () => {
  it('reports load, CPUs, memory, swap and uptime', async () => {
    const result = await callTool(createSystemStatsTool(), {});
    expect(result.ok).toBe(true);
    const data = dataOf(result) as {
      load: { one: number };
      cpus: number;
      memory: { total_bytes: number; used_bytes: number; percent: number };
      swap: { total_bytes: number } | null;
      uptime_seconds: number;
    };
    expect(data.cpus).toBeGreaterThan(0);
    expect(data.load.one).toBeGreaterThanOrEqual(0);
    expect(data.memory.total_bytes).toBeGreaterThan(data.memory.used_bytes);
    expect(data.memory.percent).toBeGreaterThan(0);
    expect(data.uptime_seconds).toBeGreaterThan(0);
    expect(result.summary).toMatch(/^Load [\d.]+\/[\d.]+\/[\d.]+ on \d+ CPUs?, memory [\d.]+% used/);
  });
});

describe('process_check', () => {
  it('finds a sleep child by name and by command-line pattern, with pid, CPU, memory and start time', async () => {
    const child = spawn('sleep', ['987.654'], { stdio: 'ignore' });
    children.push(child);
    await new Promise((resolve) => child.once('spawn', resolve));
    const byName = await callTool(createProcessCheckTool(), { name: 'sleep', max_results: 200 });
    expect(byName.ok).toBe(true);
    const rows = dataOf(byName).processes as Record<string, unknown>[];
    const mine = rows.find((row) => row.pid === child.pid);
    expect(mine).toMatchObject({ name: 'sleep', ppid: process.pid, command: 'sleep 987.654' });
    expect(Number(mine?.memory_bytes)).toBeGreaterThan(0);
    expect(Math.abs(Date.parse(String(mine?.started_at)) - Date.now())).toBeLessThan(60_000);

    const byPattern = await callTool(createProcessCheckTool(), { pattern: 'sleep 987\\.654$' });
    expect((dataOf(byPattern).processes as { pid: number }[]).map((row) => row.pid)).toEqual([child.pid]);
    expect(byPattern.summary).toMatch(
      new RegExp(`^1 process matching /sleep 987\\\\.654\\$/: pid ${child.pid} \\(`),
    );
  });

  it('supports expect=absent, and refuses catastrophic patterns', async () => {
    const absent = await callTool(createProcessCheckTool(), {
      name: 'no-such-process-opsbot',
      expect: 'absent',
    });
    expect(absent.ok).toBe(true);
    expect(absent.summary).toBe('No process named "no-such-process-opsbot" is running, as expected.');
    const missing = await callTool(createProcessCheckTool(), { name: 'no-such-process-opsbot' });
    expect(missing.ok).toBe(false);
    const unsafe = await callTool(createProcessCheckTool(), { pattern: '(a+)+$' });
    expect(unsafe.ok).toBe(false);
    expect(unsafe.summary).toContain('nested repetition');
    expect(() => createProcessCheckTool().input.parse({})).toThrow(/give a name, a pattern, or both/);
  });
});
