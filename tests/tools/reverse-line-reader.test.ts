// The backward line reader agrees with a plain forward split, for any chunk size and line cap.
import { open, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { countNewlines, type ReverseLine, readLinesBackward } from '../../tools/reverse-line-reader.js';
import { makeTempDir, removeTempDirs } from './helpers/temp-dir.js';

afterAll(removeTempDirs);

async function readAll(
  content: string | Buffer,
  chunkBytes: number,
  maxLineBytes: number,
): Promise<ReverseLine[]> {
  const path = join(await makeTempDir(), 'file.log');
  await writeFile(path, content);
  const handle = await open(path, 'r');
  try {
    const lines: ReverseLine[] = [];
    const size = (await handle.stat()).size;
    for await (const line of readLinesBackward(handle, { size, chunkBytes, maxLineBytes })) lines.push(line);
    return lines;
  } finally {
    await handle.close();
  }
}

/** What the reader should yield, computed the simple way. */
function expected(content: string, maxLineBytes: number) {
  if (content.length === 0) return [];
  const body = content.endsWith('\n') ? content.slice(0, -1) : content;
  const parts = body.split('\n');
  let start = 0;
  const lines = parts.map((text) => {
    const line = { start, text: text.replace(/\r$/, ''), raw: text };
    start += text.length + 1;
    return line;
  });
  return lines.reverse().map((line, index) => ({
    text: line.raw.length > maxLineBytes ? line.raw.slice(0, maxLineBytes) : line.text,
    start: line.start,
    fromEnd: index + 1,
    truncated: line.raw.length > maxLineBytes,
  }));
}

/** A deterministic pseudo-random generator, so failures can be reproduced. */
function generator(seed: number) {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

describe('readLinesBackward', () => {
  it('matches a forward split on edge cases', async () => {
    const cases = ['', '\n', 'a', 'a\n', 'a\nb', 'a\nb\n', '\n\n', 'x\r\ny\r\n', 'one\n\nthree\n'];
    for (const content of cases) {
      for (const chunk of [1, 2, 3, 64]) {
        expect(await readAll(content, chunk, 100), `${JSON.stringify(content)} chunk ${chunk}`).toEqual(
          expected(content, 100),
        );
      }
    }
  });

  it('matches a forward split on random files, keeping only the head of long lines', async () => {
    const random = generator(42);
    for (let round = 0; round < 25; round += 1) {
      const lines = Array.from({ length: 1 + Math.floor(random() * 40) }, () =>
        'x'
          .repeat(Math.floor(random() * 30))
          .replace(/x/g, () => String.fromCharCode(97 + Math.floor(random() * 26))),
      );
      const content = lines.join('\n') + (random() < 0.5 ? '\n' : '');
      const chunk = 1 + Math.floor(random() * 20);
      const cap = 1 + Math.floor(random() * 25);
      expect(await readAll(content, chunk, cap), `round ${round}`).toEqual(expected(content, cap));
    }
  });

  it('counts newlines before an offset in chunks', async () => {
    const path = join(await makeTempDir(), 'count.log');
    await writeFile(path, 'a\nb\nc\nd\n');
    const handle = await open(path, 'r');
    try {
      expect(await countNewlines(handle, 8, { deadline: Date.now() + 1000, chunkBytes: 3 })).toBe(4);
      expect(await countNewlines(handle, 3, { deadline: Date.now() + 1000, chunkBytes: 2 })).toBe(1);
      expect(await countNewlines(handle, 8, { deadline: Date.now() - 1 })).toBeUndefined();
    } finally {
      await handle.close();
    }
  });
});
