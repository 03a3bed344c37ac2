// A write the store refused (a full disk, a read-only file or replica, an I/O error, Redis out of memory or away),
// as one error with a reason a person can act on, so a click whose write failed is told so, not dropped.
import { ErrorCode, errorMessage, SystemError } from '../errors.js';

/**
 * A write that did not happen. Its code stays StoreUnavailable, so everything that handles a store outage handles
 * it too; `reason` is the short human cause ("disk full"), for the person whose action was not recorded.
 */
export class StoreWriteError extends SystemError {
  constructor(
    readonly reason: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(ErrorCode.StoreUnavailable, message, options);
  }
}

export function isStoreWriteError(error: unknown): error is StoreWriteError {
  return error instanceof StoreWriteError;
}

/** SQLite's result codes (sqliteCode's names) that mean the database cannot take writes, in words. */
const SQLITE_WRITE_REASONS: Record<string, string> = {
  SQLITE_FULL: 'disk full',
  SQLITE_READONLY: 'the database is read-only',
  SQLITE_IOERR: 'disk I/O error',
  SQLITE_CANTOPEN: 'the database file cannot be opened',
  SQLITE_PERM: 'no permission to write the database',
  SQLITE_BUSY: 'the database is locked by another process',
  SQLITE_NOMEM: 'out of memory',
};

/** Why a SQLite write failed, in words, from its result code; undefined for a code that is no store fault. */
export function sqliteWriteReason(code: string | undefined): string | undefined {
  return code === undefined ? undefined : SQLITE_WRITE_REASONS[code];
}

/** Why a Redis write failed, in words: its error reply (OOM, READONLY, MISCONF) or a lost connection. */
export function redisWriteReason(error: unknown, reachable: boolean): string | undefined {
  const text = errorMessage(error);
  if (/^OOM\b/.test(text)) return 'Redis is out of memory (maxmemory reached)';
  if (/^READONLY\b/.test(text)) return 'Redis is a read-only replica';
  if (/^MISCONF\b/.test(text)) return 'Redis cannot save to its disk';
  if (!reachable || /ECONNREFUSED|ECONNRESET|ETIMEDOUT|closed|no answer within|Socket/i.test(text))
    return 'Redis is unreachable';
  return undefined;
}
