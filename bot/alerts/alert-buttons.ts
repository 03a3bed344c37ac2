// An alert group's buttons: Ack, and Investigate / Run again. Each click is checked against the clicker's roles,
// made under the group's claim, audited, and shown on the root. The reply is for the clicker.
import type { ChatPort } from '../../agent/chat-port.js';
import type { Clock } from '../../agent/clock.js';
import { type AuditLog, auditActor } from '../../agent/policy/audit-log.js';
import type { AlertAction, PermissionSettings } from '../../agent/policy/permission-settings.js';
import type { Principal } from '../../agent/principal.js';
import { rootMessage } from './alert-group-messages.js';
import type { AlertGroupRepository } from './alert-group-repository.js';
import type { AlertGroupRecord } from './alert-group-state.js';
import type { AlertInvestigations } from './alert-investigations.js';
import { alertRefusal } from './alert-permissions.js';

export interface AlertButton {
  action: 'alert_ack' | 'alert_investigate';
  /** The group id the button carries. */
  target: string;
  principal: Principal;
}

export interface AlertButtonsOptions {
  repository: AlertGroupRepository;
  chat: ChatPort;
  investigations?: AlertInvestigations;
  permissions: PermissionSettings;
  audit: AuditLog;
  clock: Clock;
}

export class AlertButtons {
  constructor(private readonly options: AlertButtonsOptions) {}

  async act(button: AlertButton): Promise<string> {
    const action: AlertAction = button.action === 'alert_ack' ? 'ack' : 'investigate';
    const refusal = alertRefusal(this.options.permissions, button.principal, action);
    if (refusal) {
      await this.audit(button, action, 'refused', refusal);
      return refusal;
    }
    const { repository } = this.options;
    return repository.exclusively(button.target, button.target, async () => {
      const record = await repository.find(button.target);
      if (!record) return 'This alert group is no longer kept, so its buttons do nothing.';
      if (record.status === 'resolved') return 'This alert group has resolved; nothing to do.';
      const outcome = action === 'ack' ? this.ack(record, button.principal) : await this.investigate(record);
      if (typeof outcome === 'string') return outcome;
      await repository.save(outcome.record);
      await this.options.chat.update(
        record.root,
        rootMessage(outcome.record, {
          investigateButton: this.options.investigations?.offersButton(outcome.record) ?? false,
        }),
      );
      await this.audit(button, action, 'done', outcome.reply);
      return outcome.reply;
    });
  }

  private ack(record: AlertGroupRecord, principal: Principal) {
    if (record.acked) return `Already acked by ${record.acked.by}.`;
    const at = this.options.clock.now();
    return {
      record: { ...record, acked: { by: principal.displayName, at } },
      reply: 'Acked: the root shows who took it.',
    };
  }

  private async investigate(record: AlertGroupRecord) {
    const { investigations } = this.options;
    if (!investigations?.offersButton(record)) {
      return 'No model is configured, so opsbot cannot investigate; set OPENAI_BASE_URL or OPENAI_API_KEY.';
    }
    const next = await investigations.investigate(record, 'button');
    return { record: next, reply: `Investigating in the thread: run ${next.investigation.runId}.` };
  }

  private async audit(button: AlertButton, action: AlertAction, outcome: 'done' | 'refused', reason: string) {
    await this.options.audit.record({
      kind: 'alert_action',
      actor: auditActor(button.principal),
      tool: `alert-group:${button.target}`,
      outcome: `${action} ${outcome}`,
      reason,
    });
  }
}
