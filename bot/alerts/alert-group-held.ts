// Alertmanager sends no notification for an alert it silences or inhibits, not even when it resolves, so a
// silenced group's thread would read FIRING for ever. With tools.alertmanager.url set, this sweep asks Alertmanager
// which alerts it still holds, every minute, and closes in the thread the alerts it no longer has: missing on two
// passes in a row, so an Alertmanager that restarted and has not yet been sent its alerts again closes nothing.
// It also takes a silence that ended off its root, so the Silence buttons come back.
import type { Clock } from '../../agent/clock.js';
import { errorMessage } from '../../agent/errors.js';
import type { Logger } from '../../agent/logger.js';
import { systemTimers, type Timers } from '../../agent/timers.js';
import type { AlertmanagerReader } from '../../tools/index.js';
import type { AlertGroupDelivery } from './alert-group-delivery.js';
import type { AlertGroupRepository } from './alert-group-repository.js';
import { type AlertGroupRecord, heldPayload, withRootEdit } from './alert-group-state.js';
import type { AlertNotifications } from './alert-notifications.js';

export const HELD_SWEEP_MS = 60_000;

export const LEARNED_NOTE =
  'Alertmanager no longer has these alerts. It sends no resolved notification for silenced or inhibited alerts, so opsbot asked it.';

export interface HeldAlertSweepOptions {
  reader: AlertmanagerReader;
  repository: AlertGroupRepository;
  notifications: Pick<AlertNotifications, 'learned'>;
  delivery: Pick<AlertGroupDelivery, 'deliverSoon'>;
  clock: Clock;
  logger: Logger;
  timers?: Timers;
  intervalMs?: number;
}

export class HeldAlertSweep {
  /** Per group, the fingerprints found missing on the last pass. */
  private missing = new Map<string, Set<string>>();
  private readonly timers: Timers;
  private timer: unknown;
  private running: Promise<void> | undefined;
  private stopped = true;

  constructor(private readonly options: HeldAlertSweepOptions) {
    this.timers = options.timers ?? systemTimers;
  }

  start(): void {
    this.stopped = false;
    this.schedule();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.timers.clearTimeout(this.timer);
    await this.running;
  }

  /** One pass; passes never overlap. Never throws: a failure is logged, and the next pass tries again. */
  pass(): Promise<void> {
    this.running ??= this.sweep()
      .catch((error) =>
        this.options.logger.warn(
          { err: errorMessage(error) },
          'could not ask Alertmanager which alerts it holds; silenced alert groups are checked again in a minute',
        ),
      )
      .finally(() => {
        this.running = undefined;
      });
    return this.running;
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = this.timers.setTimeout(() => {
      void this.pass().finally(() => this.schedule());
    }, this.options.intervalMs ?? HELD_SWEEP_MS);
  }

  private async sweep(): Promise<void> {
    const { repository, reader } = this.options;
    const records: AlertGroupRecord[] = [];
    for (const groupId of await repository.openIds()) {
      const record = await repository.find(groupId);
      // A root not posted yet shows nothing to close.
      if (record?.status === 'firing' && record.root.messageId !== '') records.push(record);
    }
    await this.endSilences(records);
    if (records.length === 0) {
      this.missing.clear();
      return;
    }
    const held = await reader.heldFingerprints();
    const missingNow = new Map<string, Set<string>>();
    for (const record of records) {
      const gone = record.alerts.filter((alert) => !held.has(alert.fingerprint)).map((a) => a.fingerprint);
      if (gone.length === 0) continue;
      const before = this.missing.get(record.groupId);
      const confirmed = new Set(gone.filter((fingerprint) => before?.has(fingerprint)));
      missingNow.set(record.groupId, new Set(gone));
      if (confirmed.size === 0) continue;
      // Only the alerts missing twice are closed; one missing once waits for the next pass.
      const stillHeld = new Set(
        record.alerts.map((alert) => alert.fingerprint).filter((fingerprint) => !confirmed.has(fingerprint)),
      );
      const payload = heldPayload(record, stillHeld);
      if (payload) await this.options.notifications.learned(payload, LEARNED_NOTE);
    }
    this.missing = missingNow;
  }

  /** A silence that ended leaves the root: its Silence buttons come back. */
  private async endSilences(records: readonly AlertGroupRecord[]): Promise<void> {
    const { repository, clock, delivery } = this.options;
    for (const record of records) {
      if (!record.silenced || record.silenced.until > clock.now()) continue;
      await repository.exclusively(record.groupId, record.groupKey, async () => {
        const fresh = await repository.find(record.groupId);
        if (!fresh?.silenced || fresh.silenced.until > clock.now()) return;
        const { silenced: _ended, ...rest } = fresh;
        await repository.save(withRootEdit(rest));
      });
      delivery.deliverSoon(record.groupId);
    }
  }
}
