// One leader among processes, through a claim in the Store: the leader renews it every `intervalMs`, a standby
// tries to take it as often, and a claim that is not renewed (its holder killed or frozen) lapses after `ttlMs`,
// so another process takes over. Used for Discord's one gateway session per bot token.
import type { Clock } from '../../agent/clock.js';
import { formatDuration } from '../../agent/duration-text.js';
import { errorMessage } from '../../agent/errors.js';
import type { Logger } from '../../agent/logger.js';
import type { Store } from '../../agent/store/store.js';

export interface LeaderClaimOptions {
  store: Pick<Store, 'claim' | 'release' | 'holder'>;
  key: string;
  /** This process's instance id. */
  owner: string;
  /** How long the claim lasts unrenewed: a killed leader's successor takes over after at most this plus one interval. */
  ttlMs: number;
  /** How often the leader renews and a standby tries; a quarter of ttlMs unless given. */
  intervalMs?: number;
  clock: Clock;
  logger: Logger;
  /** This process has just become the leader. */
  onWon(): void;
  /** This process is no longer the leader (someone else holds the claim, or it could not renew it in time). */
  onLost(reason: string): void;
}

export type LeaderState = { leader: true } | { leader: false; holder: string | undefined };

export class LeaderClaim {
  private leading = false;
  /** When the last successful claim or renewal was sent: the claim holds until at least ttlMs after it. */
  private renewedAt = 0;
  private timer: NodeJS.Timeout | undefined;
  private ticking: Promise<void> | undefined;
  private stopped = false;

  constructor(private readonly options: LeaderClaimOptions) {}

  get intervalMs(): number {
    return this.options.intervalMs ?? Math.max(100, Math.floor(this.options.ttlMs / 4));
  }

  get isLeader(): boolean {
    return this.leading;
  }

  /** Tries once (calling onWon if it wins), then keeps renewing or trying; resolves with whether it leads. */
  async start(): Promise<boolean> {
    await this.tick();
    if (!this.stopped) {
      this.timer = setInterval(() => void this.tick(), this.intervalMs);
      this.timer.unref();
    }
    return this.leading;
  }

  /** One renewal (leader) or attempt (standby); concurrent calls share one. */
  tick(): Promise<void> {
    this.ticking ??= this.attempt().finally(() => {
      this.ticking = undefined;
    });
    return this.ticking;
  }

  /** Who leads, as this process sees it: itself, or the current holder (undefined when nobody holds it). */
  async state(): Promise<LeaderState> {
    if (this.leading) return { leader: true };
    return { leader: false, holder: await this.options.store.holder(this.options.key) };
  }

  /**
   * Gives the claim up while staying in the race, e.g. when the work that leading means could not start: another
   * process may take it, and this one tries again at its next interval. onLost is not called.
   */
  async resign(): Promise<void> {
    if (!this.leading) return;
    this.leading = false;
    await this.release();
  }

  /** Stops renewing and trying, after the tick in flight; the claim is kept until `release` (or its ttl). */
  async halt(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.ticking;
  }

  /** Releases the claim if this process holds it, so a successor need not wait for it to lapse. */
  async release(): Promise<void> {
    this.leading = false;
    const { store, key, owner, logger } = this.options;
    await store
      .release(key, owner)
      .catch((error) =>
        logger.warn(
          { key, err: errorMessage(error) },
          'could not release a leader claim; it lapses by itself',
        ),
      );
  }

  private async attempt(): Promise<void> {
    if (this.stopped) return;
    const { store, key, owner, ttlMs, clock, logger } = this.options;
    const sentAt = clock.now();
    let won: boolean;
    try {
      won = await store.claim(key, owner, ttlMs);
    } catch (error) {
      if (this.leading && clock.now() - this.renewedAt >= ttlMs)
        this.lose(
          `could not renew the claim for ${formatDuration(ttlMs)} (${errorMessage(error)}), so it may have lapsed`,
        );
      else logger.warn({ key, err: errorMessage(error) }, 'could not renew or take a leader claim');
      return;
    }
    if (this.stopped) return;
    if (won) {
      this.renewedAt = sentAt;
      if (this.leading) return;
      this.leading = true;
      logger.info({ key, owner }, `won the leader claim ${key}`);
      this.options.onWon();
    } else if (this.leading) {
      const holder = await store.holder(key).catch(() => undefined);
      this.lose(`${holder ?? 'another process'} holds the claim now`);
    }
  }

  private lose(reason: string): void {
    this.leading = false;
    this.options.logger.warn(
      { key: this.options.key },
      `lost the leader claim ${this.options.key}: ${reason}`,
    );
    this.options.onLost(reason);
  }
}
