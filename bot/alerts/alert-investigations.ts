// What a new alert group gets besides its root: an investigation run in its thread (with a model and
// `investigate: true`, within the hourly cap), or its route's checks (without a model), or nothing.
import { randomBytes } from 'node:crypto';
import type { Clock } from '../../agent/clock.js';
import type { Conversation } from '../../agent/conversation.js';
import { errorMessage } from '../../agent/errors.js';
import type { Kernel } from '../../agent/kernel.js';
import type { Logger } from '../../agent/logger.js';
import type { Principal } from '../../agent/principal.js';
import type { PlannedCall } from '../../agent/run.js';
import type { Store } from '../../agent/store/store.js';
import { storeKeys } from '../../agent/store/store-keys.js';
import type { AlertGroupRecord } from './alert-group-state.js';
import { investigationTask } from './alert-investigation-task.js';
import type { AlertDestination } from './alert-routes.js';
import type { AlertSettings } from './alert-settings.js';

const HOUR_MS = 3_600_000;

export interface InvestigationMetrics {
  investigationStarted(how: 'automatic' | 'button' | 'checks'): void;
}

export function alertPrincipal(receiver: string, role: string): Principal {
  return { platform: 'alert', userId: receiver, displayName: `alert:${receiver}`, roles: [role], groups: [] };
}

export function threadOf(record: AlertGroupRecord): Conversation {
  return { ...record.root.conversation, threadId: record.root.messageId };
}

export interface AlertInvestigationsOptions {
  kernel: Pick<Kernel, 'start' | 'modelConfigured'>;
  store: Pick<Store, 'claim'>;
  settings: AlertSettings;
  clock: Clock;
  logger: Logger;
  metrics?: InvestigationMetrics;
}

export class AlertInvestigations {
  constructor(private readonly options: AlertInvestigationsOptions) {}

  /** Investigations are automatic: a root then offers Investigate only past the hourly cap. */
  get automatic(): boolean {
    return this.options.settings.investigate && this.options.kernel.modelConfigured;
  }

  /** Whether a root offers Investigate (or Run again, once a run started): whenever a model can run one. */
  offersButton(record: AlertGroupRecord): boolean {
    return this.options.kernel.modelConfigured && record.status === 'firing';
  }

  /** For a group just opened: its record with what was started, or why nothing was. */
  async opened(record: AlertGroupRecord, destination: AlertDestination): Promise<AlertGroupRecord> {
    const { settings, kernel } = this.options;
    if (this.automatic) {
      if (!(await this.takeHourlySlot())) {
        const note = `not investigated automatically: ${settings.max_investigations_per_hour} this hour`;
        return { ...record, investigation: { note } };
      }
      return this.investigate(record, 'automatic');
    }
    const checks = destination.kind === 'post' ? destination.checks : [];
    if (!kernel.modelConfigured && checks.length > 0) return this.runChecks(record, checks);
    return record;
  }

  /** Starts an investigation in the group's thread: automatically, or for a person's click. */
  async investigate(record: AlertGroupRecord, how: 'automatic' | 'button'): Promise<AlertGroupRecord> {
    const { kernel, settings, clock } = this.options;
    const runId = await kernel.start({
      text: investigationTask(record, clock.now()),
      principal: alertPrincipal(record.receiver, settings.role),
      conversation: threadOf(record),
      engine: settings.engine,
    });
    this.options.metrics?.investigationStarted(how);
    return { ...record, investigation: { runId, note: `Investigating: run ${runId}` } };
  }

  private async runChecks(
    record: AlertGroupRecord,
    checks: Extract<AlertDestination, { kind: 'post' }>['checks'],
  ): Promise<AlertGroupRecord> {
    const calls: PlannedCall[] = checks.map((check) => ({
      id: `chk_${check.id}`,
      name: check.tool,
      args: check.args,
      rawArguments: JSON.stringify(check.args),
    }));
    try {
      const runId = await this.options.kernel.start({
        text: `checks for alert group ${Object.values(record.groupLabels).join(' ') || record.groupId}`,
        principal: alertPrincipal(record.receiver, this.options.settings.role),
        conversation: threadOf(record),
        engine: 'checks',
        plan: { calls },
      });
      this.options.metrics?.investigationStarted('checks');
      return { ...record, investigation: { runId, note: `Running the route's checks: run ${runId}` } };
    } catch (error) {
      this.options.logger.error({ err: errorMessage(error) }, 'the checks of an alert group could not start');
      return record;
    }
  }

  /**
   * One of the hour's slots, across processes: claims `alert-investigation:<hour>:<n>` for the first free n. A
   * claim is atomic, so two gateways never take the same slot, and the hour's claims lapse with it.
   */
  private async takeHourlySlot(): Promise<boolean> {
    const { settings, clock, store } = this.options;
    const hour = Math.floor(clock.now() / HOUR_MS);
    const owner = `slot_${randomBytes(8).toString('hex')}`;
    for (let slot = 0; slot < settings.max_investigations_per_hour; slot++) {
      if (await store.claim(storeKeys.alertInvestigationSlot(hour, slot), owner, HOUR_MS)) return true;
    }
    return false;
  }
}
