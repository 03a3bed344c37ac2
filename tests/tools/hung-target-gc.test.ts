// A hung target fails at the call's timeout even while garbage collection runs: the deadline is a timer the
// call owns (Node 20 can collect an AbortSignal.timeout() inside AbortSignal.any(), and then never aborts).
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { type HungServer, startHungServer } from './helpers/hung-server.js';

const FORCE_GC = fileURLToPath(new URL('../fixtures/force-gc.mjs', import.meta.url));
const CHECKS = fileURLToPath(new URL('../fixtures/hung-target-checks.ts', import.meta.url));

let hung: HungServer | undefined;
afterEach(async () => {
  await hung?.close();
  hung = undefined;
});

interface CheckLine {
  tool: string;
  elapsedMs: number;
  result: { ok: boolean; summary: string; data?: Record<string, unknown> };
}

function runChecks(port: number): Promise<{ code: number | null; lines: CheckLine[]; stderr: string }> {
  const child = spawn(
    process.execPath,
    ['--expose-gc', '--import', FORCE_GC, '--import', 'tsx', CHECKS, String(port)],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) =>
      resolve({
        code,
        stderr,
        lines: stdout
          .split('\n')
          .filter(Boolean)
          .map((line) => JSON.parse(line) as CheckLine),
      }),
    );
  });
}

describe('a hung target under forced garbage collection', () => {
  it('fails http_check and tls_certificate at their timeout_ms, worded "timed out after 1.5 s"', async () => {
    hung = await startHungServer();
    const { code, lines, stderr } = await runChecks(hung.port);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(lines.map((line) => line.tool)).toEqual(['http_check', 'tls_certificate']);
    expect(hung.accepted()).toBe(2);
    for (const line of lines) {
      expect(line.result.ok).toBe(false);
      expect(line.result.summary).toContain('timed out after 1.5 s');
      // At its timeout, not never: well under the minute a lost timer left it to the kernel's limit.
      expect(line.elapsedMs).toBeGreaterThanOrEqual(1400);
      expect(line.elapsedMs).toBeLessThan(8_000);
    }
  }, 30_000);
});
