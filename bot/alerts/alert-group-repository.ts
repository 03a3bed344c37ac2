// Alert groups in the Store: one record per `groupKey`, and a claim that lets one process at a time change it, so
// an HA pair's twin notifications, or two gateways, make one root between them.
import { createHash, randomBytes } from 'node:crypto';
import type { Store } from '../../agent/store/store.js';
import { storeKeys } from '../../agent/store/store-keys.js';
import { type AlertGroupRecord, AlertGroupRecordSchema, hasPending } from './alert-group-state.js';

/** A resolved group's record is kept this long, so a late resend of its last notification still posts nothing. */
const KEEP_RESOLVED_MS = 7 * 86_400_000;
/** Longer than one notification takes to handle (a post and an edit); a crashed holder's claim lapses after it. */
const LOCK_MS = 30_000;
const LOCK_WAIT_MS = 20_000;
/**
 * Longer than one pass of posts takes, Slack's pacing of one post a second per channel included; a crashed
 * holder's posts are taken up by another process after it.
 */
const DELIVERY_LOCK_MS = 120_000;

/** The group's id in keys and buttons: Alertmanager's `groupKey` is long and full of quotes and braces. */
export function alertGroupId(groupKey: string): string {
  return createHash('sha256').update(groupKey).digest('base64url').slice(0, 24);
}

export class AlertGroupLockTimeout extends Error {
  constructor(groupKey: string) {
    super(`another process held the alert group ${groupKey} for longer than ${LOCK_WAIT_MS / 1000} s`);
    this.name = 'AlertGroupLockTimeout';
  }
}

export class AlertGroupRepository {
  constructor(
    private readonly store: Store,
    /** Polls while another process holds a group; tests give a fast one. */
    private readonly pause: (ms: number) => Promise<void> = (ms) =>
      new Promise((resolve) => setTimeout(resolve, ms)),
  ) {}

  async find(groupId: string): Promise<AlertGroupRecord | undefined> {
    const stored = await this.store.get<unknown>(storeKeys.alertGroup(groupId));
    if (stored === undefined) return undefined;
    const parsed = AlertGroupRecordSchema.safeParse(stored);
    // A record that does not parse is treated as absent: the next notification opens the group again.
    return parsed.success ? parsed.data : undefined;
  }

  /** Saves a change of the group: its revision moves on, so posts made from the record before it are redone. */
  save(record: AlertGroupRecord): Promise<void> {
    return this.write({ ...record, revision: record.revision + 1 });
  }

  /** Saves what a delivery posted (a message id, a reply done): the group's content did not change. */
  saveDelivered(record: AlertGroupRecord): Promise<void> {
    return this.write(record);
  }

  /** Groups with posts still to make whose next try is due by `upTo`. */
  async pendingDue(upTo: number, limit: number): Promise<string[]> {
    return (await this.store.due(storeKeys.pendingAlertGroups, upTo, limit)).map((entry) => entry.member);
  }

  /**
   * Runs `work` if no other process is posting for the group now, and returns undefined otherwise: that process
   * reads the group again before it lets go, so it posts what this one would have.
   */
  async delivering<T>(groupId: string, work: () => Promise<T>): Promise<T | undefined> {
    const key = storeKeys.alertGroupDelivery(groupId);
    const owner = `delivery_${randomBytes(8).toString('hex')}`;
    if (!(await this.store.claim(key, owner, DELIVERY_LOCK_MS))) return undefined;
    try {
      return await work();
    } finally {
      await this.store.release(key, owner);
    }
  }

  private async write(record: AlertGroupRecord): Promise<void> {
    const open = record.status === 'firing';
    const pending = record.pending;
    await this.store.writeAll([
      {
        kind: 'set',
        key: storeKeys.alertGroup(record.groupId),
        value: record,
        ...(open || hasPending(pending) ? {} : { ttlMs: KEEP_RESOLVED_MS }),
      },
      open
        ? { kind: 'addToSet', set: storeKeys.openAlertGroups, member: record.groupId }
        : { kind: 'removeFromSet', set: storeKeys.openAlertGroups, member: record.groupId },
      hasPending(pending)
        ? {
            kind: 'addToIndex',
            index: storeKeys.pendingAlertGroups,
            member: record.groupId,
            at: pending.retryAt ?? 0,
          }
        : { kind: 'removeFromIndex', index: storeKeys.pendingAlertGroups, member: record.groupId },
    ]);
  }

  /** How many groups have posts still to make, due or waiting for a retry (counted up to 10,000). */
  async pendingCount(): Promise<number> {
    return (await this.pendingDue(Number.MAX_SAFE_INTEGER, 10_000)).length;
  }

  /** The ids of the groups firing now. */
  openIds(): Promise<string[]> {
    return this.store.members(storeKeys.openAlertGroups);
  }

  async openCount(): Promise<number> {
    return (await this.store.members(storeKeys.openAlertGroups)).length;
  }

  /** Runs `work` while this process alone holds the group, waiting (polling) while another one does. */
  async exclusively<T>(groupId: string, groupKey: string, work: () => Promise<T>): Promise<T> {
    const key = storeKeys.alertGroupLock(groupId);
    const owner = `alerts_${randomBytes(8).toString('hex')}`;
    // Counted in waits, not read from the clock: a test's manual clock does not move while this waits.
    let waited = 0;
    let wait = 10;
    while (!(await this.store.claim(key, owner, LOCK_MS))) {
      if (waited > LOCK_WAIT_MS) throw new AlertGroupLockTimeout(groupKey);
      await this.pause(wait);
      waited += wait;
      wait = Math.min(wait * 2, 200);
    }
    try {
      return await work();
    } finally {
      await this.store.release(key, owner);
    }
  }
}
