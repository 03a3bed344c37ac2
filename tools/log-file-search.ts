// Searches one log file from its end: newest lines first, stopping at `since`, max matches or the work budget.
import { constants } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import { KeyBlockTracker, MAX_KEY_BLOCK_LINES } from '../agent/private-key-blocks.js';
import { REDACTED } from '../agent/redaction.js';
import { type LineMatcher, PatternTimeout } from './line-pattern.js';
import type { LogFile } from './log-files.js';
import { leadingTimestamp } from './log-timestamp.js';
import { cutTextEnd } from './output-cut.js';
import { countNewlines, type ReverseLine, readLinesBackward } from './reverse-line-reader.js';

export const MAX_LINE_BYTES = 8 * 1024;
/** Lines shown to the model are cut here, at a word's end; matching still sees MAX_LINE_BYTES. */
export const SHOWN_LINE_CHARS = 1000;
/** Beyond this many bytes before the first line read, absolute line numbers are not counted. */
export const MAX_COUNT_BYTES = 1024 * 1024 * 1024;
const BATCH_LINES = 500;

export interface LogMatch {
  file: string;
  /** 1-based line number from the start of the file; null when counting would cost too much. */
  line: number | null;
  /** 1 for the file's last line. Always exact. */
  line_from_end: number;
  timestamp: string | null;
  text: string;
  truncated: boolean;
  /** For ordering across files: the line's own time, or the nearest newer time in its file. */
  sortKey: number;
}

export type StopReason = 'start_of_file' | 'since' | 'max_lines' | 'work_budget' | 'deadline';

export interface FileSearchReport {
  file: string;
  size_bytes: number;
  bytes_read: number;
  bytes_counted: number;
  lines_scanned: number;
  matches: number;
  stopped_at: StopReason;
}

export interface FileSearchOptions {
  matcher: LineMatcher;
  sinceMs: number | undefined;
  maxMatches: number;
  deadline: number;
  signal: AbortSignal;
  /** Bytes this file may still read; shared across files by the caller. */
  bytesBudget: number;
  nowMs: number;
}

interface Pending {
  line: ReverseLine;
  timestamp: number | undefined;
  sortKey: number;
}

async function openLogFile(file: LogFile): Promise<FileHandle> {
  // O_NOFOLLOW: the real path was checked; if it became a symlink since, refuse instead of following it.
  const handle = await open(file.real, constants.O_RDONLY | constants.O_NOFOLLOW);
  const info = await handle.stat();
  if (!info.isFile()) {
    await handle.close();
    throw new Error(`${file.display} is not a regular file`);
  }
  return handle;
}

export async function searchLogFile(
  file: LogFile,
  options: FileSearchOptions,
): Promise<{ matches: LogMatch[]; report: FileSearchReport }> {
  const handle = await openLogFile(file);
  const stats = { bytesRead: 0, bytesCounted: 0 };
  const matches: LogMatch[] = [];
  let linesScanned = 0;
  let stoppedAt: StopReason = 'start_of_file';
  let earliest: ReverseLine | undefined;
  try {
    const size = (await handle.stat()).size;
    let newestKnown = file.mtimeMs;
    let batch: Pending[] = [];
    let moreMatches = false;
    let outOfTime = false;

    const flush = async () => {
      if (batch.length === 0) return;
      let hits: boolean[];
      try {
        hits = await options.matcher.match(
          batch.map((pending) => pending.line.text),
          options.deadline,
        );
      } catch (error) {
        if (!(error instanceof PatternTimeout)) throw error;
        // Out of time mid-file: keep the matches already found, since they are the newest ones.
        batch = [];
        outOfTime = true;
        return;
      }
      batch.forEach((pending, index) => {
        if (!hits[index]) return;
        if (matches.length >= options.maxMatches) {
          moreMatches = true;
          return;
        }
        matches.push({
          file: file.display,
          line: null,
          line_from_end: pending.line.fromEnd,
          timestamp: pending.timestamp === undefined ? null : new Date(pending.timestamp).toISOString(),
          text: cutTextEnd(pending.line.text, SHOWN_LINE_CHARS),
          truncated: pending.line.truncated || pending.line.text.length > SHOWN_LINE_CHARS,
          sortKey: pending.sortKey,
        });
      });
      batch = [];
    };

    // Which lines lie inside a private key block, so a pattern that matches only a key's body lines still
    // gets no key material back. Reading backwards, END opens a block and BEGIN closes it.
    const keyBlocks = new KeyBlockTracker('backward');
    let readAhead: number | undefined;
    for await (const line of readLinesBackward(handle, { size, maxLineBytes: MAX_LINE_BYTES, stats })) {
      keyBlocks.push(line.text);
      if (readAhead !== undefined) {
        // Searching has stopped; only reading on to a BEGIN that may claim the last lines read.
        readAhead += 1;
        if (!keyBlocks.inBodyRun()) break;
        if (readAhead >= MAX_KEY_BLOCK_LINES || Date.now() > options.deadline || options.signal.aborted) {
          keyBlocks.stopEarly();
          break;
        }
        continue;
      }
      const timestamp = leadingTimestamp(line.text, options.nowMs);
      if (timestamp !== undefined && options.sinceMs !== undefined && timestamp < options.sinceMs) {
        // Log files are written in time order, so everything before this line is older too.
        stoppedAt = 'since';
        readAhead = 0;
        if (keyBlocks.inBodyRun()) continue;
        break;
      }
      earliest = line;
      linesScanned += 1;
      if (timestamp !== undefined) newestKnown = Math.min(newestKnown, timestamp);
      batch.push({ line, timestamp, sortKey: timestamp ?? newestKnown });
      if (batch.length >= BATCH_LINES) {
        await flush();
        if (matches.length >= options.maxMatches) {
          stoppedAt = 'max_lines';
          readAhead = 0;
          if (keyBlocks.inBodyRun()) continue;
          break;
        }
        if (outOfTime || Date.now() > options.deadline || options.signal.aborted) {
          stoppedAt = 'deadline';
          keyBlocks.stopEarly();
          break;
        }
        if (stats.bytesRead > options.bytesBudget) {
          stoppedAt = 'work_budget';
          keyBlocks.stopEarly();
          break;
        }
      }
    }
    await flush();
    keyBlocks.finish();
    for (const match of matches) {
      if (!keyBlocks.isInside(match.line_from_end - 1)) continue;
      match.text = REDACTED;
      match.truncated = false;
    }
    if (outOfTime) stoppedAt = 'deadline';
    if (moreMatches && (stoppedAt === 'start_of_file' || stoppedAt === 'since')) stoppedAt = 'max_lines';

    if (matches.length > 0 && earliest) {
      const before =
        earliest.start <= MAX_COUNT_BYTES
          ? await countNewlines(handle, earliest.start, {
              deadline: options.deadline,
              signal: options.signal,
              stats,
            })
          : undefined;
      if (before !== undefined) {
        // The earliest line read is line before+1; every later line is counted from it.
        for (const match of matches) match.line = before + 1 + (earliest.fromEnd - match.line_from_end);
      }
    }
    return {
      matches,
      report: {
        file: file.display,
        size_bytes: size,
        bytes_read: stats.bytesRead,
        bytes_counted: stats.bytesCounted,
        lines_scanned: linesScanned,
        matches: matches.length,
        stopped_at: stoppedAt,
      },
    };
  } finally {
    await handle.close();
  }
}
