// Reads a file's lines from the end in fixed-size chunks, so a 200 MB log is never held in memory.
import type { FileHandle } from 'node:fs/promises';

export interface ReverseLine {
  /** The line without its newline; at most maxLineBytes of it, from its start. */
  text: string;
  /** Byte offset where the line starts. */
  start: number;
  /** 1 for the file's last line, 2 for the one before, ... */
  fromEnd: number;
  /** The line was longer than maxLineBytes and only its head is in `text`. */
  truncated: boolean;
}

export interface ReverseReadOptions {
  /** Read only bytes before this offset (the size when the search began, so appends do not shift lines). */
  size: number;
  chunkBytes?: number;
  maxLineBytes?: number;
  /** Counts bytes read, for the caller's work budget and for proof that the file was not read whole. */
  stats?: { bytesRead: number };
}

const NEWLINE = 0x0a;

/** Yields lines newest first. Memory stays within one chunk plus maxLineBytes, however long a line is. */
export async function* readLinesBackward(
  handle: FileHandle,
  options: ReverseReadOptions,
): AsyncGenerator<ReverseLine, void, undefined> {
  const chunkBytes = options.chunkBytes ?? 64 * 1024;
  const maxLineBytes = options.maxLineBytes ?? 8 * 1024;
  const stats = options.stats ?? { bytesRead: 0 };
  const size = options.size;
  if (size <= 0) return;

  const read = async (start: number, length: number): Promise<Buffer> => {
    const buffer = Buffer.allocUnsafe(length);
    const { bytesRead } = await handle.read(buffer, 0, length, start);
    stats.bytesRead += bytesRead;
    return buffer.subarray(0, bytesRead);
  };

  let lineEnd = size;
  const last = await read(size - 1, 1);
  if (last[0] === NEWLINE) lineEnd = size - 1;
  let position = lineEnd;
  let fromEnd = 0;
  // Pieces of the current line already read (later bytes), unless it grew past maxLineBytes.
  let pieces: Buffer[] = [];
  let overflowed = false;

  const makeLine = async (start: number, firstPiece: Buffer): Promise<ReverseLine> => {
    fromEnd += 1;
    const length = lineEnd - start;
    let bytes: Buffer;
    if (overflowed) bytes = await read(start, Math.min(length, maxLineBytes));
    else bytes = pieces.length === 0 ? firstPiece : Buffer.concat([firstPiece, ...pieces]);
    const truncated = length > maxLineBytes;
    if (bytes.length > maxLineBytes) bytes = bytes.subarray(0, maxLineBytes);
    let text = bytes.toString('utf8');
    if (!truncated && text.endsWith('\r')) text = text.slice(0, -1);
    return { text, start, fromEnd, truncated };
  };

  while (position > 0) {
    const chunkStart = Math.max(0, position - chunkBytes);
    const chunk = await read(chunkStart, position - chunkStart);
    let cursor = chunk.length;
    while (cursor > 0) {
      const newline = chunk.lastIndexOf(NEWLINE, cursor - 1);
      if (newline === -1) break;
      yield await makeLine(chunkStart + newline + 1, chunk.subarray(newline + 1, cursor));
      lineEnd = chunkStart + newline;
      pieces = [];
      overflowed = false;
      cursor = newline;
    }
    if (!overflowed) {
      if (lineEnd - chunkStart <= maxLineBytes) {
        // Copy, so a held piece does not keep its whole chunk alive through a subarray view.
        pieces.unshift(Buffer.from(chunk.subarray(0, cursor)));
      } else {
        // Too long to hold: its head is read again directly once the line's start is found.
        overflowed = true;
        pieces = [];
      }
    }
    position = chunkStart;
  }
  yield await makeLine(0, Buffer.alloc(0));
}

/**
 * Counts newlines in [0, end) in chunks, never holding the file. Returns undefined when it runs out of time,
 * so callers can say a line number is unknown rather than guess.
 */
export async function countNewlines(
  handle: FileHandle,
  end: number,
  options: { deadline: number; signal?: AbortSignal; chunkBytes?: number; stats?: { bytesCounted: number } },
): Promise<number | undefined> {
  const buffer = Buffer.allocUnsafe(Math.min(options.chunkBytes ?? 1024 * 1024, Math.max(end, 1)));
  let count = 0;
  let position = 0;
  while (position < end) {
    if (Date.now() > options.deadline || options.signal?.aborted) return undefined;
    const length = Math.min(buffer.length, end - position);
    const { bytesRead } = await handle.read(buffer, 0, length, position);
    if (bytesRead === 0) break;
    const filled = buffer.subarray(0, bytesRead);
    let index = filled.indexOf(NEWLINE, 0);
    while (index !== -1) {
      count += 1;
      index = filled.indexOf(NEWLINE, index + 1);
    }
    position += bytesRead;
    if (options.stats) options.stats.bytesCounted += bytesRead;
  }
  return count;
}
