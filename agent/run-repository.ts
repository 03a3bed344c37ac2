// Loads and saves runs in the Store, validated on the way in, with indexes for active and waiting runs and
// a time index of when each wait expires.
import type { Conversation } from './conversation.js';
import { CallerError, ErrorCode, errorMessage, SystemError } from './errors.js';
import { isTerminal, type Run, waitingUntil } from './run.js';
import { checkRunJson, runJson } from './run-json.js';
import { loadRunRecord } from './run-migrations.js';
import type { IndexEntry, Store, StoreWrite } from './store/store.js';
import { storeKeys } from './store/store-keys.js';

const ACTIVE = storeKeys.activeRuns;
const WAITING = storeKeys.waitingRuns;
const WAIT_EXPIRY = storeKeys.waitExpiry;

export class RunRepository {
  /** The index entries each non-terminal run was last saved with by this process, as `entriesKey` names them. */
  private readonly indexed = new Map<string, string>();

  constructor(private readonly store: Store) {}

  async load(runId: string): Promise<Run> {
    const run = await this.find(runId);
    if (!run) throw new CallerError(ErrorCode.RunNotFound, `There is no run ${runId}`);
    return run;
  }

  async find(runId: string): Promise<Run | undefined> {
    const raw = await this.guard('read', () => this.store.get<unknown>(runKey(runId)));
    // Another process may have moved the run and its index entries since this one saved it: its next save
    // here writes them again.
    this.indexed.delete(runId);
    if (raw === undefined) return undefined;
    return loadRunRecord(raw, `stored run ${runId}`);
  }

  /**
   * Saves the whole record and its index entries in one batch (one transaction on SQLite), with `writeFirst`
   * before them and `alsoWrite` after them. Where the backend makes them one by one, entries are added before the record and removed after
   * it, so a crash between the writes leaves a run indexed where recovery and the expiry sweep look.
   */
  async save(
    run: Run,
    alsoWrite: readonly StoreWrite[] = [],
    writeFirst: readonly StoreWrite[] = [],
  ): Promise<void> {
    await this.guard('save', async () => {
      // The index entries are idempotent, and queued, running and executing share theirs (as do both waiting
      // states with the same expiry): rewrite them only when the run moved to other entries since this process
      // saved it.
      const entries = indexEntries(run);
      const key = entriesKey(entries);
      // A run kept for a bounded time (a patrol's) expires that long after it ended.
      const ttl = entries.kind === 'ended' && run.keepForMs ? { ttlMs: run.keepForMs } : {};
      const record: StoreWrite = { kind: 'set', key: runKey(run.id), value: run, json: jsonOf(run), ...ttl };
      const writes = this.indexed.get(run.id) !== key ? indexedSave(run.id, entries, record) : [record];
      const all =
        alsoWrite.length + writeFirst.length > 0 ? [...writeFirst, ...writes, ...alsoWrite] : writes;
      await this.store.writeAll(all);
      if (entries.kind === 'ended') this.indexed.delete(run.id);
      else this.indexed.set(run.id, key);
    });
  }

  /**
   * Saves a new run with its index entry and its place in its thread's log, so later runs there can see its
   * outcome: one batch, as a save is. Its id is new, so no index set can hold it yet.
   */
  async create(run: Run): Promise<void> {
    await this.guard('save', async () => {
      const entries = indexEntries(run);
      // A run kept for a bounded time stays out of its thread's memory: the log would outlive it.
      const writes: StoreWrite[] = run.keepForMs
        ? []
        : [{ kind: 'append', log: threadLog(run.conversation), record: run.id }];
      if (entries.kind !== 'ended') writes.push({ kind: 'addToSet', set: ACTIVE, member: run.id });
      if (entries.kind === 'waiting') {
        writes.push({ kind: 'addToSet', set: WAITING, member: run.id });
        writes.push({ kind: 'addToIndex', index: WAIT_EXPIRY, member: run.id, at: entries.until });
      }
      writes.push({ kind: 'set', key: runKey(run.id), value: run, json: jsonOf(run) });
      await this.store.writeAll(writes);
      if (entries.kind !== 'ended') this.indexed.set(run.id, entriesKey(entries));
    });
  }

