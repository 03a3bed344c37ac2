// Process limits of configured commands: timeouts kill the whole group, output is capped, floods are stopped.
import { describe, expect, it } from 'vitest';
import { ToolTimeoutError } from '../../agent/tool-timeout.js';
import { commandTool } from './helpers/command-settings.js';
import { isAlive, waitUntil } from './helpers/process-state.js';
import { callTool, dataOf, testContext } from './helpers/tool-context.js';

describe('timeouts kill the whole process group', () => {
  // The shell here is the test's subject (a tree of processes), never the tool's mechanism.
  const treeSettings = (script: string) => ({
    description: 'Starts a process tree, for testing timeouts.',
    argv: ['/bin/sh', '-c', script],
    timeout: 500,
  });

  async function backgroundPid(script: string, killGraceMs: number) {
    const tool = await commandTool('process_tree', treeSettings(script), {
      allowed: ['/bin/sh'],
      killGraceMs,
    });
    const started = Date.now();
    const result = await callTool(tool, {});
    const pid = Number(String(dataOf(result).stdout).trim());
    return { result, pid, elapsed: Date.now() - started };
  }

  it('stops a forked sleep 600 with SIGTERM to the group', async () => {
    const { result, pid, elapsed } = await backgroundPid('sleep 600 & echo $!; sleep 600', 2000);
    expect(pid).toBeGreaterThan(0);
    expect(result.ok).toBe(false);
    expect(dataOf(result).timed_out).toBe(true);
    expect(result.summary).toContain('timed out');
    expect(await waitUntil(() => !isAlive(pid), 3000)).toBe(true);
    expect(elapsed).toBeLessThan(2500);
  });

  it('follows with SIGKILL after the grace period when SIGTERM is ignored', async () => {
    const { result, pid, elapsed } = await backgroundPid("trap '' TERM; sleep 600 & echo $!; wait", 300);
    expect(dataOf(result).timed_out).toBe(true);
    expect(await waitUntil(() => !isAlive(pid), 3000)).toBe(true);
    expect(elapsed).toBeGreaterThanOrEqual(750);
  });

  it('does not leave a backgrounded child behind when the command exits on its own', async () => {
    const tool = await commandTool('process_tree', treeSettings('sleep 600 > /dev/null 2>&1 & echo $!'), {
      allowed: ['/bin/sh'],
    });
    const result = await callTool(tool, {});
    expect(result.ok).toBe(true);
    const pid = Number(String(dataOf(result).stdout).trim());
    expect(await waitUntil(() => !isAlive(pid), 3000)).toBe(true);
  });

  it('honours a shorter timeout_ms and the kernel abort signal', async () => {
    const tool = await commandTool(
      'process_tree',
      { ...treeSettings('sleep 600'), timeout: 10_000 },
      { allowed: ['/bin/sh'] },
    );
    expect(() => tool.input.parse({ timeout_ms: 20_000 })).toThrow();
    const short = await callTool(tool, { timeout_ms: 200 });
    expect(dataOf(short).timed_out).toBe(true);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    const cancelled = await callTool(tool, {}, testContext({ signal: controller.signal }));
    expect(dataOf(cancelled).cancelled).toBe(true);
    expect(cancelled.summary).toContain('was cancelled');
  });

  it("times out, not cancels, when the kernel's limit (limits.tool_timeout) is the nearer one", async () => {
    const tool = await commandTool(
      'process_tree',
      { ...treeSettings('sleep 600'), timeout: 10_000 },
      { allowed: ['/bin/sh'] },
    );
    // The kernel aborts the call's signal at its deadline with a timeout, as the executor does.
    const kernel = new AbortController();
    const context = testContext({ signal: kernel.signal, deadline: Date.now() + 300, timeoutMs: 300 });
    setTimeout(() => kernel.abort(new ToolTimeoutError(300)), 300);
    const result = await callTool(tool, {}, context);
    expect(dataOf(result)).toMatchObject({ timed_out: true, cancelled: false });
    expect(result.summary).toBe(
      '`/bin/sh -c "sleep 600"` timed out after 300 ms; its whole process group was stopped.',
    );
  });
});

describe('output limits', () => {
  it('keeps head and tail with a marker when the output is over the limit', async () => {
    const tool = await commandTool(
      'count',
      { description: 'Counts to 20000, for testing.', argv: ['/usr/bin/seq', '1', '20000'] },
      {
        allowed: ['/usr/bin/seq'],
      },
    );
    const data = dataOf(await callTool(tool, {}));
    const stdout = String(data.stdout);
    expect(data.flooded).toBe(false);
    expect(data.output_truncated).toBe(true);
    expect(data.stdout_bytes).toBe(108_894);
    expect(stdout.startsWith('1\n2\n3\n')).toBe(true);
    expect(stdout.endsWith('19999\n20000\n')).toBe(true);
    expect(stdout).toMatch(
      /\[\.\.\. 43360 bytes omitted, 108894 bytes in total; showing the first 32768 and last 32766 \.\.\.\]/,
    );
    // The byte-exact tail began inside "14539\n"; its partial line is dropped, not shown as "9".
    expect(stdout).toContain('...]\n14540\n14541\n');
  });

  it('caps a 5 MB flood and stops the process', async () => {
    const tool = await commandTool(
      'count',
      { description: 'Counts far, for testing floods.', argv: ['/usr/bin/seq', '1', '750000'] },
      {
        allowed: ['/usr/bin/seq'],
      },
    );
    const result = await callTool(tool, {});
    const data = dataOf(result);
    expect(result.ok).toBe(false);
    expect(data.flooded).toBe(true);
    expect(String(data.stdout).length).toBeLessThan(70 * 1024);
    expect(String(data.stdout).startsWith('1\n2\n3\n')).toBe(true);
    expect(String(data.stdout)).toContain('bytes omitted');
    expect(result.summary).toContain('wrote more output than allowed and was stopped');
  });

  it('stops an endless flood quickly', async () => {
    const tool = await commandTool(
      'flood',
      { description: 'Prints y forever, for testing floods.', argv: ['/usr/bin/yes'], timeout: 20_000 },
      {
        allowed: ['/usr/bin/yes'],
      },
    );
    const started = Date.now();
    const data = dataOf(await callTool(tool, {}));
    expect(data.flooded).toBe(true);
    expect(data.timed_out).toBe(false);
    expect(Date.now() - started).toBeLessThan(3000);
    expect(Number(data.stdout_bytes)).toBeLessThan(5 * 1024 * 1024);
    expect(String(data.stdout)).toMatch(/^y\ny\n[\s\S]*bytes omitted[\s\S]*y\ny\n$/);
  });

  it('reports a failing exit code as not ok', async () => {
    const tool = await commandTool(
      'fail',
      { description: 'Exits with 3, for testing.', argv: ['/bin/sh', '-c', 'echo oops >&2; exit 3'] },
      {
        allowed: ['/bin/sh'],
      },
    );
    const result = await callTool(tool, {});
    expect(result.ok).toBe(false);
    expect(dataOf(result)).toMatchObject({ exit_code: 3, stderr: 'oops\n' });
    expect(result.summary).toMatch(/exited with code 3 in \d+ ms with 5 B of output\.$/);
  });
});
