// What a patrol keeps, on SQLite with a ManualClock: at most 500 history entries, none older than
// limits.patrol_history, and run records that expire from the store after that long.
import { afterEach, describe, expect, it } from 'vitest';
import { patrolConversation } from '../../scheduled/patrol-identity.js';
import { MAX_HISTORY_ENTRIES } from '../../scheduled/patrol-repository.js';
import { RecordingChatPort } from '../fakes/recording-chat-port.js';
import {
  CheckSwitch,
  HOUR,
  MINUTE,
  newReplica,
  type Replica,
  StoreBench,
  slot,
} from './patrol-service-rig.js';

const DAY = 24 * HOUR;
let bench: StoreBench | undefined;
let replica: Replica | undefined;
afterEach(async () => {
  await replica?.stop();
  await bench?.close();
  replica = undefined;
  bench = undefined;
});

async function sqliteWorld() {
  bench = new StoreBench('sqlite');
  const checks = new CheckSwitch();
  replica = newReplica({
    store: await bench.connect(),
    clock: bench.clock,
    chat: new RecordingChatPort(),
    checks,
  });
  const { clock } = bench;
  const { service } = replica;
  const run = async () => {
    await service.runPatrol('web', slot(clock.now()));
    clock.advance(MINUTE);
  };
  return { clock, checks, service, run, repository: service.repository, kernel: replica.kernel };
}

describe('patrol history', () => {
  it('keeps the latest 500 of 600 runs', { timeout: 60_000 }, async () => {
    const { run, repository } = await sqliteWorld();
    const started = bench!.clock.now();
    for (let i = 0; i < 600; i += 1) await run();
    const history = await repository.history('web');
    expect(history).toHaveLength(MAX_HISTORY_ENTRIES);
    expect(history[0]!.at).toBe(started + 100 * MINUTE);
    expect(history.at(-1)!.at).toBe(started + 599 * MINUTE);
  });

  it('drops entries older than limits.patrol_history, and the whole history once it is that old', async () => {
    const { clock, run, repository } = await sqliteWorld();
    await run();
    clock.advance(3 * DAY);
    await run();
    clock.advance(4 * DAY);
    await run();
    const history = await repository.history('web');
    expect(history).toHaveLength(2);
    expect(history.every((entry) => entry.at >= clock.now() - 7 * DAY)).toBe(true);
    clock.advance(7 * DAY + MINUTE);
    expect(await repository.history('web')).toEqual([]);
  });
});

describe('patrol run records', () => {
  it('expire from the store after keepForMs', async () => {
    const { clock, run, repository, kernel } = await sqliteWorld();
    await run();
    const [entry] = await repository.history('web');
    const runId = entry!.runId!;
    expect(await kernel.runs.find(runId)).toMatchObject({
      id: runId,
      status: 'finished',
      keepForMs: 7 * DAY,
    });
    expect(await kernel.runs.threadRunIds(patrolConversation('web'))).toEqual([]);
    clock.advance(7 * DAY - 2 * MINUTE);
    expect(await kernel.runs.find(runId)).toBeDefined();
    clock.advance(2 * MINUTE);
    expect(await kernel.runs.find(runId)).toBeUndefined();
  });
});
