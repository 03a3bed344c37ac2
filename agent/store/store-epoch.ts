// The store's epoch: a random id written at first start and read back now and then. A store that was emptied
// (Redis FLUSHALL, a SQLite file replaced) has lost it, or holds another replica's new one: that is a reset.
import { randomHex } from '../random-id.js';
import type { Store } from './store.js';
import { storeKeys } from './store-keys.js';

/** Held as a claim for ever (about a century): a claim is written once by whichever process comes first. */
const EPOCH_HOLD_MS = 100 * 365 * 86_400_000;

export type EpochCheck =
  /** The store holds the epoch this process knows. */
  | { reset: false; epoch: string }
  /** The epoch was gone or changed: the store was reset since `previous`; `epoch` is the one it holds now. */
  | { reset: true; previous: string; epoch: string };

export class StoreEpoch {
  private known: string | undefined;

  constructor(
    private readonly store: Pick<Store, 'claim' | 'holder'>,
    private readonly newId: () => string = () => `epoch_${randomHex(12)}`,
  ) {}

  /** The epoch this process knows, once started. */
  get current(): string | undefined {
    return this.known;
  }

  /** At start: adopts the store's epoch, or writes one (a first start, or a store emptied while nobody ran). */
  async start(): Promise<string> {
    this.known = await this.adopt();
    return this.known;
  }

  /** Reads the epoch again; a missing or changed one is a reset, after which the store's new epoch is known. */
  async check(): Promise<EpochCheck> {
    const previous = this.known ?? (await this.start());
    const held = await this.store.holder(storeKeys.storeEpoch);
    if (held === previous) return { reset: false, epoch: previous };
    // Gone: this process writes the new one, unless another replica has just done so.
    this.known = held ?? (await this.adopt());
    return { reset: true, previous, epoch: this.known };
  }

  private async adopt(): Promise<string> {
    const mine = this.newId();
    if (await this.store.claim(storeKeys.storeEpoch, mine, EPOCH_HOLD_MS)) return mine;
    const held = await this.store.holder(storeKeys.storeEpoch);
    // Taken and gone again between the two calls: take it now.
    if (held !== undefined) return held;
    await this.store.claim(storeKeys.storeEpoch, mine, EPOCH_HOLD_MS);
    return mine;
  }
}
