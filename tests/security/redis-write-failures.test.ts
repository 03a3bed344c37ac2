// Attack: a Redis store that refuses writes (maxmemory reached, turned into a replica, gone). Each refusal must be
// a StoreWriteError whose reason a person can act on, not a bare store error that a click's reply cannot name.
import type { ChildProcess } from 'node:child_process';
import { createClient } from '@redis/client';
import { afterEach, describe, expect, it } from 'vitest';
import { RedisStore } from '../../agent/store/redis-store.js';
import { StoreWriteError } from '../../agent/store/store-write-error.js';
import { freePort, startRedisServer, stopRedisServer } from '../redis-server.js';

let server: ChildProcess | undefined;
let store: RedisStore | undefined;

afterEach(async () => {
  await store?.close();
  if (server) await stopRedisServer(server);
  store = undefined;
  server = undefined;
});

async function refusal(write: () => Promise<unknown>): Promise<StoreWriteError> {
  const error = await write().then(
    () => undefined,
    (failure: unknown) => failure,
  );
  expect(error).toBeInstanceOf(StoreWriteError);
  return error as StoreWriteError;
}

describe('Redis refusing writes', () => {
  it('attack: Redis out of memory, a read-only replica and Redis gone fail writes with no reason given', async () => {
    const port = await freePort();
    server = await startRedisServer(port);
    const url = `redis://127.0.0.1:${port}`;
    store = await RedisStore.connect(url, { prefix: 'write-failures:', reconnectMaxDelayMs: 100 });
    const admin = createClient({ url });
    await admin.connect();
    try {
      await admin.configSet({ 'maxmemory-policy': 'noeviction', maxmemory: '1' });
      const full = 'Redis is out of memory (maxmemory reached)';
      expect((await refusal(() => store!.set('run:1', { status: 'running' }))).reason).toBe(full);
      expect((await refusal(() => store!.claim('lease', 'dave', 60_000))).reason).toBe(full);
      const batch = () => store!.writeAll([{ kind: 'set', key: 'run:1', value: { status: 'running' } }]);
      expect((await refusal(batch)).reason).toBe(full);
      await admin.configSet('maxmemory', '0');
      await store.set('run:1', { status: 'running' });

      // A replica of a primary that is not there refuses every write.
      await admin.sendCommand(['REPLICAOF', '127.0.0.1', String(await freePort())]);
      expect((await refusal(() => store!.append('audit', { kind: 'x' }))).reason).toBe(
        'Redis is a read-only replica',
      );
      await admin.sendCommand(['REPLICAOF', 'NO', 'ONE']);
    } finally {
      admin.destroy();
    }
    await stopRedisServer(server);
    server = undefined;
    expect((await refusal(() => store!.addToSet('runs:waiting', 'run_1'))).reason).toBe(
      'Redis is unreachable',
    );
  });
});
