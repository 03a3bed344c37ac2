// `npm start` as a person runs it: settings that would be silently ignored are said out loud in the start-up log,
// and SIGTERM stops the parts in order, each once, the store last.
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { startServerProcess } from './server-process.js';

const MAIN = fileURLToPath(new URL('../../bot/main.ts', import.meta.url));
const TSX = createRequire(import.meta.url).resolve('tsx');

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('npm start', () => {
  it('warns that OPENAI_MODEL alone uses no model, runs the command engine, and stops in order on SIGTERM', async () => {
    dir = mkdtempSync(join(tmpdir(), 'opsbot-start-'));
    const { child, done, output } = startServerProcess(['--import', TSX, MAIN], dir, {
      OPENAI_MODEL: 'qwen2.5:7b-instruct',
    });
    try {
      const log = await output.until(/OPENAI_MODEL=qwen2\.5:7b-instruct is set, but neither/);
      expect(log).toMatch(/model: +none configured \(command engine only/);
      expect(log.match(/model: /g)).toHaveLength(1);
      // Not a terminal, so JSON lines: level 40 is a warning.
      expect(log).toMatch(
        /"level":40[^\n]*OPENAI_MODEL=qwen2\.5:7b-instruct is set, but neither OPENAI_BASE_URL nor OPENAI_API_KEY/,
      );
    } finally {
      child.kill('SIGTERM');
    }
    const ended = await done;
    expect(ended.code).toBe(0);
    const stopped = [...ended.stdout.matchAll(/shutdown: stopping ([^"]+)"/g)].map((match) => match[1]);
    expect(stopped).toEqual([
      'settings marker',
      'patrols',
      'expiry sweep',
      'recovery sweep',
      'HTTP server',
      'playground',
      'cluster',
      'store epoch',
      'kernel',
      'store_writes',
      'store',
    ]);
    expect(ended.stdout).toMatch(/shutdown: complete/);
  });
});
