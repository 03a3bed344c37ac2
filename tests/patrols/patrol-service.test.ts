// The patrol service end to end on a real Kernel, real check tools and a real Store: what a channel sees run by run.
import { afterEach, describe, expect, it } from 'vitest';
import { patrolLineText, patrolReportView } from '../../bot/chat/patrol-report-view.js';
import { VIEW_LIMITS } from '../../bot/chat/view-limits.js';
import { patrolKeys } from '../../scheduled/patrol-keys.js';
import { createHttpCheckTool } from '../../tools/http-check.js';
import { createNetworkGuard } from '../../tools/network-guard.js';
import { ToolSettingsSchema } from '../../tools/tool-settings-schema.js';
import { RecordingChatPort } from '../fakes/recording-chat-port.js';
import { type HungServer, startHungServer } from '../tools/helpers/hung-server.js';
import {
  type Backend,
  CheckSwitch,
  HOUR,
  MINUTE,
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
let hung: HungServer | undefined;
afterEach(async () => {
  await replica?.stop();
  await bench?.close();
  await hung?.close();
  replica = undefined;
  bench = undefined;
  hung = undefined;
});

async function world(backend: Backend, patrol: Record<string, unknown> = {}) {
  bench = new StoreBench(backend);
  const chat = new RecordingChatPort();
  const checks = new CheckSwitch();
  replica = newReplica({
    store: await bench.connect(),
    clock: bench.clock,
    chat,
    checks,
    settings: patrolSettings(patrol),
  });
  const clock = bench.clock;
  const { service } = replica;
  /** One scheduled run at the clock's time, then the clock moves to the next slot. */
  const run = async (extra = {}) => {
    await service.runPatrol('web', slot(clock.now(), extra));
    clock.advance(5 * MINUTE);
  };
  return { chat, checks, clock, service, run, repository: service.repository };
}

describe.each(['memory', 'sqlite', 'redis'] as const)('a patrol on %s', (backend) => {
  it('reports once, reminds when due, stops reminding once acked, and resolves in the thread', async () => {
    const { chat, checks, clock, service, run, repository } = await world(backend, { remind_every: '30m' });
    checks.set('api', 'fail');
    await run();
    const [report] = reportPosts(chat);
    expect(reportPosts(chat)).toHaveLength(1);
    expect(report!.conversation).toEqual({ platform: 'playground', channelId: 'ops' });
    expect(report!.report).toMatchObject({ patrol: 'web', level: 'critical', buttons: true });
    expect(report!.report.lines).toMatchObject([{ checkId: 'api', change: 'firing' }]);
    const reportId = report!.report.reportId;
    expect((await repository.states('web')).api).toMatchObject({
      machine: { status: 'firing' },
      reported: { reportId },
    });

    for (let i = 0; i < 4; i += 1) await run();
    expect(reportPosts(chat)).toHaveLength(1);

    clock.set(T0 + 30 * MINUTE);
    await run();
    const reminders = reportPosts(chat).slice(1);
    expect(reminders).toHaveLength(1);
    expect(reminders[0]!.conversation).toMatchObject({ channelId: 'ops', threadId: report!.messageId });
    expect(reminders[0]!.report.lines).toMatchObject([{ checkId: 'api', change: 'reminder' }]);
    expect(reminders[0]!.report.buttons).toBe(false);

    const acked = await service.act({ action: 'patrol_ack', target: reportId, principal: person('olive') });
    expect(acked).toMatch(/^Acked/);
    expect(chat.posts[0]!.updates.at(-1)).toMatchObject({ acked: { by: 'olive' } });
    clock.set(T0 + 2 * HOUR);
    for (let i = 0; i < 3; i += 1) await run();
    expect(reportPosts(chat)).toHaveLength(2);

    checks.set('api', 'pass');
    await run();
    const resolution = reportPosts(chat).slice(2);
    expect(resolution).toHaveLength(1);
    expect(resolution[0]!.conversation.threadId).toBe(report!.messageId);
    expect(resolution[0]!.report).toMatchObject({ level: 'resolved', buttons: false });
    expect(resolution[0]!.report.lines).toMatchObject([{ checkId: 'api', change: 'resolved' }]);
    expect(chat.posts[0]!.updates.at(-1)).toMatchObject({ level: 'resolved', buttons: false });
    expect(await repository.report(reportId)).toMatchObject({
      level: 'resolved',
      resolvedAt: expect.any(Number),
    });
    expect((await repository.states('web')).api).toMatchObject({ machine: { status: 'ok' } });

    await run();
    expect(chat.posts).toHaveLength(3);
    expect(chat.posts.every((post) => post.message.kind === 'patrol_report')).toBe(true);
  });
});

describe('a patrol run', () => {
  it('after downtime catches up once, marked late in the history and on the report', async () => {
    const { chat, checks, clock, service, repository } = await world('sqlite');
    checks.set('api', 'fail');
    await replica!.store.set(patrolKeys.lastSlot('web'), T0);
    clock.set(T0 + HOUR + 2 * MINUTE);
    await service.start();
    await service.stop();
    expect(checks.calls).toEqual(['api']);
    expect(await repository.history('web')).toMatchObject([{ at: T0 + HOUR + 2 * MINUTE, late: true }]);
    expect(reportPosts(chat)).toHaveLength(1);
    expect(reportPosts(chat)[0]!.report.late).toBe(true);
    const view = patrolReportView(reportPosts(chat)[0]!.report, clock.now(), VIEW_LIMITS.playground);
    expect(view.footer).toContain('late run after downtime');
    expect(await service.command('history web', person('anyone'))).toContain('(late)');
  });

  it('records a check that throws as error, not critical: it could not run', async () => {
    const { chat, checks, run, repository } = await world('memory');
    checks.set('api', 'throw');
    await run();
    const [report] = reportPosts(chat);
    expect(report!.report.level).toBe('error');
    expect(report!.report.lines).toMatchObject([
      { checkId: 'api', change: 'error', detail: expect.stringContaining('connection refused by api') },
    ]);
    expect(patrolLineText(report!.report.lines[0]!)).toMatch(/^`api` \(probe\) could not run: /);
    expect((await repository.history('web'))[0]!.failing).toEqual([{ checkId: 'api', level: 'error' }]);
    expect(await replica!.service.command('show web', person('anyone'))).toMatch(/could not run|error/);
  });

  it('records a check that never returns as failing at its severity: it timed out, so the service is down', async () => {
    const { chat, checks, run } = await world('memory');
    checks.set('api', 'hang');
    await run();
    const [report] = reportPosts(chat);
    expect(report!.report.level).toBe('critical');
    expect(report!.report.lines).toMatchObject([
      { change: 'firing', severity: 'critical', detail: 'probe timed out after 200 ms.' },
    ]);
  });

  it('reports the real http_check of a hung service as critical with the timeout, not as "could not run"', async () => {
    hung = await startHungServer();
    bench = new StoreBench('memory');
    const chat = new RecordingChatPort();
    const url = `http://127.0.0.1:${hung.port}/healthz`;
    replica = newReplica({
      store: await bench.connect(),
      clock: bench.clock,
      chat,
      checks: new CheckSwitch(),
      settings: patrolSettings({ checks: [{ id: 'api', tool: 'http_check', args: { url } }] }),
      tools: [createHttpCheckTool({ guard: createNetworkGuard(ToolSettingsSchema.parse({}).network) })],
    });
    await replica.service.runPatrol('web', slot(bench.clock.now()));
    expect(hung.accepted()).toBe(1);
    const [report] = reportPosts(chat);
    expect(report!.report.level).toBe('critical');
    const line = patrolLineText(report!.report.lines[0]!);
    // The kernel's limit (200 ms in this rig) is below http_check's own 10 s, so it is the one worded.
    expect(line).toContain(
      `\`api\` (http_check) failing, critical: GET ${url} failed: it timed out after 200 ms. `,
    );
    expect(line).not.toContain('could not run');
  });

  it('whose post fails saves no states, says why in its history, and the next run posts the report', async () => {
    const { chat, checks, run, repository } = await world('sqlite');
    checks.set('api', 'fail');
    chat.failNextPosts = 1;
    await run();
    expect(chat.posts).toHaveLength(0);
    expect(await repository.states('web')).toEqual({});
    const [failed] = await repository.history('web');
    expect(failed).toMatchObject({
      posted: [],
      problem: expect.stringContaining('could not post to playground:ops'),
    });
    expect(failed!.problem).toContain('chat platform unavailable');

    await run();
    expect(reportPosts(chat)).toHaveLength(1);
    expect(reportPosts(chat)[0]!.report.lines).toMatchObject([{ checkId: 'api', change: 'firing' }]);
    expect((await repository.history('web'))[1]).toMatchObject({ posted: ['report'] });
    expect((await repository.history('web'))[1]!.problem).toBeUndefined();
  });

  it('whose thread reply fails after its new report went out posts that report once, and the reply next run', async () => {
    const settings = {
      checks: [
        { id: 'api', tool: 'probe', args: { target: 'api' } },
        { id: 'db', tool: 'probe', args: { target: 'db' } },
      ],
    };
    const { chat, checks, run, repository } = await world('memory', settings);
    checks.set('api', 'fail');
    await run();
    const first = reportPosts(chat)[0]!;
    checks.set('api', 'pass').set('db', 'fail');
    chat.failNextThreadPosts = 1;
    await run();
    expect(reportPosts(chat).map((post) => post.report.lines.map((line) => line.checkId))).toEqual([
      ['api'],
      ['db'],
    ]);
    expect((await repository.history('web'))[1]).toMatchObject({
      posted: ['report'],
      problem: expect.any(String),
    });
    const states = await repository.states('web');
    expect(states.api).toMatchObject({ reported: { reportId: first.report.reportId } });
    expect(states.db).toMatchObject({ machine: { status: 'firing' } });

    await run();
    const posts = reportPosts(chat).slice(2);
    expect(posts).toHaveLength(1);
    expect(posts[0]!.conversation.threadId).toBe(first.messageId);
    expect(posts[0]!.report.lines).toMatchObject([{ checkId: 'api', change: 'resolved' }]);
    expect(chat.posts[0]!.updates.at(-1)).toMatchObject({ level: 'resolved' });
    await run();
    expect(reportPosts(chat)).toHaveLength(3);
  });

  it('run by hand several times in one second posts every change', async () => {
    const { chat, checks, service, repository } = await world('memory');
    const byHand = async () => {
      const started = await service.runNow('web');
      if (!started.started) throw new Error(started.reason);
      await started.finished;
    };
    for (const behaviour of ['fail', 'pass', 'fail'] as const) {
      checks.set('api', behaviour);
      await byHand();
    }
    const reports = reportPosts(chat).filter((post) => post.conversation.threadId === undefined);
    expect(reports).toHaveLength(2);
    const second = reports[1]!.report.reportId;
    expect(await repository.report(second)).toMatchObject({ reportId: second, level: 'critical' });
    expect((await repository.states('web')).api).toMatchObject({ reported: { reportId: second } });
  });
});
