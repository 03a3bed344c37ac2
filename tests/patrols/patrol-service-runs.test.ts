// The patrol service on a held clock: the real kernel and http_check against a local target, runs started with
// runNow, and what the recording chat port was asked to post. Runs started in the same second are still runs.
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../agent/clock.js';
import { Kernel } from '../../agent/kernel.js';
import { silentLogger } from '../../agent/logger.js';
import { AuditLog } from '../../agent/policy/audit-log.js';
import { settingsToolPolicy } from '../../agent/policy/settings-tool-policy.js';
import { MemoryStore } from '../../agent/store/memory-store.js';
import { SettingsSchema } from '../../bot/config/settings-schema.js';
import { PatrolPoster, type PatrolRunContext } from '../../scheduled/patrol-poster.js';
import type { PatrolPost } from '../../scheduled/patrol-posts.js';
import { PatrolRepository } from '../../scheduled/patrol-repository.js';
import { PatrolService } from '../../scheduled/patrol-service.js';
import { createBuiltInTools } from '../../tools/index.js';
import { RecordingChatPort } from '../fakes/recording-chat-port.js';
import { type ScriptedTarget, startScriptedTarget } from './patrol-serve-rig.js';

let target: ScriptedTarget | undefined;
let service: PatrolService | undefined;
afterEach(async () => {
  await service?.stop();
  await target?.close();
  service = target = undefined;
});

async function start(statuses: number[]) {
  target = await startScriptedTarget(statuses);
  const settings = SettingsSchema.parse({
    patrols: {
      web: {
        schedule: '0 0 1 1 *',
        channel: 'playground:ops',
        checks: [{ id: 'api', tool: 'http_check', args: { url: target.url, expected_status: '200' } }],
      },
    },
  });
  // Held at a real instant: the tools time their calls by Date.now() against the kernel clock's deadline.
  const clock = new ManualClock(Math.floor(Date.now() / 1000) * 1000 + 250);
  const store = new MemoryStore(clock);
  const audit = new AuditLog(store, { clock });
  const kernel = new Kernel({
    store,
    tools: createBuiltInTools(settings.tools),
    policy: (registry) => settingsToolPolicy(settings.permissions, registry),
    chat: new RecordingChatPort(),
    clock,
  });
  const chat = new RecordingChatPort();
  service = new PatrolService({
    patrols: settings.patrols,
    selfUrl: () => 'http://127.0.0.1:3000',
    kernel,
    store,
    chat,
    platformRunning: () => true,
    permissions: settings.permissions,
    audit,
    clock,
    logger: silentLogger,
    keepHistoryMs: settings.limits.patrol_history,
    owner: 'replica-1',
  });
  await service.start();
  const running = service;
  const run = async () => {
    const outcome = await running.runNow('web');
    if (!outcome.started) throw new Error(`did not start: ${outcome.reason}`);
    await outcome.finished;
  };
  return { chat, clock, run };
}

describe('patrol runs started by people', () => {
  it('posts a second report when a check fails again within the same second as the first', async () => {
    const { chat, run } = await start([503, 200, 503]);
    await run(); // critical: report 1
    await run(); // ok: report 1 resolved
    await run(); // critical again: report 2, in the same second
    const reports = chat.posts.filter((post) => post.message.kind === 'patrol_report');
    const topLevel = reports.filter((post) => post.conversation.threadId === undefined);
    expect(topLevel).toHaveLength(2);
    const second = topLevel[1]!.message;
    expect(second.kind === 'patrol_report' && second.level).toBe('critical');
    const history = await service!.repository.history('web');
    expect(history.map((entry) => entry.posted)).toEqual([['report'], ['reply', 'update'], ['report']]);
  });

  it('still posts a scheduled slot once only, however often it is ticked', async () => {
    const { chat, clock } = await start([503]);
    const scheduler = service!.prepare();
    const slot = Date.UTC(new Date(clock.now()).getUTCFullYear() + 1, 0, 1, 0, 0);
    clock.set(slot + 1_000);
    await scheduler.tick('web', slot);
    await scheduler.tick('web', slot);
    expect(chat.posts.filter((post) => post.message.kind === 'patrol_report')).toHaveLength(1);
  });

  it('posts a slot once when two replicas both run it, and each manual run its own', async () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 15, 12, 0));
    const store = new MemoryStore(clock);
    const chat = new RecordingChatPort();
    const repository = new PatrolRepository(store, clock, 7 * 86_400_000, silentLogger);
    const replicas = [new PatrolPoster(chat, repository), new PatrolPoster(chat, repository)];
    const post = (reportId: string): PatrolPost[] => [
      {
        kind: 'new_report',
        reportId,
        level: 'critical',
        lines: [
          {
            checkId: 'api',
            tool: 'http_check',
            change: 'firing',
            severity: 'critical',
            detail: 'HTTP 503',
            previous: 'ok',
            since: clock.now() - 60_000,
          },
        ],
      },
    ];
    const context = (runId: string, manual: boolean): PatrolRunContext => ({
      name: 'web',
      channel: { platform: 'playground', channelId: 'ops' },
      timezone: 'UTC',
      slotMs: clock.now(),
      late: false,
      manual,
      runId,
      now: clock.now(),
    });
    const made = async (index: number, reportId: string, runId: string, manual: boolean) =>
      (await replicas[index]!.post(post(reportId), context(runId, manual))).done.map((p) => p.kind);
    expect(await made(0, 'rpt_a', 'run_a', false)).toEqual(['new_report']);
    expect(await made(1, 'rpt_b', 'run_b', false)).toEqual([]);
    expect(await made(0, 'rpt_c', 'run_c', true)).toEqual(['new_report']);
    expect(await made(0, 'rpt_d', 'run_d', true)).toEqual(['new_report']);
    expect(
      chat.posts.map((entry) => entry.message.kind === 'patrol_report' && entry.message.reportId),
    ).toEqual(['rpt_a', 'rpt_c', 'rpt_d']);
  });
});
