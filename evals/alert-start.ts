// Starts an alert scenario's run as a real notification does: the receiver's own wiring (mountAlerts, as
// bot/serve.ts mounts it) handles the payload, posts the group's root and starts the investigation in its thread.
import type { ChatPort } from '../agent/chat-port.js';
import type { Clock } from '../agent/clock.js';
import { silentLogger } from '../agent/logger.js';
import type { EngineKind } from '../agent/run-engine-kind.js';
import { AlertGroupRepository, alertGroupId } from '../bot/alerts/alert-group-repository.js';
import type { Opsbot } from '../bot/compose.js';
import { mountAlerts } from '../bot/services/alerts-service.js';
import { alertPayload } from './alert-schema.js';
import type { Scenario } from './schema.js';
import { fillValue } from './template.js';

/**
 * Settings an alert scenario needs before its own: the group posted to the scenario's channel, and investigated
 * automatically. A scenario's `settings.alerts` still wins (its role, above all).
 */
export function alertModeSettings(
  scenario: Scenario,
  engine: EngineKind | undefined,
): Record<string, unknown> {
  // The investigation runs on the scenario's engine: its script is written for it (react unless it says).
  return {
    alerts: { channel: `playground:${scenario.channel}`, investigate: true, engine: engine ?? 'react' },
  };
}

/** Hands the notification to the receiver and returns the investigation's run id, or says why none started. */
export async function startAlertRun(
  scenario: Scenario,
  setup: { opsbot: Opsbot; chat: ChatPort; clock: Clock; values: Record<string, string> },
): Promise<string> {
  const { opsbot, chat, clock } = setup;
  if (!scenario.alert) throw new Error('startAlertRun needs a scenario with an alert: block');
  const payload = alertPayload(fillValue(scenario.alert, setup.values), clock.now());
  const mount = mountAlerts({
    // The token only turns the receiver on; the payload is handed over below, not posted over HTTP.
    opsbot: { ...opsbot, environment: { ...opsbot.environment, OPSBOT_ALERTS_TOKEN: 'eval' } },
    chat,
    http: { mount: () => undefined },
    logger: silentLogger,
    clock,
    takesEvents: true,
  });
  if (!mount.notifications || !mount.delivery) throw new Error('the alert receiver did not turn on');
  const outcome = await mount.notifications.receive(payload);
  await mount.delivery.idle();
  const record = await new AlertGroupRepository(opsbot.store).find(alertGroupId(payload.groupKey));
  const runId = record?.investigation.runId;
  if (!runId) {
    const note = record?.investigation.note ? `: ${record.investigation.note}` : '';
    throw new Error(`the notification was ${outcome}, and started no investigation${note}`);
  }
  return runId;
}
