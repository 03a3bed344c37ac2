// `/ops patrol …` and report buttons through the Router with a real PatrolService: reading is open to anyone,
// steering needs the role's permission, and every steer, allowed or refused, is audited.
import { afterEach, describe, expect, it } from 'vitest';
import type { Conversation } from '../../agent/conversation.js';
import type { Principal } from '../../agent/principal.js';
import { Router } from '../../bot/router/router.js';
import { RecordingChatPort } from '../fakes/recording-chat-port.js';
import { recordingLogger, settle } from './patrol-rig.js';
import {
  CheckSwitch,
  newReplica,
  patrolSettings,
  person,
  type Replica,
  reportPosts,
  StoreBench,
  slot,
  T0,
} from './patrol-service-rig.js';

let bench: StoreBench | undefined;
let replica: Replica | undefined;
afterEach(async () => {
  await replica?.stop();
  await bench?.close();
  replica = undefined;
  bench = undefined;
});

const channel: Conversation = { platform: 'playground', channelId: 'ops', channelName: 'ops' };
const olive = person('olive');
const val = person('val');
let nextEvent = 0;

async function world() {
  bench = new StoreBench('memory');
  const chat = new RecordingChatPort();
  const checks = new CheckSwitch();
  const settings = patrolSettings();
  replica = newReplica({ store: await bench.connect(), clock: bench.clock, chat, checks, settings });
  const router = new Router({
    kernel: replica.kernel,
    settings,
    logger: recordingLogger([]),
    clock: bench.clock,
    patrols: replica.service,
  });
  const ops = async (principal: Principal, text: string) =>
    (
      await router.handle({
        kind: 'command',
        eventId: `e${++nextEvent}`,
        principal,
        conversation: channel,
        text,
      })
    ).ephemeral ?? '';
  const click = async (principal: Principal, action: 'patrol_ack' | 'patrol_run', target: string) =>
    (
      await router.handle({
        kind: 'action',
        eventId: `e${++nextEvent}`,
        principal,
        conversation: channel,
        action,
        target,
      })
    ).ephemeral ?? '';
  const steers = async () =>
    (await replica!.audit.list())
      .filter((entry) => entry.kind === 'patrol_action')
      .map((entry) => `${entry.actor.key} ${entry.outcome}`);
  return { chat, checks, ops, click, steers, service: replica.service };
}

describe('/ops patrol through the router', () => {
  it('lets anyone list, show and read history, and audits none of it', async () => {
    const { ops, steers, service } = await world();
    await service.runPatrol('web', slot(T0));
    expect(await ops(val, 'patrol list')).toMatch(
      /^Patrols:\n• web: `\*\/5 \* \* \* \*` \(UTC\) → playground:ops/,
    );
    expect(await ops(val, 'patrol show web')).toContain('• `api` (probe, critical): ok since');
    expect(await ops(val, 'patrol history web')).toMatch(/Latest runs of web, newest first:\n• .*✔ 1 passed/);
    expect(await steers()).toEqual([]);
  });

  it('refuses run, pause and snooze to a role without the permission, and audits each refusal', async () => {
    const { ops, steers, service } = await world();
    expect(await ops(val, 'patrol run web')).toContain('Your role (viewer) may not run patrols.');
    expect(await ops(val, 'patrol pause web for 2h')).toContain('may not pause or resume patrols');
    expect(await ops(val, 'patrol snooze web/api 4h')).toContain('may not snooze patrols');
    expect(await ops(val, 'patrol resume web')).toContain('may not pause or resume patrols');
    expect(await service.repository.control('web')).toEqual({ snoozes: {} });
    expect(await steers()).toEqual([
      'local:val run refused',
      'local:val pause refused',
      'local:val snooze refused',
      'local:val pause refused',
    ]);
  });

  it('lets a role with the permission run, pause, resume and snooze, and audits each', async () => {
    const { ops, steers, service, chat, checks } = await world();
    checks.set('api', 'fail');
    expect(await ops(olive, 'patrol run web')).toContain('Running patrol web now.');
    for (let i = 0; i < 100 && (await service.repository.history('web')).length === 0; i += 1) await settle();
    expect(await service.repository.history('web')).toMatchObject([{ manual: true }]);
    expect(reportPosts(chat)).toHaveLength(1);

    expect(await ops(olive, 'patrol pause web for 2h')).toMatch(/^Paused patrol web until /);
    expect((await service.repository.control('web')).paused).toMatchObject({ by: 'olive' });
    expect(await ops(olive, 'patrol resume web')).toMatch(/^Resumed patrol web/);
    expect(await ops(olive, 'patrol snooze web/api 4h')).toMatch(/^Snoozed web\/api until /);
    expect((await service.repository.control('web')).snoozes.api).toMatchObject({ by: 'olive' });
    expect(await steers()).toEqual([
      'local:olive run done',
      'local:olive pause done',
      'local:olive resume done',
      'local:olive snooze done',
    ]);
  });

  it('checks and audits report buttons the same way', async () => {
    const { click, steers, service, chat, checks } = await world();
    checks.set('api', 'fail');
    await service.runPatrol('web', slot(T0));
    const reportId = reportPosts(chat)[0]!.report.reportId;
    expect(await click(val, 'patrol_ack', reportId)).toContain('may not ack patrol reports');
    expect(await click(olive, 'patrol_ack', reportId)).toMatch(/^Acked/);
    expect(await click(olive, 'patrol_ack', reportId)).toMatch(/^Already acked by olive/);
    expect(await steers()).toEqual(['local:val ack refused', 'local:olive ack done']);
  });
});
