// One simulated process for the model test: it can die at once, after a number of store calls, or at a chosen
// store call. Once dead, nothing it started comes back: its store calls, posts and tool calls never answer.
import type { Store } from '../../../agent/store/store.js';

export type StoreCallMatch = (method: string, args: unknown[]) => boolean;
/** A store call the process dies at: before it reaches the store, or just after. */
type FatalCall = { matches: StoreCallMatch; made: boolean };
export type ArmedDeath = { callsLeft: number | undefined; fatalCall: FatalCall | undefined };

const never = <T>(): Promise<T> => new Promise<T>(() => {});

export class ProcessLife {
  dead = false;
  /** Resolves when the process dies. */
  readonly died: Promise<void>;
  private markDied!: () => void;
  private callsLeft: number | undefined;
  private fatalCall: FatalCall | undefined;

  constructor(readonly name: string) {
    this.died = new Promise((resolve) => {
      this.markDied = resolve;
    });
  }

  kill(): void {
    if (this.dead) return;
    this.dead = true;
    this.markDied();
  }

  /** The process dies once its `calls`-th store call from now has been made (that call reaches the store). */
  dieAfterStoreCalls(calls: number): void {
    this.callsLeft = Math.max(1, calls);
  }

  /** Takes away any death waiting at a store call, and returns it, for `resume`. */
  pause(): ArmedDeath {
    const armed = { callsLeft: this.callsLeft, fatalCall: this.fatalCall };
    this.callsLeft = undefined;
    this.fatalCall = undefined;
    return armed;
  }

  resume(armed: ArmedDeath): void {
    this.callsLeft = armed.callsLeft;
    this.fatalCall = armed.fatalCall;
  }

  /** The process dies just before the first store call that matches (the call never reaches the store). */
  dieBefore(matches: StoreCallMatch): void {
    this.fatalCall = { matches, made: false };
  }

  /** The process dies as soon as the first store call that matches has reached the store. */
  dieAfter(matches: StoreCallMatch): void {
    this.fatalCall = { matches, made: true };
  }

  /** Runs one store call: made unless the process is dead, and its answer seen only if it is still alive. */
  storeCall<T>(method: string, args: unknown[], call: () => Promise<T>): Promise<T> {
    const fatal = this.fatalCall?.matches(method, args) ? this.fatalCall : undefined;
    if (fatal && !fatal.made) this.kill();
    if (this.dead) return never();
    let diesNow = fatal !== undefined;
    if (this.callsLeft !== undefined) {
      this.callsLeft -= 1;
      diesNow ||= this.callsLeft <= 0;
    }
    const made = call();
    if (diesNow) {
      made.catch(() => undefined);
      this.kill();
      return never();
    }
    return made.then(
      (value) => (this.dead ? never<T>() : value),
      (error: unknown) => (this.dead ? never<T>() : Promise.reject(error)),
    );
  }

  /** Anything else the process does (posts, tool calls): not started once dead, and never answered after. */
  act<T>(work: () => Promise<T>): Promise<T> {
    if (this.dead) return never();
    return work().then(
      (value) => (this.dead ? never<T>() : value),
      (error: unknown) => (this.dead ? never<T>() : Promise.reject(error)),
    );
  }
}

/** The Store as one process sees it: every call goes through its life. */
export function storeOf(life: ProcessLife, store: Store): Store {
  const call =
    <A extends unknown[], R>(method: (...args: A) => Promise<R>) =>
    (...args: A) =>
      life.storeCall(method.name, args, () => method.apply(store, args));
  return {
    get description() {
      return `${store.description} (as seen by ${life.name})`;
    },
    get: call(store.get) as Store['get'],
    set: call(store.set),
    delete: call(store.delete),
    claim: call(store.claim),
    release: call(store.release),
    holder: call(store.holder),
    append: call(store.append),
    readLog: call(store.readLog) as Store['readLog'],
    addToSet: call(store.addToSet),
    removeFromSet: call(store.removeFromSet),
    members: call(store.members),
    addToIndex: call(store.addToIndex),
    removeFromIndex: call(store.removeFromIndex),
    due: call(store.due),
    // One write at a time, each a store call that a crash can fall between: the strictest case (Redis makes
    // them one by one; SQLite in one transaction, where no crash can fall between them).
    async writeAll(writes) {
      for (const write of writes) {
        switch (write.kind) {
          case 'set':
            await call(store.set)(write.key, write.value, write.ttlMs);
            break;
          case 'delete':
            await call(store.delete)(write.key);
            break;
          case 'append':
            await call(store.append)(write.log, write.record);
            break;
          case 'addToSet':
            await call(store.addToSet)(write.set, write.member);
            break;
          case 'removeFromSet':
            await call(store.removeFromSet)(write.set, write.member);
            break;
          case 'addToIndex':
            await call(store.addToIndex)(write.index, write.member, write.at);
            break;
          case 'removeFromIndex':
            await call(store.removeFromIndex)(write.index, write.member);
            break;
          case 'release':
            await call(store.release)(write.key, write.owner);
            break;
        }
      }
    },
    ping: call(store.ping),
    // The test closes the real connection itself.
    close: async () => undefined,
  };
}
