// attack: an alert group's Silence button never goes around the policy gate. The click becomes a run of the
// clicker (never of the alert principal, whose role may be broader) with one `alertmanager_silence` call: a role
// that may not write is refused with the gate's reason and nothing runs; a role whose writes need approval waits
// for an approver, and only then does the real Alertmanager hold a silence. Group labels become exact matchers,
// so a label value that looks like a regular expression cannot widen the silence; a forged button length decodes
// to nothing.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AuditLog } from '../../agent/policy/audit-log.js';
import { PermissionSettingsSchema } from '../../agent/policy/permission-settings.js';
import type { Principal } from '../../agent/principal.js';
import { AlertButtons } from '../../bot/alerts/alert-buttons.js';
import { AlertGroupRepository, alertGroupId } from '../../bot/alerts/alert-group-repository.js';
import { AlertSettingsSchema } from '../../bot/alerts/alert-settings.js';
import { SilenceRunLinks } from '../../bot/alerts/alert-silence-links.js';
import { AlertSilences } from '../../bot/alerts/alert-silences.js';
import { WebhookPayloadSchema } from '../../bot/alerts/alertmanager-payload.js';
import { decodeButton } from '../../bot/chat/button-codec.js';
import { createBuiltInTools } from '../../tools/index.js';
import { ToolSettingsSchema } from '../../tools/tool-settings-schema.js';
import { alertNotifications } from '../alerts/alert-notifications-rig.js';
import { webhookAlert, webhookPayload } from '../alerts/webhook-fixtures.js';
import { type ApprovalHarness, createApprovalHarness, permissions } from '../approvals/approval-harness.js';
import { text } from '../fakes/openai-server.js';
import {
  ALERTMANAGER,
  monitoringServersInstalled,
  type RunningServer,
  startAlertmanager,
} from '../monitoring-servers.js';
import { RecordingLogger } from './helpers/sink-rig.js';

const OVERRIDES = {
  roles: {
    ...permissions.roles,
    // May ack and investigate, but its tools are read-only: the `alerts:` list must not let it silence.
    oncall: { tools: ['*'], risks: ['read' as const], alerts: ['ack' as const, 'investigate' as const] },
  },
  identities: {
    ...permissions.identities,
    'local:erin': { roles: ['oncall'], display_name: 'Erin' },
  },
};
const GROUP_KEY = '{}:{alertname="DiskFull",instance=".+"}';

let alertmanager: RunningServer;
let harness: ApprovalHarness | undefined;

beforeAll(async () => {
  if (installed) alertmanager = await startAlertmanager();
}, 30_000);
afterAll(async () => alertmanager?.close());
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const installed = monitoringServersInstalled([ALERTMANAGER]);

async function silences(): Promise<unknown[]> {
  return (await fetch(`${alertmanager.url}/api/v2/silences`)).json() as Promise<unknown[]>;
}

/** A real kernel with the real alertmanager_silence tool, one posted alert group, and its buttons. */
async function rig() {
  const tools = createBuiltInTools(
    ToolSettingsSchema.parse({ alertmanager: { url: alertmanager.url } }),
  ).filter((tool) => tool.name === 'alertmanager_silence');
  harness = await createApprovalHarness('memory', OVERRIDES, { tools });
  const store = harness.stores[0]!;
  const repository = new AlertGroupRepository(store);
  const logger = new RecordingLogger();
  const { handle } = alertNotifications({
    settings: AlertSettingsSchema.parse({ channel: 'playground:alerts' }),
    repository,
    chat: harness.chat,
    clock: harness.clock,
    logger,
    silenceButtons: true,
  });
  const payload = webhookPayload([webhookAlert('db1')], {
    groupKey: GROUP_KEY,
    groupLabels: { alertname: 'DiskFull', instance: '.+' },
  });
  expect(await handle(WebhookPayloadSchema.parse(payload))).toBe('opened');
  const buttons = new AlertButtons({
    repository,
    chat: harness.chat,
    silences: new AlertSilences(harness.kernel, new SilenceRunLinks(store)),
    permissions: PermissionSettingsSchema.parse({ ...permissions, ...OVERRIDES }),
    audit: new AuditLog(store, { clock: harness.clock }),
    clock: harness.clock,
  });
  const silence = (principal: Principal, value = '1h') =>
    buttons.act({ action: 'alert_silence', target: alertGroupId(GROUP_KEY), principal, value });
  return { harness, silence };
}

const runIdIn = (reply: string) => /run (run_[A-Za-z0-9_-]+)/.exec(reply)?.[1];

describe.skipIf(!installed)('attack: a Silence click goes through the policy gate', () => {
  it('refuses a role that may ack and investigate but not write, with the reason, and runs nothing', async () => {
    const { harness, silence } = await rig();
    const reply = await silence(harness.person('erin'));
    expect(reply).toMatch(/^Not silenced: .*oncall.*alertmanager_silence/);
    expect(runIdIn(reply)).toBeUndefined();
    expect(harness.chat.ofKind('approval')).toHaveLength(0);
    expect(await silences()).toEqual([]);
  });

  it('refuses an alert principal, whatever its role', async () => {
    const { harness, silence } = await rig();
    const alertBot: Principal = { ...harness.person('bob'), platform: 'alert', userId: 'opsbot' };
    expect(await silence(alertBot)).toBe('Only a person can use the buttons of an alert group.');
    expect(await silences()).toEqual([]);
  });

  it("runs as the clicker, waits for an approver, and silences only the group's exact labels once approved", async () => {
    const { harness, silence } = await rig();
    const reply = await silence(harness.person('alice'));
    const runId = runIdIn(reply);
    expect(runId, reply).toBeDefined();
    const waiting = await harness.kernel.settled(runId!);
    expect(waiting.status).toBe('waiting_for_approval');
    expect(waiting.principal).toMatchObject({ platform: 'playground', userId: 'alice' });
    expect(await silences()).toEqual([]);
    const card = harness.chat.ofKind('approval')[0]!;
    expect(card.willRun).toMatch(/^silence alertname="DiskFull", instance="\.\+" for 1h: /);
    // Alice may not approve her own call: only an approver's click lets it run.
    await harness.kernel.decideApproval(card.approvalId, harness.person('alice'), 'approve');
    expect(await silences()).toEqual([]);

    harness.fake.reply(text('unused'));
    await harness.kernel.decideApproval(card.approvalId, harness.person('bob'), 'approve');
    expect((await harness.kernel.settled(runId!)).status).toBe('finished');
    const made = (await silences()) as { matchers: unknown[]; createdBy: string }[];
    expect(made).toHaveLength(1);
    expect(made[0]!.createdBy).toBe('opsbot for Alice');
    expect(made[0]!.matchers).toEqual([
      { name: 'alertname', value: 'DiskFull', isRegex: false, isEqual: true },
      { name: 'instance', value: '.+', isRegex: false, isEqual: true },
    ]);
  });

  it('decodes a forged Silence length, or a length passed around the codec, to nothing', async () => {
    for (const forged of ['asil:grp1:7d', 'asil:grp1:999h', 'asil:grp1', 'asil:grp1:1h:x']) {
      expect(decodeButton(forged), forged).toBeUndefined();
    }
    expect(decodeButton('asil:grp1:4h')).toEqual({ action: 'alert_silence', groupId: 'grp1', silence: '4h' });
    const { harness, silence } = await rig();
    expect(await silence(harness.person('alice'), '7d')).toBe(
      'A Silence button lasts 1h or 4h; this one carried no such length.',
    );
    expect(harness.chat.ofKind('approval')).toHaveLength(0);
  });
});
