// The BullMQ RunQueue against the shared RunQueue contract, on the tests' own Redis, one queue name per test.
import { randomBytes } from 'node:crypto';
import { Queue } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { BullmqRunQueue, RUN_QUEUE_PREFIX, redisConnection } from '../../agent/queue/bullmq-run-queue.js';
import { TEST_REDIS_URL } from '../store/redis-test-keys.js';
import { runRunQueueContract } from './run-queue-contract.js';

async function obliterate(name: string): Promise<void> {
  const connection = redisConnection(TEST_REDIS_URL);
  const queue = new Queue(name, { connection, prefix: RUN_QUEUE_PREFIX });
  await queue.obliterate({ force: true });
  await queue.close();
  await connection.quit();
}

runRunQueueContract('BullMQ on Redis', async () => {
  const name = `test-${randomBytes(6).toString('hex')}`;
  return { queue: new BullmqRunQueue({ url: TEST_REDIS_URL, name }), cleanup: () => obliterate(name) };
});

describe('BullMQ RunQueue across processes', () => {
  it('hands a job to a second worker when the first closes, and keeps what waits in Redis', async () => {
    const name = `test-${randomBytes(6).toString('hex')}`;
    const gateway = new BullmqRunQueue({ url: TEST_REDIS_URL, name });
    const first = new BullmqRunQueue({ url: TEST_REDIS_URL, name });
    const second = new BullmqRunQueue({ url: TEST_REDIS_URL, name });
    try {
      // The gateway only enqueues; nothing advances until a worker exists.
      await gateway.enqueue('run_a');
      await gateway.enqueue('run_b');
      expect(await gateway.stats()).toMatchObject({ waiting: 2, active: 0 });
      await gateway.idle();

      const seen: string[] = [];
      first.process(
        async (runId) => {
          seen.push(`first:${runId}`);
        },
        { concurrency: 1 },
      );
      await first.idle();
      await first.close();
      await gateway.enqueue('run_c');
      second.process(
        async (runId) => {
          seen.push(`second:${runId}`);
        },
        { concurrency: 1 },
      );
      await second.idle();
      expect(seen).toEqual(['first:run_a', 'first:run_b', 'second:run_c']);
      expect(await gateway.stats()).toEqual({ waiting: 0, active: 0, delayed: 0, stalled: 0 });
    } finally {
      await Promise.all([gateway.close(), first.close(), second.close()]);
      await obliterate(name);
    }
  });
});
