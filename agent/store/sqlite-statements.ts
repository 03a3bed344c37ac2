// The SQLite Store's statements, prepared once per connection: one per primitive, so each is one step under SQLite's lock.
import type { DatabaseSync, SQLInputValue, StatementResultingChanges } from 'node:sqlite';
import type { IndexEntry } from './store.js';

type Parameters = SQLInputValue[] | [Record<string, SQLInputValue>];

/** A prepared statement with the parameters and rows it takes and gives, which node:sqlite leaves untyped. */
export interface Statement<P extends Parameters, Row> {
  get(...parameters: P): Row | undefined;
  all(...parameters: P): Row[];
  run(...parameters: P): StatementResultingChanges;
}

function statement<P extends Parameters, Row = never>(db: DatabaseSync, sql: string): Statement<P, Row> {
  const prepared = db.prepare(sql);
  return {
    get: (...parameters) => prepared.get(...(parameters as SQLInputValue[])) as Row | undefined,
    all: (...parameters) => prepared.all(...(parameters as SQLInputValue[])) as Row[],
    run: (...parameters) => prepared.run(...(parameters as SQLInputValue[])),
  };
}

export function prepareStatements(db: DatabaseSync) {
  return {
    valueGet: statement<[string, number], { value: string }>(
      db,
      'SELECT value FROM keyv WHERE key = ? AND (expires IS NULL OR expires > ?)',
    ),
    valueSet: statement<[string, string, number | null]>(
      db,
      `INSERT INTO keyv (key, value, expires) VALUES (?, ?, ?)
       ON CONFLICT (key) DO UPDATE SET value = excluded.value, expires = excluded.expires`,
    ),
    valueDelete: statement<[string], { expires: number | null }>(
      db,
      'DELETE FROM keyv WHERE key = ? RETURNING expires',
    ),
    valueClear: statement<[]>(db, 'DELETE FROM keyv'),
    // One statement, so SQLite's write lock makes it atomic across connections and processes.
    claim: statement<[{ key: string; owner: string; expires: number; now: number }]>(
      db,
      `INSERT INTO claims (key, owner, expires) VALUES (@key, @owner, @expires)
       ON CONFLICT (key) DO UPDATE SET owner = excluded.owner, expires = excluded.expires
       WHERE claims.expires <= @now OR claims.owner = excluded.owner`,
    ),
    release: statement<[string, string]>(db, 'DELETE FROM claims WHERE key = ? AND owner = ?'),
    holder: statement<[string, number], { owner: string }>(
      db,
      'SELECT owner FROM claims WHERE key = ? AND expires > ?',
    ),
    append: statement<[string, string]>(db, 'INSERT INTO log_records (log, record) VALUES (?, ?)'),
    deleteLog: statement<[string]>(db, 'DELETE FROM log_records WHERE log = ?'),
    readLog: statement<[string, number, number], { record: string }>(
      db,
      'SELECT record FROM log_records WHERE log = ? ORDER BY id LIMIT ? OFFSET ?',
    ),
    addToSet: statement<[string, string]>(
      db,
      'INSERT OR IGNORE INTO set_members (set_name, member) VALUES (?, ?)',
    ),
    removeFromSet: statement<[string, string]>(
      db,
      'DELETE FROM set_members WHERE set_name = ? AND member = ?',
    ),
    members: statement<[string], { member: string }>(db, 'SELECT member FROM set_members WHERE set_name = ?'),
    addToIndex: statement<[string, string, number]>(
      db,
      `INSERT INTO index_members (index_name, member, at) VALUES (?, ?, ?)
       ON CONFLICT (index_name, member) DO UPDATE SET at = excluded.at`,
    ),
    removeFromIndex: statement<[string, string]>(
      db,
      'DELETE FROM index_members WHERE index_name = ? AND member = ?',
    ),
    due: statement<[string, number, number], IndexEntry>(
      db,
      'SELECT member, at FROM index_members WHERE index_name = ? AND at <= ? ORDER BY at, member LIMIT ?',
    ),
    sweepValues: statement<[number]>(db, 'DELETE FROM keyv WHERE expires <= ?'),
    sweepClaims: statement<[number]>(db, 'DELETE FROM claims WHERE expires <= ?'),
    ping: statement<[], { ok: number }>(db, 'SELECT 1 AS ok'),
  };
}
export type Statements = ReturnType<typeof prepareStatements>;
