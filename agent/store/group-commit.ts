// Group commit for SQLite: the write batches asked for in one turn of the event loop are committed together, in
// one transaction. A small write's cost is mostly its transaction (the lock, and the pages written to the WAL
// at commit), so runs that save at about the same time share it. Each caller's promise settles after the commit
// that holds its batch, so a resolved write is on disk as before; only the moment it happens moves, by at most
// one turn of the loop. A batch stays atomic: when a group fails, each batch is tried again on its own, so only
// the batch at fault fails, and only its caller hears of it.

// From node:timers, not the global: a test's fake timers replace the global, and a commit is I/O, not a timer
// (a test that stops time must not stop its store).
import { setImmediate as nextTurn } from 'node:timers';

/** One caller's writes, already serialized; run inside the group's transaction. */
export type Batch = readonly (() => void)[];

interface Waiting {
  batch: Batch;
  /** Commits this batch alone (in its own transaction), throwing the error a caller should see. */
  alone: () => void;
  resolve: () => void;
  reject: (error: unknown) => void;
}

export class GroupCommit {
  private waiting: Waiting[] = [];

  constructor(
    /** Commits all the batches in one transaction, or throws and commits none. */
    private readonly commitAll: (batches: readonly Batch[]) => void,
    private readonly later: (flush: () => void) => void = nextTurn,
  ) {}

  /** Resolves once `batch` is committed, with the others asked for in this turn of the loop. */
  add(batch: Batch, alone: () => void): Promise<void> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ batch, alone, resolve, reject });
      if (this.waiting.length === 1) this.later(() => this.flush());
    });
  }

  /** Commits what is waiting now (the store calls it before closing). */
  flush(): void {
    const group = this.waiting;
    if (group.length === 0) return;
    this.waiting = [];
    try {
      this.commitAll(group.map((waiting) => waiting.batch));
    } catch {
      // Nothing of the group was written: each batch on its own, so that one bad batch fails only its caller.
      for (const waiting of group) {
        try {
          waiting.alone();
          waiting.resolve();
        } catch (error) {
          waiting.reject(error);
        }
      }
      return;
    }
    for (const waiting of group) waiting.resolve();
  }
}
