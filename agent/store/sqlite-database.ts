// The SQLite connection under the Store: Node's own node:sqlite (no native build to install), with the two things
// the store needs on top of it: transactions, and a failure that names SQLite's error code.

import { createRequire } from 'node:module';
import type { DatabaseSync } from 'node:sqlite';

export type { DatabaseSync } from 'node:sqlite';

const require = createRequire(import.meta.url);

/**
 * Opens `path`. Node 22 marks node:sqlite experimental and warns once when it loads; that warning is about the API's
 * stability, which opsbot pins by testing on each supported Node, so it is not shown to the people running opsbot.
 */
export function openDatabase(path: string, options: { readOnly?: boolean } = {}): DatabaseSync {
  const { DatabaseSync: Database } = loadSqlite();
  return new Database(path, { readOnly: options.readOnly ?? false });
}

let sqlite: typeof import('node:sqlite') | undefined;

function loadSqlite(): typeof import('node:sqlite') {
  if (sqlite) return sqlite;
  const emitWarning = process.emitWarning;
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    const text = typeof warning === 'string' ? warning : warning.message;
    if (/SQLite is an experimental feature/.test(text)) return;
    (emitWarning as (...args: unknown[]) => void).call(process, warning, ...rest);
  }) as typeof process.emitWarning;
  try {
    sqlite = require('node:sqlite') as typeof import('node:sqlite');
  } finally {
    process.emitWarning = emitWarning;
  }
  return sqlite;
}

/**
 * Runs `work` in one transaction, committed when it returns and rolled back when it throws. `immediate` takes the
 * write lock at the start, for a read-then-write that another process must not interleave (a schema upgrade).
 */
export function inTransaction<T>(db: DatabaseSync, work: () => T, options: { immediate?: boolean } = {}): T {
  db.exec(options.immediate ? 'BEGIN IMMEDIATE' : 'BEGIN');
  let result: T;
  try {
    result = work();
  } catch (error) {
    if (db.isTransaction) db.exec('ROLLBACK');
    throw error;
  }
  db.exec('COMMIT');
  return result;
}

/** SQLite's primary result codes a person may meet, by number (https://sqlite.org/rescode.html). */
const RESULT_CODES: Record<number, string> = {
  3: 'SQLITE_PERM',
  5: 'SQLITE_BUSY',
  6: 'SQLITE_LOCKED',
  7: 'SQLITE_NOMEM',
  8: 'SQLITE_READONLY',
  10: 'SQLITE_IOERR',
  11: 'SQLITE_CORRUPT',
  13: 'SQLITE_FULL',
  14: 'SQLITE_CANTOPEN',
  26: 'SQLITE_NOTADB',
};

/** The name of SQLite's result code in a failure from node:sqlite (SQLITE_BUSY for a held lock), if it has one. */
export function sqliteCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const errcode = (error as { errcode?: unknown }).errcode;
  if (typeof errcode !== 'number') return undefined;
  return RESULT_CODES[errcode & 0xff] ?? `SQLite error ${errcode}`;
}
