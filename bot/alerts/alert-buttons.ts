// An alert group's buttons: Ack, Investigate / Run again, and Silence 1 h / 4 h. Each click is checked against the
// clicker's roles, made under the group's claim, audited, and shown on the root. The reply is for the clicker.
import type { ChatPort } from '../../agent/chat-port.js';
import type { Clock } from '../../agent/clock.js';
import { type AuditLog, auditActor } from '../../agent/policy/audit-log.js';
import type { AlertAction, PermissionSettings } from '../../agent/policy/permission-settings.js';
import type { Principal } from '../../agent/principal.js';
import { SILENCE_CHOICES } from '../chat/button-codec.js';
import { rootMessage } from './alert-group-messages.js';
import type { AlertGroupRepository } from './alert-group-repository.js';
import type { AlertGroupRecord } from './alert-group-state.js';
import type { AlertInvestigations } from './alert-investigations.js';
import { alertRefusal, personRefusal } from './alert-permissions.js';
import type { AlertSilences } from './alert-silences.js';

export interface AlertButton {
  action: 'alert_ack' | 'alert_investigate' | 'alert_silence';
  /** The group id the button carries. */
  target: string;
  principal: Principal;
  /** For `alert_silence`: how long (1h, 4h). */
  value?: string;
}

type ButtonAction = AlertAction | 'silence';

const ACTIONS = {
  alert_ack: 'ack',
  alert_investigate: 'investigate',
  alert_silence: 'silence',
} as const satisfies Record<AlertButton['action'], ButtonAction>;

export interface AlertButtonsOptions {
  repository: AlertGroupRepository;
  chat: ChatPort;
  investigations?: AlertInvestigations;
  /** With `tools.alertmanager.url` set: Silence starts a run of `alertmanager_silence` as the clicker. */
  silences?: AlertSilences;
  permissions: PermissionSettings;
  audit: AuditLog;
  clock: Clock;
}

export class AlertButtons {
  constructor(private readonly options: AlertButtonsOptions) {}

  async act(button: AlertButton): Promise<string> {
    const action = ACTIONS[button.action];
    // A silence is a tool call: the policy gate and approvals decide it, not the `alerts:` list of the role.
    const refusal =
      action === 'silence'
        ? personRefusal(button.principal)
        : alertRefusal(this.options.permissions, button.principal, action);
    if (refusal) {
      await this.audit(button, action, 'refused', refusal);
      return refusal;
    }
    const { repository } = this.options;
    return repository.exclusively(button.target, button.target, async () => {
      const record = await repository.find(button.target);
      if (!record) return 'This alert group is no longer kept, so its buttons do nothing.';
      if (record.status === 'resolved') return 'This alert group has resolved; nothing to do.';
      if (action === 'silence') return this.silence(record, button);
      const outcome = action === 'ack' ? this.ack(record, button.principal) : await this.investigate(record);
      if (typeof outcome === 'string') return outcome;
      await repository.save(outcome.record);
      await this.options.chat.update(
        record.root,
        rootMessage(outcome.record, {
          investigateButton: this.options.investigations?.offersButton(outcome.record) ?? false,
          silenceButtons: this.options.silences !== undefined,
          now: this.options.clock.now(),
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

  /**
   * The root is left as it is for now: the silence's run shows in the thread, with its approval card when it needs
   * one, and the root shows the silence once the run made it (alert-silence-ends.ts).
   */
  private async silence(record: AlertGroupRecord, button: AlertButton): Promise<string> {
    const { silences } = this.options;
    const duration = button.value;
    if (!silences) return 'Silencing needs tools.alertmanager.url in the settings; this opsbot has none.';
    if (!duration || !(SILENCE_CHOICES as readonly string[]).includes(duration)) {
      return `A Silence button lasts ${SILENCE_CHOICES.join(' or ')}; this one carried no such length.`;
    }
    const started = await silences.silence(record, button.principal, duration);
    if (started.kind === 'refused') {
      await this.audit(button, 'silence', 'refused', started.reason);
      return `Not silenced: ${started.reason}`;
    }
    const reply = `Silencing for ${duration} in the thread: run ${started.runId}. An approval card shows there if your role needs one.`;
    await this.audit(button, 'silence', 'done', reply);
    return reply;
  }

  private async audit(
    button: AlertButton,
    action: ButtonAction,
    outcome: 'done' | 'refused',
    reason: string,
  ) {
    await this.options.audit.record({
      kind: 'alert_action',
      actor: auditActor(button.principal),
      tool: `alert-group:${button.target}`,
      outcome: `${action} ${outcome}`,
      reason,
    });
  }
}
