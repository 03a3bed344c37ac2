// Redis outages against a redis-server of our own: fail fast with a clear error while it is down, recover when it returns.
import type { ChildProcess } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { ErrorCode, OpsbotError } from '../../agent/errors.js';
import { RedisStore } from '../../agent/store/redis-store.js';
import { freePort, startRedisServer as startSharedRedisServer, stopRedisServer } from '../redis-server.js';

const servers = new Set<ChildProcess>();

async function startRedisServer(port: number): Promise<ChildProcess> {
  const child = await startSharedRedisServer(port);
  servers.add(child);
  child.once('exit', () => servers.delete(child));
  return child;
}

afterAll(async () => {
  await Promise.all([...servers].map(stopRedisServer));
});

async function timedFailure(
  operation: () => Promise<unknown>,
): Promise<{ error: unknown; elapsedMs: number }> {
  const started = Date.now();
  try {
    await operation();
  } catch (error) {
    return { error, elapsedMs: Date.now() - started };
  }
  throw new Error('expected the store operation to fail while Redis is down');
}

describe('Redis store outage', () => {
  it('fails fast while Redis is down, naming the URL, and works again once it is back', async () => {
    const port = await freePort();
    const url = `redis://127.0.0.1:${port}`;
    let server = await startRedisServer(port);
    const store = await RedisStore.connect(url, { prefix: 'outage:', reconnectMaxDelayMs: 100 });
    try {
      await store.set('run:1', { status: 'running' });
      expect(await store.claim('lock', 'alice', 60_000)).toBe(true);

      await stopRedisServer(server);
      const operations: Array<() => Promise<unknown>> = [
        () => store.get('run:1'),
        () => store.set('run:1', { status: 'finished' }),
        () => store.claim('lock', 'bob', 60_000),
        () => store.append('run:1:events', 'step'),
        () => store.members('runs:waiting'),
        () => store.ping(),
      ];
      for (const operation of operations) {
        const { error, elapsedMs } = await timedFailure(operation);
        expect(elapsedMs).toBeLessThan(2000);
        expect(error).toBeInstanceOf(OpsbotError);
        expect((error as OpsbotError).code).toBe(ErrorCode.StoreUnavailable);
        expect((error as OpsbotError).fault).toBe('system');
        expect((error as Error).message).toContain(url);
      }

      server = await startRedisServer(port);
      // The client reconnects on its own; poll briefly rather than sleep a fixed time.
      const deadline = Date.now() + 5000;
      while (
        !(await store.ping().then(
          () => true,
          () => false,
        ))
      ) {
        if (Date.now() > deadline) throw new Error('the store did not recover within 5 s of Redis returning');
        await sleep(25);
      }
      // This server started empty, so nothing from before the outage is expected to survive.
      expect(await store.get('run:1')).toBeUndefined();
      await store.set('run:1', { status: 'resumed' });
      expect(await store.get('run:1')).toEqual({ status: 'resumed' });
      // The new server has no cached scripts either, so this also covers the EVALSHA-to-EVAL fallback.
      expect(await store.claim('lock', 'bob', 60_000)).toBe(true);
      expect(await store.release('lock', 'bob')).toBe(true);
      await store.append('run:1:events', 'step');
      expect(await store.readLog('run:1:events')).toEqual(['step']);
    } finally {
      await store.close();
      await stopRedisServer(server);
    }
  });

  it('gives up on a command Redis does not answer (a hung server) after commandTimeoutMs, then recovers', async () => {
    const port = await freePort();
    const server = await startRedisServer(port);
    const store = await RedisStore.connect(`redis://127.0.0.1:${port}`, {
      prefix: 'hung:',
      commandTimeoutMs: 300,
    });
    try {
      await store.set('k', 1);
      server.kill('SIGSTOP');
      const { error, elapsedMs } = await timedFailure(() => store.get('k'));
      expect(elapsedMs).toBeGreaterThanOrEqual(250);
      expect(elapsedMs).toBeLessThan(2_000);
      expect((error as OpsbotError).code).toBe(ErrorCode.StoreUnavailable);
      expect((error as Error).message).toContain('gave no answer within 300 ms');
      server.kill('SIGCONT');
      expect(await store.get('k')).toBe(1);
    } finally {
      server.kill('SIGCONT');
      await store.close();
    }
  });
});
