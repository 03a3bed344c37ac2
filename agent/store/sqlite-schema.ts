// The SQLite store's tables and their versions: a new file gets them all, an older one is upgraded in place.
import { ErrorCode, SystemError } from '../errors.js';
import { type DatabaseSync, inTransaction } from './sqlite-database.js';

const schemaVersion = 3;

/**
 * Each step takes a database from version n to n + 1; a new file runs them all. Version 1 made the tables.
 * Version 2 keeps each claim in one B-tree (WITHOUT ROWID) and drops the expiry index only the sweep used,
 * so a claim or a release changes one page instead of three. Version 3 adds time indexes: one row per member
 * and an index on (index_name, at), so "what is due by now" reads only what is due.
 */
const migrations: Record<number, string> = {
  0: `
    CREATE TABLE IF NOT EXISTS keyv (key TEXT PRIMARY KEY, value TEXT NOT NULL, expires INTEGER);
    CREATE INDEX IF NOT EXISTS keyv_expires ON keyv (expires) WHERE expires IS NOT NULL;
    CREATE TABLE IF NOT EXISTS claims (key TEXT PRIMARY KEY, owner TEXT NOT NULL, expires INTEGER NOT NULL);
    CREATE INDEX IF NOT EXISTS claims_expires ON claims (expires);
    CREATE TABLE IF NOT EXISTS log_records (
      id INTEGER PRIMARY KEY AUTOINCREMENT, log TEXT NOT NULL, record TEXT NOT NULL);
    CREATE INDEX IF NOT EXISTS log_records_by_log ON log_records (log, id);
    CREATE TABLE IF NOT EXISTS set_members (
      set_name TEXT NOT NULL, member TEXT NOT NULL, PRIMARY KEY (set_name, member)) WITHOUT ROWID;
  `,
  1: `
    CREATE TABLE claims_by_key (key TEXT PRIMARY KEY, owner TEXT NOT NULL, expires INTEGER NOT NULL) WITHOUT ROWID;
    INSERT INTO claims_by_key (key, owner, expires) SELECT key, owner, expires FROM claims;
    DROP TABLE claims;
    ALTER TABLE claims_by_key RENAME TO claims;
  `,
  2: `
    CREATE TABLE index_members (
      index_name TEXT NOT NULL, member TEXT NOT NULL, at INTEGER NOT NULL,
      PRIMARY KEY (index_name, member)) WITHOUT ROWID;
    CREATE INDEX index_members_by_time ON index_members (index_name, at, member);
  `,
};

export function migrate(db: DatabaseSync, path: string): void {
  const version = () => Number(db.prepare('PRAGMA user_version').get()?.user_version ?? 0);
  const refuseNewer = (found: number) => {
    if (found <= schemaVersion) return;
    throw new SystemError(
      ErrorCode.StoreUnavailable,
      `The SQLite store at ${path} has schema version ${found}, newer than this opsbot understands (${schemaVersion}); upgrade opsbot or point OPSBOT_STORE_URL elsewhere`,
    );
  };
  refuseNewer(version());
  if (version() === schemaVersion) return;
  // Under the write lock, and read again: another process may have upgraded the file meanwhile.
  inTransaction(
    db,
    () => {
      let found = version();
      refuseNewer(found);
      for (; found < schemaVersion; found++) db.exec(migrations[found]!);
      db.exec(`PRAGMA user_version = ${schemaVersion}`);
    },
    { immediate: true },
  );
}
