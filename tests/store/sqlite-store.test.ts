// The SQLite Store: the shared contract, outages (locked, closed, uncreatable) and a claim race across processes.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../agent/clock.js';
import { ErrorCode, OpsbotError } from '../../agent/errors.js';
import { openDatabase } from '../../agent/store/sqlite-database.js';
import { SqliteStore } from '../../agent/store/sqlite-store.js';
import { runBreakerContract } from './breaker-contract.js';
import { runStoreContract, type StoreFixture } from './store-contract.js';

async function temporaryDirectory(): Promise<string> {
  return mkdtemp(join(tmpdir(), 'opsbot-sqlite-'));
}

async function sqliteFixture(): Promise<StoreFixture> {
  const directory = await temporaryDirectory();
  // A nested path proves the store creates its parent directory.
  const path = join(directory, 'nested', 'opsbot.sqlite');
  const clock = new ManualClock();
  const store = new SqliteStore(path, { clock });
  return {
    store,
    clock,
    reopen: async () => new SqliteStore(path, { clock }),
    cleanup: async () => {
      await store.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}
runStoreContract('sqlite', sqliteFixture);
runBreakerContract('sqlite', sqliteFixture);

function expectStoreUnavailable(error: unknown, mentioning: string): void {
  expect(error).toBeInstanceOf(OpsbotError);
  const opsbotError = error as OpsbotError;
  expect(opsbotError.code).toBe(ErrorCode.StoreUnavailable);
  expect(opsbotError.fault).toBe('system');
  expect(opsbotError.message).toContain(mentioning);
}

async function failure(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected the store operation to fail');
    },
    (error: unknown) => error,
  );
}

describe('SQLite store outages', () => {
  let directory: string;
  let path: string;

  beforeEach(async () => {
    directory = await temporaryDirectory();
    path = join(directory, 'opsbot.sqlite');
  });

  afterEach(async () => {
    await rm(directory, { recursive: true, force: true });
  });

  it('fails clearly while another process holds the write lock, writes nothing, and recovers after', async () => {
    const store = new SqliteStore(path, { busyTimeoutMs: 20 });
    await store.set('run:1', { version: 1 });
    const otherProcess = openDatabase(path);
    otherProcess.exec('PRAGMA busy_timeout = 0');
    otherProcess.exec('BEGIN IMMEDIATE');
    try {
      expectStoreUnavailable(await failure(store.set('run:1', { version: 2 })), path);
      expectStoreUnavailable(await failure(store.append('run:1:events', 'step')), 'SQLITE_BUSY');
      expectStoreUnavailable(await failure(store.claim('lock', 'alice', 1000)), 'claim "lock"');
      expectStoreUnavailable(await failure(store.addToSet('waiting', 'run:1')), 'database is locked');
      // WAL lets readers through a writer's lock.
      expect(await store.get('run:1')).toEqual({ version: 1 });
    } finally {
      otherProcess.exec('ROLLBACK');
      otherProcess.close();
    }
    expect(await store.get('run:1')).toEqual({ version: 1 });
    expect(await store.readLog('run:1:events')).toEqual([]);
    expect(await store.holder('lock')).toBeUndefined();
    expect(await store.members('waiting')).toEqual([]);
    await store.set('run:1', { version: 2 });
    expect(await store.get('run:1')).toEqual({ version: 2 });
    await store.close();
  });

  it('makes a batch of writes all or none: a write that fails undoes the ones before it', async () => {
    const store = new SqliteStore(path);
    await store.set('run:1', { version: 1 });
    const other = openDatabase(path);
    other.exec(`CREATE TRIGGER refuse AFTER INSERT ON set_members WHEN NEW.member = 'poison'
      BEGIN SELECT RAISE(ABORT, 'refused by the test'); END`);
    other.close();
    const batch = store.writeAll([
      { kind: 'set', key: 'run:1', value: { version: 2 } },
      { kind: 'append', log: 'thread:1', record: 'run:1' },
      { kind: 'addToIndex', index: 'runs:expiry', member: 'run:1', at: 1000 },
      { kind: 'addToSet', set: 'runs:active', member: 'poison' },
    ]);
    expectStoreUnavailable(await failure(batch), 'refused by the test');
    expect(await store.get('run:1')).toEqual({ version: 1 });
    expect(await store.readLog('thread:1')).toEqual([]);
    expect(await store.members('runs:active')).toEqual([]);
    expect(await store.due('runs:expiry', Number.POSITIVE_INFINITY, 10)).toEqual([]);
    await store.close();
  });

  it('fails clearly once its connection is closed', async () => {
    const store = new SqliteStore(path);
    await store.close();
    for (const operation of [
      store.get('x'),
      store.set('x', 1),
      store.claim('x', 'alice', 1000),
      store.append('log', 1),
      store.members('set'),
      store.writeAll([{ kind: 'addToSet', set: 'set', member: 'x' }]),
      store.ping(),
    ]) {
      const error = await failure(operation);
      expectStoreUnavailable(error, path);
      expect((error as Error).message).toContain('closed');
    }
  });

  it('fails clearly when the database cannot be created, naming the path', async () => {
    const blocker = join(directory, 'not-a-directory');
    await writeFile(blocker, 'a file where a directory should be');
    const impossible = join(blocker, 'opsbot.sqlite');
    let thrown: unknown;
    try {
      new SqliteStore(impossible);
    } catch (error) {
      thrown = error;
    }
    expectStoreUnavailable(thrown, impossible);
  });

  it('upgrades a version 1 database in place, keeping its values, claims, logs and sets, and adds time indexes', async () => {
    const v1 = openDatabase(path);
    v1.exec(`
      CREATE TABLE keyv (key TEXT PRIMARY KEY, value TEXT NOT NULL, expires INTEGER);
      CREATE INDEX keyv_expires ON keyv (expires) WHERE expires IS NOT NULL;
      CREATE TABLE claims (key TEXT PRIMARY KEY, owner TEXT NOT NULL, expires INTEGER NOT NULL);
      CREATE INDEX claims_expires ON claims (expires);
      CREATE TABLE log_records (id INTEGER PRIMARY KEY AUTOINCREMENT, log TEXT NOT NULL, record TEXT NOT NULL);
      CREATE INDEX log_records_by_log ON log_records (log, id);
      CREATE TABLE set_members (
        set_name TEXT NOT NULL, member TEXT NOT NULL, PRIMARY KEY (set_name, member)) WITHOUT ROWID;
      INSERT INTO keyv (key, value, expires) VALUES ('run:1', '{"value":{"status":"running"}}', NULL);
      INSERT INTO claims (key, owner, expires) VALUES ('run-lease:1', 'kernel_a', 4102444800000);
      INSERT INTO log_records (log, record) VALUES ('thread:1', '"run:1"');
      INSERT INTO set_members (set_name, member) VALUES ('runs:active', 'run:1');
    `);
    v1.exec('PRAGMA user_version = 1');
    v1.close();

    const store = new SqliteStore(path);
    expect(await store.get('run:1')).toEqual({ status: 'running' });
    expect(await store.holder('run-lease:1')).toBe('kernel_a');
    expect(await store.claim('run-lease:1', 'kernel_b', 1000)).toBe(false);
    expect(await store.readLog('thread:1')).toEqual(['run:1']);
    expect(await store.members('runs:active')).toEqual(['run:1']);
    // Version 3's time index is there, empty, on the upgraded file.
    expect(await store.due('runs:expiry', Number.POSITIVE_INFINITY, 10)).toEqual([]);
    await store.addToIndex('runs:expiry', 'run:1', 1000);
    expect(await store.due('runs:expiry', 1000, 10)).toEqual([{ member: 'run:1', at: 1000 }]);
    await store.close();

    const upgraded = openDatabase(path, { readOnly: true });
    expect(upgraded.prepare('PRAGMA user_version').get()?.user_version).toBe(3);
    const claims = upgraded.prepare("SELECT sql FROM sqlite_master WHERE name = 'claims'").get();
    expect(claims?.sql).toContain('WITHOUT ROWID');
    const claimsIndexes = upgraded
      .prepare(
        "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'claims' AND sql IS NOT NULL",
      )
      .all();
    expect(claimsIndexes).toEqual([]);
    upgraded.close();
    // Opening it again changes nothing.
    await new SqliteStore(path).close();
  });

  it('refuses a database written by a newer schema instead of guessing', async () => {
    const newer = openDatabase(path);
    newer.exec('PRAGMA user_version = 99');
    newer.close();
    expect(() => new SqliteStore(path)).toThrow(/schema version 99/);
  });
});

