// A circuit breaker that stops calling a dependency after repeated failures and probes it again with backoff. Its
// state lives in the Store, so an opening survives a restart and holds for every process on the same Store.
import {
  afterFailure,
  type BreakerState,
  type CircuitBreakerOptions,
  type CircuitBreakerOptionsInput,
  type CircuitState,
  circuitState,
  closedState,
  isClean,
  parseBreakerOptions,
  readBreakerState,
} from './breaker-state.js';
import { type Clock, systemClock } from './clock.js';
import { errorMessage } from './errors.js';
import { type Logger, silentLogger } from './logger.js';
import { randomHex } from './random-id.js';
import { MemoryStore } from './store/memory-store.js';
import type { Store, StoreWrite } from './store/store.js';
import { storeKeys } from './store/store-keys.js';

export type { CircuitBreakerOptionsInput } from './breaker-state.js';

export interface CircuitBreakerSetup {
  /** Names the breaker in the Store (`breaker:<name>`) and in logs, such as `tool:read_logs`. */
  name: string;
  options?: CircuitBreakerOptionsInput;
  /** Where the state is kept; without one, a store of its own that lasts as long as the process. */
  store?: Store;
  clock?: Clock;
  logger?: Logger;
}

/**
 * The Store holds the truth; this process keeps a copy, so a call while nothing changes costs no round trip. The
 * copy is read from the Store at the first call, again at each failure and when an opening has run out (another
 * process may have counted failures, re-opened or closed the breaker since), and written back on each change.
 * So a process learns of an opening made elsewhere at its next failure, and only one process sends the trial.
 * Two processes failing at the same moment may count one failure between them: a breaker needs no more.
 */
export class CircuitBreaker {
  readonly name: string;
  readonly options: CircuitBreakerOptions;
  private readonly store: Store;
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly key: string;
  private readonly trialKey: string;
  /** Holds the trial claim in the Store, so that one process at a time probes the dependency. */
  private readonly owner = `breaker_${randomHex(6)}`;
  private copy: BreakerState;
  private loaded: Promise<void> | undefined;
  /** When this process's trial started; a trial that never reports back frees the slot after the open time. */
  private trialStartedAt: number | null = null;
  /** Changes of this process, one after another, so that two at once cannot lose a failure. */
  private changes: Promise<unknown> = Promise.resolve();
  /** Whether the last Store operation failed, so an outage of the Store is logged once, not on every call. */
  private storeTrouble = false;
  /** A change the Store did not take: the copy is newer than the record until the next write saves it. */
  private unsaved = false;

  constructor(setup: CircuitBreakerSetup) {
    this.name = setup.name;
    this.options = parseBreakerOptions(setup.options, `circuit breaker ${setup.name}`);
    this.clock = setup.clock ?? systemClock;
    this.store = setup.store ?? new MemoryStore(this.clock);
    this.logger = setup.logger ?? silentLogger;
    this.key = storeKeys.breaker(setup.name);
    this.trialKey = storeKeys.breakerTrial(setup.name);
    this.copy = closedState(this.options);
  }

  /** As this process last read or changed it. */
  state(): CircuitState {
    return circuitState(this.copy, this.clock.now());
  }

  /** Epoch ms when an open breaker lets a trial through; undefined unless open. */
  /** When the present run of failures began, as far as the copy knows; undefined after a success. */
  failingSince(): number | undefined {
    return this.copy.consecutiveFailures > 0 ? this.copy.failingSince : undefined;
  }

  reopensAt(): number | undefined {
    return this.state() === 'open' ? (this.copy.reopensAt ?? undefined) : undefined;
  }

  consecutiveFailures(): number {
    return this.copy.consecutiveFailures;
  }

  /**
   * Whether a call may go ahead now. While half-open only one trial is let through, across the processes sharing
   * the Store; the caller must then report its outcome with recordSuccess, recordFailure or recordCancelled.
   */
  async canPass(): Promise<boolean> {
    this.loaded ??= this.refresh().then((read) => {
      if (!read) this.loaded = undefined;
    });
    await this.loaded;
    const state = this.state();
    if (state === 'closed') return true;
    if (state === 'open') return false;
    return this.change(async () => {
      if (this.trialUnderWay()) return false;
      await this.refresh();
      const fresh = this.state();
      if (fresh !== 'half_open') return fresh === 'closed';
      if (!(await this.claimTrial())) return false;
      this.trialStartedAt = this.clock.now();
      return true;
    });
  }

