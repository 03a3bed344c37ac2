// log_search on real files under a temp root: ordering, line numbers, since, patterns and every path refusal.
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Tool } from '../../agent/tool.js';
import { createLogSearchTool } from '../../tools/log-search.js';
import { makeTempDir, removeTempDirs } from './helpers/temp-dir.js';
import { callTool, dataOf } from './helpers/tool-context.js';

const NOW = Date.UTC(2026, 0, 15, 12, 0, 0);
const SECRET = 'TOP-SECRET-OUTSIDE-THE-ROOT';
let root: string;
let outside: string;
let tool: Tool;

interface Match {
  file: string;
  line: number | null;
  line_from_end: number;
  timestamp: string | null;
  text: string;
  truncated: boolean;
}

const matchesOf = (result: Awaited<ReturnType<typeof callTool>>) => dataOf(result).matches as Match[];
const iso = (minute: number, second = 0) =>
  new Date(Date.UTC(2026, 0, 15, 11, minute, second)).toISOString().replace('.000Z', 'Z');

beforeAll(async () => {
  const base = await makeTempDir();
  root = join(base, 'logs');
  outside = join(base, 'outside');
  await mkdir(join(root, 'nginx'), { recursive: true });
  await mkdir(outside);
  await writeFile(join(outside, 'secret.log'), `${iso(59)} ERROR ${SECRET}\n`);

  // app.log: one line a minute from 11:00 to 11:59, an ERROR every 10 minutes followed by a stack trace line.
  const app: string[] = [];
  for (let minute = 0; minute < 60; minute += 1) {
    if (minute % 10 === 5) {
      app.push(`${iso(minute)} ERROR payment failed order=${minute}`);
      app.push('    at charge (payments.js:42)');
    } else {
      app.push(`${iso(minute)} INFO request ok id=${minute}`);
    }
  }
  await writeFile(join(root, 'app.log'), `${app.join('\n')}\n`);
  await writeFile(
    join(root, 'nginx', 'access.log'),
    [
      '10.0.0.1 - - [15/Jan/2026:11:50:30 +0000] "GET /api HTTP/1.1" 502 12 "-" "curl"',
      '10.0.0.2 - - [15/Jan/2026:11:57:30 +0000] "GET /api HTTP/1.1" 200 12 "-" "curl"',
    ].join('\n'),
  );
  await writeFile(join(root, 'windows.log'), `${iso(1)} ERROR crlf one\r\n${iso(2)} INFO crlf two\r\n`);
  await writeFile(join(root, 'long.log'), `${iso(3)} ERROR ${'y'.repeat(20_000)}\n`);
  await writeFile(join(root, 'regex.log'), `${'a'.repeat(3000)}\n`);
  await symlink(join(outside, 'secret.log'), join(root, 'escape.log'));
  await symlink(outside, join(root, 'linkdir'));
  tool = createLogSearchTool({ roots: [root], now: () => NOW });
});

afterAll(removeTempDirs);

describe('log_search finds lines', () => {
  it('returns matches newest first with file, absolute line number, line from end and timestamp', async () => {
    const result = await callTool(tool, { glob: 'app.log', pattern: 'ERROR' });
    expect(result.ok).toBe(true);
    const matches = matchesOf(result);
    expect(matches.map((match) => match.text)).toEqual(
      [55, 45, 35, 25, 15, 5].map((minute) => `${iso(minute)} ERROR payment failed order=${minute}`),
    );
    // Line numbers: each ERROR adds a stack line, so "minute 55" is line 55 + 5 earlier stack lines + 1.
    expect(matches[0]).toMatchObject({
      file: join(root, 'app.log'),
      line: 61,
      line_from_end: 6,
      timestamp: `${iso(55).slice(0, -1)}.000Z`,
    });
    expect(matches.at(-1)).toMatchObject({ line: 6, line_from_end: 61 });
    expect(dataOf(result).complete).toBe(true);
    expect(result.summary).toBe(
      `Found 6 lines matching "ERROR" in 1 file, newest first (latest ${iso(55).slice(0, -1)}.000Z).`,
    );
  });

  it('with since, stops at the first older line and keeps lines without timestamps', async () => {
    const result = await callTool(tool, { glob: 'app.log', pattern: 'payment', since: '20m' });
    const matches = matchesOf(result);
    expect(matches.map((match) => match.text)).toEqual([
      '    at charge (payments.js:42)',
      `${iso(55)} ERROR payment failed order=55`,
      '    at charge (payments.js:42)',
      `${iso(45)} ERROR payment failed order=45`,
    ]);
    expect(matches[0]).toMatchObject({ line: 62, timestamp: null });
    const files = dataOf(result).files as { stopped_at: string; lines_scanned: number }[];
    expect(files[0]?.stopped_at).toBe('since');
    expect(files[0]?.lines_scanned).toBe(22);

    const absolute = await callTool(tool, {
      glob: 'app.log',
      pattern: 'ERROR',
      since: '2026-01-15T11:40:00Z',
    });
    expect(matchesOf(absolute).map((match) => match.line)).toEqual([61, 50]);
  });

  it('supports regex, ignore_case and max_lines', async () => {
    const regex = await callTool(tool, { glob: 'app.log', pattern: 'order=(15|25)$', regex: true });
    expect(matchesOf(regex).map((match) => match.line)).toEqual([28, 17]);
    const caseless = await callTool(tool, {
      glob: 'app.log',
      pattern: 'error payment',
      ignore_case: true,
      max_lines: 2,
    });
    expect(matchesOf(caseless)).toHaveLength(2);
    expect(dataOf(caseless).complete).toBe(false);
    expect(matchesOf(caseless)[1]?.line).toBe(50);
  });

  it('merges files newest first, reading nginx timestamps and CRLF lines', async () => {
    const result = await callTool(tool, { glob: '**/*.log', pattern: 'GET /api' });
    expect(matchesOf(result).map((match) => match.timestamp)).toEqual([
      '2026-01-15T11:57:30.000Z',
      '2026-01-15T11:50:30.000Z',
    ]);
    expect(matchesOf(result)[0]).toMatchObject({ file: join(root, 'nginx', 'access.log'), line: 2 });

    const crlf = await callTool(tool, { glob: 'windows.log', pattern: 'crlf' });
    expect(matchesOf(crlf).map((match) => match.text)).toEqual([
      `${iso(2)} INFO crlf two`,
      `${iso(1)} ERROR crlf one`,
    ]);

    const everything = await callTool(tool, { glob: '**/*.log', pattern: 'ERROR', max_lines: 3 });
    expect(matchesOf(everything).map((match) => match.timestamp)).toEqual([
      '2026-01-15T11:55:00.000Z',
      '2026-01-15T11:45:00.000Z',
      '2026-01-15T11:35:00.000Z',
    ]);
  });

  it('accepts an absolute glob under a root and caps very long lines', async () => {
    const result = await callTool(tool, { glob: join(root, 'long.log'), pattern: 'ERROR' });
    const [match] = matchesOf(result);
    expect(match?.truncated).toBe(true);
    expect(match?.text.length).toBe(1000);
  });

  it('reports a glob that matches nothing', async () => {
    const result = await callTool(tool, { glob: 'nothing-*.log', pattern: 'x' });
    expect(result.ok).toBe(false);
    expect(result.summary).toContain('no file under');
  });
});

