// A run goes to whichever process steps it first, so a process whose runs another could not answer is refused:
// the pure check on presence records, and the presence service that refuses at start and, for two processes
// started at once, notices on its next heartbeat.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../agent/clock.js';
import type { Platform } from '../../agent/principal.js';
import { MemoryStore } from '../../agent/store/memory-store.js';
import { type PostingProfile, postingConflicts } from '../../bot/cluster/posting-mix.js';
import { ProcessPresence } from '../../bot/cluster/process-presence.js';
import { recordingLogger } from '../discord/discord-adapter-rig.js';
import { ManualTimers } from '../manual-timers.js';

const single = (takes: PostingProfile['takes']): PostingProfile => ({
  instanceId: 'all-1',
  role: 'all',
  host: 'ops-a',
  pid: 11,
  takes,
  posts: takes,
});
const worker = (posts: PostingProfile['posts'], instanceId = 'worker-1'): PostingProfile => ({
  instanceId,
  role: 'worker',
  host: 'ops-b',
  pid: 22,
  takes: [],
  posts,
});
const gateway: PostingProfile = {
  instanceId: 'gateway-1',
  role: 'gateway',
  host: 'ops-c',
  pid: 33,
  takes: ['slack'],
  posts: [],
};

describe('postingConflicts', () => {
  it('refuses a single process with a playground beside a worker, from either side, naming the fix', () => {
    const [fromSingle] = postingConflicts(single(['playground']), [worker(['slack'])]);
    expect(fromSingle).toBe(
      'this process takes requests from the playground, and the worker ops-b:22 steps runs from the same queue ' +
        'but cannot post to the playground: those answers would be lost. A playground lives in one process: set ' +
        'OPSBOT_PLAYGROUND=off here, or give it a store of its own (another OPSBOT_STORE_URL, or another Redis ' +
        'database such as redis://host:6379/1)',
    );
    const [fromWorker] = postingConflicts(worker(['slack']), [single(['playground'])]);
    expect(fromWorker).toContain(
      'the single process ops-a:11 takes requests from the playground, and this worker steps runs',
    );
    expect(fromWorker).toContain('set OPSBOT_PLAYGROUND=off on the single process ops-a:11');
  });

  it('refuses two playgrounds on one store: each would answer the other one\u2019s runs in its own page', () => {
    const other = { ...single(['playground']), instanceId: 'all-2', host: 'ops-d' };
    const conflicts = postingConflicts(single(['playground']), [other]);
    expect(conflicts).toHaveLength(2);
    expect(conflicts[0]).toContain('cannot post to that playground');
  });

  it('refuses a worker without the Slack token beside a Slack gateway, and tells it to set one', () => {
    const [conflict] = postingConflicts(worker([]), [gateway]);
    expect(conflict).toContain('the gateway ops-c:33 takes requests from Slack, and this worker steps runs');
    expect(conflict).toContain('Set SLACK_BOT_TOKEN here, so that it can post there');
  });

  it('lets a gateway and workers that post where it takes requests run together', () => {
    expect(postingConflicts(worker(['slack', 'discord']), [gateway, worker(['slack'], 'worker-2')])).toEqual(
      [],
    );
    expect(postingConflicts(single(['slack']), [worker(['slack'])])).toEqual([]);
    expect(postingConflicts(gateway, [gateway, { ...gateway, instanceId: 'gateway-2' }])).toEqual([]);
  });

  it('skips its own record and records from versions that do not say where they post', () => {
    expect(postingConflicts(single(['playground']), [single(['playground'])])).toEqual([]);
    const older = { instanceId: 'old', role: 'worker' as const, host: 'ops-e', pid: 44 };
    expect(postingConflicts(single(['playground']), [older])).toEqual([]);
  });
});

describe('ProcessPresence', () => {
  const record = (instanceId: string, role: 'all' | 'worker', takes: Platform[], posts: Platform[]) => ({
    instanceId,
    role,
    concurrency: 4,
    settingsHash: 'abc',
    takes,
    posts,
  });

  /** One store, clock, log and timers, shared by the presences made on it. */
  function cluster() {
    const parts = {
      store: new MemoryStore(),
      clock: new ManualClock(),
      logger: recordingLogger(),
      timers: new ManualTimers(),
    };
    return {
      ...parts,
      presence: (of: ReturnType<typeof record>) => new ProcessPresence({ ...parts, record: of }),
    };
  }

  it('refuses to start beside a process it could not answer for, and records nothing', async () => {
    const { store, presence } = cluster();
    const running = presence(record('worker-1', 'worker', [], ['slack']));
    await running.start();
    const refused = presence(record('all-1', 'all', ['playground', 'slack'], ['playground', 'slack']));
    await expect(refused.start()).rejects.toThrow(
      /^this process takes requests from the playground, and the worker .* OPSBOT_PLAYGROUND=off here/,
    );
    expect(await store.members('cluster:processes')).toEqual(['worker-1']);
    await running.stop();
  });

  it('notices on its heartbeat a process that started at the same moment: logs it and fails readiness', async () => {
    const made = cluster();
    const { store, clock, logger, timers } = made;
    const presence = made.presence(record('all-1', 'all', ['playground'], ['playground']));
    await presence.start();
    expect(await presence.readiness()).toMatchObject({ ok: true });
    // Another process wrote its record after this one looked.
    await store.set('cluster:process:worker-1', {
      ...record('worker-1', 'worker', [], ['slack']),
      host: 'ops-b',
      pid: 22,
      startedAt: clock.now(),
      seenAt: clock.now(),
    });
    await store.addToSet('cluster:processes', 'worker-1');
    clock.advance(15_000);
    timers.fire();
    await until(() => logger.lines.some((line) => line.level === 'error'));
    expect(logger.lines.find((line) => line.level === 'error')?.msg).toMatch(
      /^runs would be lost: this process takes requests from the playground, and the worker ops-b:22/,
    );
    const readiness = await presence.readiness();
    expect(readiness.ok).toBe(false);
    expect(readiness.detail).toContain('OPSBOT_PLAYGROUND=off here');
    // Said once, not on every heartbeat.
    timers.fire();
    await until(() => timers.pending.size > 0);
    expect(logger.lines.filter((line) => line.level === 'error')).toHaveLength(1);
    await presence.stop();
  });
});

async function until(test: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!test()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