  recordSuccess(): Promise<void> {
    // A success with nothing to forget, the common case, changes nothing and touches no Store.
    if (this.trialStartedAt === null && !this.unsaved && isClean(this.copy, this.options))
      return Promise.resolve();
    return this.change(async () => {
      this.copy = closedState(this.options);
      await this.write([this.stateWrite(), ...this.endTrial()]);
    });
  }

  recordFailure(): Promise<void> {
    return this.change(async () => {
      await this.refresh();
      this.copy = afterFailure(this.copy, this.clock.now(), this.options);
      await this.write([this.stateWrite(), ...this.endTrial()]);
    });
  }

  /** The call ended without telling anything about the dependency (for example the caller aborted it). */
  recordCancelled(): Promise<void> {
    if (this.trialStartedAt === null) return Promise.resolve();
    return this.change(() => this.write([...(this.unsaved ? [this.stateWrite()] : []), ...this.endTrial()]));
  }

  /** The copy as the Store keeps it: no record for a clean breaker. */
  private stateWrite(): StoreWrite {
    return isClean(this.copy, this.options)
      ? { kind: 'delete', key: this.key }
      : { kind: 'set', key: this.key, value: this.copy };
  }

  private trialUnderWay(): boolean {
    return this.trialStartedAt !== null && this.clock.now() - this.trialStartedAt < this.copy.openMs;
  }

  /** Ends this process's trial, if it has one: the release of its claim, to write with the outcome. */
  private endTrial(): StoreWrite[] {
    if (this.trialStartedAt === null) return [];
    this.trialStartedAt = null;
    return [{ kind: 'release', key: this.trialKey, owner: this.owner }];
  }

  private change<T>(work: () => Promise<T>): Promise<T> {
    const done = this.changes.then(work);
    this.changes = done.catch(() => {});
    return done;
  }

  /** Reads the stored state into the copy; false, with the copy kept, when the Store does not answer. */
  private async refresh(): Promise<boolean> {
    if (this.unsaved) return true;
    let stored: unknown;
    try {
      stored = await this.store.get<unknown>(this.key);
    } catch (error) {
      this.trouble('read', error);
      return false;
    }
    this.storeTrouble = false;
    const read = readBreakerState(stored, this.options);
    if (read.unreadable) {
      this.logger.warn(
        { breaker: this.name, stored },
        `circuit breaker ${this.name}: its stored state is not one this version reads; it starts closed`,
      );
    }
    this.copy = read.state;
    return true;
  }

  /** Without the Store, the trial goes ahead: a second trial from another process is better than none. */
  private async claimTrial(): Promise<boolean> {
    try {
      const claimed = await this.store.claim(this.trialKey, this.owner, this.copy.openMs);
      this.storeTrouble = false;
      return claimed;
    } catch (error) {
      this.trouble('claim the trial of', error);
      return true;
    }
  }

  private async write(writes: readonly StoreWrite[]): Promise<void> {
    try {
      await this.store.writeAll(writes);
      this.storeTrouble = false;
      this.unsaved = false;
    } catch (error) {
      this.unsaved = true;
      this.trouble('save', error);
    }
  }

  private trouble(action: string, error: unknown): void {
    if (this.storeTrouble) return;
    this.storeTrouble = true;
    this.logger.warn(
      { breaker: this.name, err: errorMessage(error) },
      `circuit breaker ${this.name}: could not ${action} its state in the store; this process goes on with its own copy until the store answers`,
    );
  }
}

export interface BreakerRegistrySetup {
  /** Put before each name in the Store and in logs: `tool` makes `tool:read_logs`. */
  prefix: string;
  options?: CircuitBreakerOptionsInput;
  store?: Store;
  clock?: Clock;
  logger?: Logger;
}

/** One breaker per name (for example per tool), all with the same options, Store and clock. */
export class BreakerRegistry {
  readonly options: CircuitBreakerOptions;
  private readonly breakers = new Map<string, CircuitBreaker>();

  constructor(private readonly setup: BreakerRegistrySetup) {
    this.options = parseBreakerOptions(setup.options, `${setup.prefix} breakers`);
  }

  get(name: string): CircuitBreaker {
    let breaker = this.breakers.get(name);
    if (!breaker) {
      breaker = new CircuitBreaker({
        ...this.setup,
        name: `${this.setup.prefix}:${name}`,
        options: this.options,
      });
      this.breakers.set(name, breaker);
    }
    return breaker;
  }

  names(): string[] {
    return [...this.breakers.keys()];
  }
}
