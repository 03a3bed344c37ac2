// One process in the cross-process double-click race: a kernel over the shared store, with no worker, that waits for
// "go" and clicks Approve as the person named, then prints what the click was told.
import { once } from 'node:events';
import { ManualClock } from '../../agent/clock.js';
import { Kernel } from '../../agent/kernel.js';
import { AuditLog } from '../../agent/policy/audit-log.js';
import { PermissionSettingsSchema } from '../../agent/policy/permission-settings.js';
import { withResolvedRoles } from '../../agent/policy/resolve-roles.js';
import { settingsToolPolicy } from '../../agent/policy/settings-tool-policy.js';
import { openStore } from '../../agent/store/open-store.js';
import { RedisStore } from '../../agent/store/redis-store.js';
import { RecordingChatPort } from '../fakes/recording-chat-port.js';
import { ToolProbe, testTools } from '../kernel/harness.js';
import { permissions } from './approval-harness.js';

const [storeUrl, prefix, approvalId, person, now] = process.argv.slice(2);
if (!storeUrl || !prefix || !approvalId || !person || !now) {
  throw new Error('usage: approval-click-child <store url> <redis prefix> <approval id> <person> <now ms>');
}
const clock = new ManualClock(Number(now));
const store = storeUrl.startsWith('redis')
  ? await RedisStore.connect(storeUrl, { prefix })
  : await openStore(storeUrl, { clock });
const settings = PermissionSettingsSchema.parse(permissions);
const kernel = new Kernel({
  store,
  tools: testTools(new ToolProbe()),
  policy: (registry) => settingsToolPolicy(settings, registry),
  approvals: { audit: new AuditLog(store, { clock }), permissions: settings },
  chat: new RecordingChatPort(),
  clock,
  worker: false,
});
process.stdout.write('ready\n');
await once(process.stdin, 'data');
process.stdin.destroy();

const principal = withResolvedRoles(settings, {
  platform: 'playground',
  userId: person,
  displayName: person[0]!.toUpperCase() + person.slice(1),
  roles: [],
  groups: [],
});
const click = await kernel.decideApproval(approvalId, principal, 'approve');
await kernel.shutdown();
await store.close();
process.stdout.write(
  `${JSON.stringify({ message: click.message, settled: click.settled, kind: click.result.kind })}\n`,
);
