// log_search on a 200 MB log made in the test: it reads the tail, not the whole file into memory.
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogSearchTool } from '../../tools/log-search.js';
import { makeTempDir, removeTempDirs } from './helpers/temp-dir.js';
import { callTool, dataOf } from './helpers/tool-context.js';

const FILE_BYTES = 200 * 1024 * 1024;
const START = Date.UTC(2026, 0, 15, 0, 0, 0);
const MB = 1024 * 1024;
let root: string;
let totalLines = 0;
const needleLines: number[] = [];
/** A needle far from the end, so reaching it means a long backward scan. */
const MIDDLE_NEEDLE = 524_288;

/** One 200-byte line; line numbers are 1-based and a line is one 10 ms tick after the last. */
function line(number: number, needle: boolean): string {
  const time = new Date(START + number * 10).toISOString();
  const text = `${time} INFO ${needle ? 'NEEDLE found' : 'request ok  '} id=${String(number).padStart(9, '0')} path=/api/v1/items status=200`;
  return `${text.padEnd(199, '.')}\n`;
}

beforeAll(async () => {
  root = await makeTempDir();
  // Written in 4 MB chunks, never built in memory whole.
  const handle = await open(join(root, 'big.log'), 'w');
  try {
    let written = 0;
    while (written < FILE_BYTES) {
      const lines: string[] = [];
      for (let bytes = 0; bytes < 4 * MB && written + bytes < FILE_BYTES; bytes += 200) {
        totalLines += 1;
        // A few needles at the very end, one in the middle.
        const needle =
          totalLines === MIDDLE_NEEDLE || (totalLines > FILE_BYTES / 200 - 1000 && totalLines % 250 === 0);
        if (needle) needleLines.push(totalLines);
        lines.push(line(totalLines, needle));
      }
      const chunk = lines.join('');
      await handle.write(chunk);
      written += chunk.length;
    }
  } finally {
    await handle.close();
  }
}, 60_000);

afterAll(removeTempDirs);

function memory() {
  const usage = process.memoryUsage();
  return { rss: usage.rss, heap: usage.heapUsed + usage.external + usage.arrayBuffers };
}

describe('log_search on a 200 MB file', () => {
  it('finds the newest matches by reading only the tail, with exact absolute line numbers', async () => {
    const tool = createLogSearchTool({ roots: [root] });
    const before = memory();
    const started = performance.now();
    const result = await callTool(tool, { glob: 'big.log', pattern: 'NEEDLE', max_lines: 3 });
    const elapsed = performance.now() - started;
    const after = memory();

    expect(result.ok).toBe(true);
    const matches = dataOf(result).matches as { line: number; line_from_end: number; text: string }[];
    const newest = needleLines.slice(-3).reverse();
    expect(matches.map((match) => match.line)).toEqual(newest);
    expect(matches.map((match) => match.line_from_end)).toEqual(
      newest.map((number) => totalLines - number + 1),
    );
    expect(matches[0]?.text).toContain(`id=${String(newest[0]).padStart(9, '0')}`);

    const [file] = dataOf(result).files as {
      size_bytes: number;
      bytes_read: number;
      bytes_counted: number;
    }[];
    expect(file?.size_bytes).toBe(FILE_BYTES);
    // The search itself read well under 1 MB from the end; line numbers came from a streaming count.
    expect(file?.bytes_read).toBeLessThan(MB);
    expect(file?.bytes_counted).toBeGreaterThan(FILE_BYTES - MB);
    expect(after.rss - before.rss).toBeLessThan(40 * MB);
    expect(after.heap - before.heap).toBeLessThan(40 * MB);
    expect(elapsed).toBeLessThan(5_000);
  });

  it('stops at since without reading further back', async () => {
    const now = START + totalLines * 10;
    const tool = createLogSearchTool({ roots: [root], now: () => now });
    const before = memory();
    const result = await callTool(tool, { glob: 'big.log', pattern: 'NEEDLE', since: '5s', max_lines: 100 });
    const after = memory();
    const matches = dataOf(result).matches as { line: number }[];
    // 5 s is the last 500 lines, which hold the needles at multiples of 250 among them.
    expect(matches.map((match) => match.line)).toEqual(
      needleLines.filter((number) => number > totalLines - 500).reverse(),
    );
    const [file] = dataOf(result).files as { bytes_read: number; stopped_at: string }[];
    expect(file?.stopped_at).toBe('since');
    expect(file?.bytes_read).toBeLessThan(MB);
    expect(after.rss - before.rss).toBeLessThan(40 * MB);
  });

  it('stops at the work budget, keeping the newest matches with exact line numbers', async () => {
    const tool = createLogSearchTool({ roots: [root], workBudgetBytes: 8 * MB });
    const result = await callTool(tool, { glob: 'big.log', pattern: 'NEEDLE', max_lines: 1000 });
    expect(result.ok).toBe(false);
    expect(result.summary).toContain(
      'The search stopped early: the work budget of 8.0 MiB read was used up.',
    );
    const matches = dataOf(result).matches as { line: number }[];
    expect(matches.map((match) => match.line)).toEqual(
      needleLines.filter((number) => number !== MIDDLE_NEEDLE).reverse(),
    );
    const [file] = dataOf(result).files as { bytes_read: number; stopped_at: string }[];
    expect(file?.stopped_at).toBe('work_budget');
    expect(file?.bytes_read).toBeLessThan(9 * MB);
  });

  it('stops at its time limit and never reports a wrong line number', async () => {
    const tool = createLogSearchTool({ roots: [root] });
    // The middle needle forces a long backward scan; a small budget ends it honestly.
    const result = await callTool(tool, {
      glob: 'big.log',
      pattern: 'NEEDLE',
      max_lines: 1000,
      timeout_ms: 300,
    });
    const matches = dataOf(result).matches as { line: number | null; line_from_end: number }[];
    expect(result.ok).toBe(false);
    expect(result.summary).toContain('stopped early');
    expect(matches.length).toBeGreaterThan(0);
    for (const match of matches) {
      if (match.line !== null) expect(match.line).toBe(totalLines - match.line_from_end + 1);
    }
  });
});