  async threadRunIds(conversation: Conversation): Promise<string[]> {
    return this.guard('read', () => this.store.readLog<string>(threadLog(conversation)));
  }

  async activeRunIds(): Promise<string[]> {
    return this.guard('read', () => this.store.members(ACTIVE));
  }

  async waitingRunIds(): Promise<string[]> {
    return this.guard('read', () => this.store.members(WAITING));
  }

  /** Up to `limit` waiting runs whose question or approval expires at or before `upTo`, earliest first. */
  async dueWaits(upTo: number, limit: number): Promise<IndexEntry[]> {
    return this.guard('read', () => this.store.due(WAIT_EXPIRY, upTo, limit));
  }

  /**
   * Puts a run's wait-expiry entry right from its stored record: moved to when its wait now ends, or removed
   * when it no longer waits. For entries a crash, a backfill or another process's save left stale; returns
   * when the run's wait ends now, if it waits.
   */
  async reindexWaitExpiry(runId: string): Promise<number | undefined> {
    const run = await this.find(runId);
    const until = run ? waitingUntil(run) : undefined;
    await this.guard('save', () =>
      until === undefined
        ? this.store.removeFromIndex(WAIT_EXPIRY, runId)
        : this.store.addToIndex(WAIT_EXPIRY, runId, until),
    );
    return until;
  }

  private async guard<T>(action: 'read' | 'save', operation: () => Promise<T>): Promise<T> {
    try {
      return await operation();
    } catch (error) {
      if (error instanceof CallerError || error instanceof SystemError) throw error;
      throw new SystemError(
        ErrorCode.StoreUnavailable,
        `Could not ${action} the run in the store: ${errorMessage(error)}`,
        { cause: error },
      );
    }
  }
}

const runKey = storeKeys.run;

/** Tests set OPSBOT_CHECK_RUN_JSON=1 to check every save's JSON against JSON.stringify. */
const checking = process.env.OPSBOT_CHECK_RUN_JSON === '1';

function jsonOf(run: Run): string {
  const json = runJson(run);
  if (checking) checkRunJson(run, json);
  return json;
}

/** Which indexes hold a run: active only; active, waiting and wait-expiry (at `until`); or none once it ended. */
type IndexEntries = { kind: 'active' } | { kind: 'waiting'; until: number } | { kind: 'ended' };

/** Equal for two saves exactly when their index entries are the same. */
function entriesKey(entries: IndexEntries): string {
  return entries.kind === 'waiting' ? `waiting@${entries.until}` : entries.kind;
}

/** The record with its index entries: additions before it, removals after it. */
function indexedSave(runId: string, entries: IndexEntries, record: StoreWrite): StoreWrite[] {
  const unindex: StoreWrite = { kind: 'removeFromIndex', index: WAIT_EXPIRY, member: runId };
  if (entries.kind === 'ended') {
    return [
      record,
      { kind: 'removeFromSet', set: ACTIVE, member: runId },
      { kind: 'removeFromSet', set: WAITING, member: runId },
      unindex,
    ];
  }
  if (entries.kind === 'waiting') {
    return [
      { kind: 'addToSet', set: ACTIVE, member: runId },
      { kind: 'addToSet', set: WAITING, member: runId },
      { kind: 'addToIndex', index: WAIT_EXPIRY, member: runId, at: entries.until },
      record,
    ];
  }
  return [
    { kind: 'addToSet', set: ACTIVE, member: runId },
    record,
    { kind: 'removeFromSet', set: WAITING, member: runId },
    unindex,
  ];
}

function indexEntries(run: Run): IndexEntries {
  if (isTerminal(run.status)) return { kind: 'ended' };
  const until = waitingUntil(run);
  return until === undefined ? { kind: 'active' } : { kind: 'waiting', until };
}
const threadLog = storeKeys.threadRuns;
