// A hung HTTP target through the real `opsbot run`, with garbage collection forced in that process: the check
// fails at its timeout (exit 1, "timed out after 1.5 s"), never "did not run" after the kernel's minute, and
// limits.tool_timeout bounds it whatever the tool's own default is.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type HungServer, startHungServer } from '../tools/helpers/hung-server.js';
import { cliEnvironment, runCliProcess } from './cli-process.js';

const FORCE_GC = fileURLToPath(new URL('../fixtures/force-gc.mjs', import.meta.url));

let dir: string;
let hung: HungServer;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'opsbot-cli-hung-'));
  hung = await startHungServer();
});
afterEach(async () => {
  await hung.close();
  rmSync(dir, { recursive: true, force: true });
});

/** `opsbot run <task>` with these settings, no model, and gc() every 50 ms in the opsbot process. */
async function runUnderGc(task: string, settings: string[]) {
  writeFileSync(join(dir, 'opsbot.yaml'), [...settings, ''].join('\n'));
  const env = cliEnvironment({
    OPSBOT_CONFIG: join(dir, 'opsbot.yaml'),
    OPSBOT_DATA_DIR: join(dir, 'data'),
    OPSBOT_STORE_URL: `sqlite://${join(dir, 'data', 'opsbot.sqlite')}`,
    NODE_OPTIONS: `--expose-gc --import ${FORCE_GC}`,
  });
  const started = performance.now();
  const result = await runCliProcess(['run', task], env);
  return { ...result, output: result.stdout + result.stderr, elapsedMs: performance.now() - started };
}

describe('opsbot run against a hung HTTP target', () => {
  it('fails at the timeout_ms asked for: exit 1, "timed out after 1.5 s"', async () => {
    const url = `http://127.0.0.1:${hung.port}/`;
    const { code, output } = await runUnderGc(`http_check url=${url} timeout_ms=1500`, []);
    expect(hung.accepted()).toBe(1);
    expect(output).toContain(`✘ GET ${url} failed: it timed out after 1.5 s.`);
    expect(output).not.toContain('did not run');
    expect(code).toBe(1);
  }, 60_000);

  it('is bounded by limits.tool_timeout (1 s) below the tool\'s own 10 s default: "timed out after 1 s"', async () => {
    const url = `http://127.0.0.1:${hung.port}/`;
    const { code, output } = await runUnderGc(`http_check url=${url}`, ['limits:', '  tool_timeout: 1s']);
    expect(output).toContain(`✘ GET ${url} failed: it timed out after 1 s.`);
    expect(output).not.toContain('did not run');
    expect(code).toBe(1);
    // The call's own time, as the CLI prints it beside the step: about 1 s, not the tool's 10 s.
    const callMs = Number(/✗ http_check: .* (\d+) ms/.exec(output)?.[1]);
    expect(callMs).toBeGreaterThanOrEqual(900);
    expect(callMs).toBeLessThan(5_000);
  }, 60_000);
});
