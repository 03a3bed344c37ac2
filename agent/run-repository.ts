// Loads and saves runs in the Store, validated on the way in, with indexes for active and waiting runs.
import type { Conversation } from './conversation.js';
import { CallerError, ErrorCode, errorMessage, SystemError } from './errors.js';
import { isTerminal, type Run } from './run.js';
import { loadRunRecord } from './run-migrations.js';
import type { Store } from './store/store.js';
import { storeKeys } from './store/store-keys.js';

const ACTIVE = storeKeys.activeRuns;
const WAITING = storeKeys.waitingRuns;

export class RunRepository {
  /** Status each non-terminal run was last indexed under by this process, since it last loaded the run. */
  private readonly indexed = new Map<string, Run['status']>();

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
   * Saves the whole record and its index entries. Entries are added before the record and removed after it, so
   * a crash between the writes leaves a run indexed where recovery and the expiry sweep look, never missing.
   */
  async save(run: Run): Promise<void> {
    await this.guard('save', async () => {
      // The index entries are idempotent; rewrite them only when the status moved since this process saved it.
      const moved = this.indexed.get(run.id) !== run.status;
      const waiting = run.status === 'waiting_for_user' || run.status === 'waiting_for_approval';
      if (moved && !isTerminal(run.status)) {
        await this.store.addToSet(ACTIVE, run.id);
        if (waiting) await this.store.addToSet(WAITING, run.id);
      }
      await this.store.set(runKey(run.id), run);
      if (!moved) return;
      if (isTerminal(run.status)) {
        await this.store.removeFromSet(ACTIVE, run.id);
        await this.store.removeFromSet(WAITING, run.id);
      } else if (!waiting) {
        await this.store.removeFromSet(WAITING, run.id);
      }
      if (isTerminal(run.status)) this.indexed.delete(run.id);
      else this.indexed.set(run.id, run.status);
    });
  }

  /** Records that a run belongs to a thread, so later runs there can see its outcome. */
  async addToThread(conversation: Conversation, runId: string): Promise<void> {
    await this.guard('save', () => this.store.append(threadLog(conversation), runId));
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
const threadLog = storeKeys.threadRuns;
