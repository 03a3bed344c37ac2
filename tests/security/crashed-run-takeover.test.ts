// Attack: kill -9 during an action leaves the run "Working" until its lease lapses. A process restarted with its
// data directory's instance id recognises its previous life's leases and resolves the run at once; another
// replica takes it over once the short lease lapses. Two live processes never share an instance id.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ManualClock } from '../../agent/clock.js';
import { Kernel } from '../../agent/kernel.js';
import type { Principal } from '../../agent/principal.js';
import { SqliteStore } from '../../agent/store/sqlite-store.js';
import type { Store } from '../../agent/store/store.js';
import type { Timers } from '../../agent/timers.js';
import { defineTool } from '../../agent/tool.js';
import { claimInstanceId } from '../../bot/instance-id.js';

const alice: Principal = {
  platform: 'cli',
  userId: 'alice',
  displayName: 'Alice',
  roles: ['admin'],
  groups: [],
};
const conversation = { platform: 'cli' as const, channelId: 'terminal', threadId: 't1' };
const LEASE_MS = 20_000;

/** A write that never returns: the process is "killed" while it runs. */
const hangingWrite = defineTool({
  name: 'drain_node',
  description: 'Drain a node. Use when asked to drain. Do not use otherwise.',
  input: z.object({}),
  risk: 'write',
  execute: () => new Promise(() => {}),
});

/** Timers that never fire: a dead process renews nothing. */
const deadTimers: Timers = { setTimeout: () => 0, clearTimeout: () => {} };

let dir: string;
const stores: Store[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
  rmSync(dir, { recursive: true, force: true });
});

function kernelOn(file: string, clock: ManualClock, instanceId: string, timers?: Timers): Kernel {
  const store = new SqliteStore(file, { clock });
  stores.push(store);
  return new Kernel({
    store,
    tools: [hangingWrite],
    clock,
    instanceId,
    runLeaseMs: LEASE_MS,
    ...(timers ? { timers } : {}),
  });
}

async function crashedDuringAction() {
  dir = mkdtempSync(join(tmpdir(), 'opsbot-takeover-'));
  const file = join(dir, 'opsbot.sqlite');
  const clock = new ManualClock();
  const dead = kernelOn(file, clock, 'inst_aaaaaaaaaaaaaaaa', deadTimers);
  const runId = await dead.start({ text: 'drain_node', principal: alice, conversation, engine: 'command' });
  for (let i = 0; i < 200 && (await dead.get(runId)).status !== 'executing'; i++)
    await new Promise((resolve) => setImmediate(resolve));
  expect((await dead.get(runId)).status).toBe('executing');
  return { file, clock, runId };
}

describe('a crashed run is resolved quickly', () => {
  it('attack: kill -9 mid-action, then restart: the same instance takes its old lease over at once', async () => {
    const { file, clock, runId } = await crashedDuringAction();
    const restarted = kernelOn(file, clock, 'inst_aaaaaaaaaaaaaaaa');
    expect(await restarted.recover()).toEqual({ continued: 0, outcomeUnknown: 1 });
    expect((await restarted.get(runId)).status).toBe('outcome_unknown');
  });

  it('attack: kill -9 mid-action: another replica waits only for the short lease, then resolves the run', async () => {
    const { file, clock, runId } = await crashedDuringAction();
    const other = kernelOn(file, clock, 'inst_bbbbbbbbbbbbbbbb');
    expect(await other.recover()).toEqual({ continued: 0, outcomeUnknown: 0 });
    clock.advance(LEASE_MS + 1);
    expect(await other.recover()).toEqual({ continued: 0, outcomeUnknown: 1 });
    expect((await other.get(runId)).status).toBe('outcome_unknown');
  });
});

describe('the instance id', () => {
  it('is kept in the data directory and handed to the next life of the process', () => {
    dir = mkdtempSync(join(tmpdir(), 'opsbot-instance-'));
    const first = claimInstanceId(dir);
    expect(first.persistent).toBe(true);
    first.release();
    const second = claimInstanceId(dir);
    expect(second).toMatchObject({ id: first.id, persistent: true });
    second.release();
  });

  it('attack: a second live process on the same data directory never shares the id', () => {
    dir = mkdtempSync(join(tmpdir(), 'opsbot-instance-'));
    const live = claimInstanceId(dir);
    const other = claimInstanceId(dir);
    expect(other.persistent).toBe(false);
    expect(other.id).not.toBe(live.id);
    expect(other.note).toContain(`process ${process.pid}`);
    live.release();
  });

  it('takes over the lock a killed process left behind', () => {
    dir = mkdtempSync(join(tmpdir(), 'opsbot-instance-'));
    const first = claimInstanceId(dir);
    // A process that has exited: its pid is free, and its lock is stale.
    const gone = spawnSync(process.execPath, ['-e', 'process.exit(0)']).pid;
    writeFileSync(join(dir, 'instance.lock'), JSON.stringify({ pid: gone, host: hostname(), id: first.id }));
    const next = claimInstanceId(dir);
    expect(next).toMatchObject({ id: first.id, persistent: true });
    next.release();
  });
});