describe('SQLite claims across processes', () => {
  it('gives the claim to exactly one of three processes racing for it', async () => {
    const directory = await temporaryDirectory();
    const path = join(directory, 'race.sqlite');
    new SqliteStore(path).close();
    const childScript = new URL('./claim-race-child.ts', import.meta.url).pathname;
    const children = Array.from({ length: 3 }, (_, index) =>
      spawn(process.execPath, ['--import', 'tsx', childScript, path, `process-${index}`, '25'], {
        stdio: ['pipe', 'pipe', 'inherit'],
      }),
    );
    try {
      const outputs = children.map((child) =>
        createInterface({ input: child.stdout })[Symbol.asyncIterator](),
      );
      await Promise.all(outputs.map(async (lines) => expect((await lines.next()).value).toBe('ready')));
      for (const child of children) child.stdin.write('go\n');
      const results = await Promise.all(
        outputs.map(
          async (lines) => JSON.parse((await lines.next()).value as string) as { owner: string; won: number },
        ),
      );
      const winners = results.filter((result) => result.won > 0);
      expect(winners).toHaveLength(1);
      // The winner's later attempts are refreshes of its own claim, so they all succeed.
      expect(winners[0]!.won).toBe(25);
      const store = new SqliteStore(path);
      expect(await store.holder('race')).toBe(winners[0]!.owner);
      await store.close();
    } finally {
      for (const child of children) if (child.exitCode === null) child.kill();
      await Promise.all(children.map((child) => (child.exitCode === null ? once(child, 'exit') : undefined)));
      await rm(directory, { recursive: true, force: true });
    }
    // Each child loads TypeScript through tsx, which takes seconds on a busy machine.
  }, 60_000);
});
