// The SQLite Store's statements, prepared once per connection: one per primitive, so each is one step under SQLite's lock.
import type Database from 'better-sqlite3';
import type { IndexEntry } from './store.js';

export function prepareStatements(db: Database.Database) {
  return {
    valueGet: db.prepare<[string, number], { value: string }>(
      'SELECT value FROM keyv WHERE key = ? AND (expires IS NULL OR expires > ?)',
    ),
    valueSet: db.prepare<[string, string, number | null], void>(
      `INSERT INTO keyv (key, value, expires) VALUES (?, ?, ?)
       ON CONFLICT (key) DO UPDATE SET value = excluded.value, expires = excluded.expires`,
    ),
    valueDelete: db.prepare<[string], { expires: number | null }>(
      'DELETE FROM keyv WHERE key = ? RETURNING expires',
    ),
    valueClear: db.prepare<[], void>('DELETE FROM keyv'),
    // One statement, so SQLite's write lock makes it atomic across connections and processes.
    claim: db.prepare<[{ key: string; owner: string; expires: number; now: number }], void>(
      `INSERT INTO claims (key, owner, expires) VALUES (@key, @owner, @expires)
       ON CONFLICT (key) DO UPDATE SET owner = excluded.owner, expires = excluded.expires
       WHERE claims.expires <= @now OR claims.owner = excluded.owner`,
    ),
    release: db.prepare<[string, string], void>('DELETE FROM claims WHERE key = ? AND owner = ?'),
    holder: db.prepare<[string, number], { owner: string }>(
      'SELECT owner FROM claims WHERE key = ? AND expires > ?',
    ),
    append: db.prepare<[string, string], void>('INSERT INTO log_records (log, record) VALUES (?, ?)'),
    readLog: db.prepare<[string, number, number], { record: string }>(
      'SELECT record FROM log_records WHERE log = ? ORDER BY id LIMIT ? OFFSET ?',
    ),
    addToSet: db.prepare<[string, string], void>(
      'INSERT OR IGNORE INTO set_members (set_name, member) VALUES (?, ?)',
    ),
    removeFromSet: db.prepare<[string, string], void>(
      'DELETE FROM set_members WHERE set_name = ? AND member = ?',
    ),
    members: db.prepare<[string], { member: string }>('SELECT member FROM set_members WHERE set_name = ?'),
    addToIndex: db.prepare<[string, string, number], void>(
      `INSERT INTO index_members (index_name, member, at) VALUES (?, ?, ?)
       ON CONFLICT (index_name, member) DO UPDATE SET at = excluded.at`,
    ),
    removeFromIndex: db.prepare<[string, string], void>(
      'DELETE FROM index_members WHERE index_name = ? AND member = ?',
    ),
    due: db.prepare<[string, number, number], IndexEntry>(
      'SELECT member, at FROM index_members WHERE index_name = ? AND at <= ? ORDER BY at, member LIMIT ?',
    ),
    sweepValues: db.prepare<[number], void>('DELETE FROM keyv WHERE expires <= ?'),
    sweepClaims: db.prepare<[number], void>('DELETE FROM claims WHERE expires <= ?'),
    ping: db.prepare<[], { ok: number }>('SELECT 1 AS ok'),
  };
}
export type Statements = ReturnType<typeof prepareStatements>;
