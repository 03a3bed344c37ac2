// Paces posts to about one per second per channel, Slack's sustained rate, by reserving each channel's next slot.

export interface ChannelPacerOptions {
  intervalMs?: number;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

export const realSleep = (ms: number) =>
  new Promise<void>((resolve) => {
    setTimeout(resolve, ms);
  });

export class ChannelPacer {
  private readonly next = new Map<string, number>();
  private readonly intervalMs: number;
  private readonly now: () => number;
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(options: ChannelPacerOptions = {}) {
    this.intervalMs = options.intervalMs ?? 1_000;
    this.now = options.now ?? Date.now;
    this.sleep = options.sleep ?? realSleep;
  }

  /** Resolves when this channel's next slot comes; concurrent callers get successive slots, in call order. */
  async wait(channel: string): Promise<void> {
    if (this.intervalMs <= 0) return;
    const now = this.now();
    const at = Math.max(now, this.next.get(channel) ?? 0);
    this.next.set(channel, at + this.intervalMs);
    if (this.next.size > 1_000) this.forgetIdle(now);
    if (at > now) await this.sleep(at - now);
  }

  private forgetIdle(now: number): void {
    for (const [channel, at] of this.next) if (at < now) this.next.delete(channel);
  }
}
