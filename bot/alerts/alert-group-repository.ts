// Alert groups in the Store: one record per `groupKey`, and a claim that lets one process at a time change it, so
// an HA pair's twin notifications, or two gateways, make one root between them.
import { createHash, randomBytes } from 'node:crypto';
import type { Store } from '../../agent/store/store.js';
import { storeKeys } from '../../agent/store/store-keys.js';
import { type AlertGroupRecord, AlertGroupRecordSchema } from './alert-group-state.js';

/** A resolved group's record is kept this long, so a late resend of its last notification still posts nothing. */
const KEEP_RESOLVED_MS = 7 * 86_400_000;
/** Longer than one notification takes to handle (a post and an edit); a crashed holder's claim lapses after it. */
const LOCK_MS = 30_000;
const LOCK_WAIT_MS = 20_000;

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

  async save(record: AlertGroupRecord): Promise<void> {
    const open = record.status === 'firing';
    await this.store.writeAll([
      {
        kind: 'set',
        key: storeKeys.alertGroup(record.groupId),
        value: record,
        ...(open ? {} : { ttlMs: KEEP_RESOLVED_MS }),
      },
      open
        ? { kind: 'addToSet', set: storeKeys.openAlertGroups, member: record.groupId }
        : { kind: 'removeFromSet', set: storeKeys.openAlertGroups, member: record.groupId },
    ]);
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