describe('log_search refuses paths outside its roots', () => {
  const refusedCases: [string, RegExp][] = [
    ['../outside/secret.log', /"\.\." segment/],
    ['nginx/../../outside/secret.log', /"\.\." segment/],
    ['%2e%2e/outside/secret.log', /percent-encoded/],
    ['%2E%2E%2Foutside%2Fsecret.log', /percent-encoded/],
    ['%252e%252e/outside/secret.log', /percent-encoded/],
    ['app.log\0../../etc/passwd', /NUL byte/],
    ['/etc/passwd', /not under a log root/],
    ['/etc/*', /not under a log root/],
  ];

  for (const [glob, reason] of refusedCases) {
    it(`refuses ${JSON.stringify(glob)}`, async () => {
      const result = await callTool(tool, { glob, pattern: 'ERROR' });
      expect(result.ok).toBe(false);
      expect(dataOf(result).refused).toBe(true);
      expect(result.summary).toMatch(reason);
      expect(JSON.stringify(result)).not.toContain(SECRET);
    });
  }

  it('refuses a symlink that points outside the root', async () => {
    const result = await callTool(tool, { glob: 'escape.log', pattern: 'ERROR' });
    expect(result.ok).toBe(false);
    expect(result.summary).toContain('outside the log roots');
    expect(JSON.stringify(result)).not.toContain(SECRET);
  });

  it('skips symlinks out of the root during a recursive glob, and says so', async () => {
    const result = await callTool(tool, { glob: '**/*.log', pattern: 'ERROR', max_lines: 1000 });
    expect(result.ok).toBe(true);
    expect(JSON.stringify(dataOf(result).matches)).not.toContain(SECRET);
    const refused = dataOf(result).refused as { path: string }[];
    expect(refused.map((item) => item.path).sort()).toEqual([
      join(root, 'escape.log'),
      join(root, 'linkdir'),
    ]);
    const throughDirectory = await callTool(tool, { glob: 'linkdir/*.log', pattern: 'ERROR' });
    expect(throughDirectory.ok).toBe(false);
    expect(JSON.stringify(throughDirectory)).not.toContain(SECRET);
  });
});

describe('log_search bounds regex work', () => {
  it('refuses a catastrophic regex such as (a+)+$', async () => {
    const result = await callTool(tool, { glob: 'regex.log', pattern: '(a+)+$', regex: true });
    expect(result.ok).toBe(false);
    expect(result.summary).toContain('nested repetition');
    const broken = await callTool(tool, { glob: 'regex.log', pattern: '(unclosed', regex: true });
    expect(broken.summary).toContain('does not compile');
  });

  it('stops a slow regex that passes the check at the time limit', async () => {
    // Polynomial backtracking: minutes on this 3000-character line, but star height 1, so safe-regex2 allows it.
    const started = Date.now();
    const result = await callTool(tool, {
      glob: 'regex.log',
      pattern: 'a*a*a*a*a*a*b',
      regex: true,
      timeout_ms: 500,
    });
    expect(Date.now() - started).toBeLessThan(3000);
    expect(result.ok).toBe(false);
    expect(result.summary).toContain('The search stopped early: it timed out after 500 ms.');
  });

  it('rejects a bad since value', async () => {
    const result = await callTool(tool, { glob: 'app.log', pattern: 'x', since: 'yesterday' });
    expect(result.ok).toBe(false);
    expect(result.summary).toContain('since must be');
  });
});
