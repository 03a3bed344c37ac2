// The last changes this process saved, by reference, so a reconnecting browser's replay reads a bounded number.

/** Changes a reconnect may replay; a browser that missed more loads the history itself, page by page. */
export const REPLAY_LIMIT = 500;

export interface ChangeRef {
  type: 'message' | 'channel';
  id: string;
  seq: number;
}

/**
 * Only this process's changes are known here (the live stream is per process too). `floor` is the newest
 * sequence number the window no longer covers: a browser asking from below it has missed changes that are not
 * here, and is told to load the history instead of being sent a partial replay.
 */
export class RecentChanges {
  private readonly refs: ChangeRef[] = [];
  private floorSeq: number;

  constructor(
    startSeq: number,
    private readonly limit = REPLAY_LIMIT,
  ) {
    this.floorSeq = startSeq;
  }

  get floor(): number {
    return this.floorSeq;
  }

  add(ref: ChangeRef): void {
    this.refs.push(ref);
    if (this.refs.length > this.limit) this.floorSeq = this.refs.shift()!.seq;
  }

  /**
   * What changed after `seq`, oldest first, each message or channel once (its latest change); undefined when
   * `seq` is older than the window.
   */
  since(seq: number): ChangeRef[] | undefined {
    if (seq < this.floorSeq) return undefined;
    const latest = new Map<string, ChangeRef>();
    for (const ref of this.refs) {
      if (ref.seq <= seq) continue;
      const key = `${ref.type}:${ref.id}`;
      latest.delete(key);
      latest.set(key, ref);
    }
    return [...latest.values()];
  }
}
