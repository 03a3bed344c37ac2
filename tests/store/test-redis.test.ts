// The tests' own Redis: with redis-server installed, no Redis service has to run for `npm test` to pass.
import { describe, expect, it } from 'vitest';
import { RedisStore } from '../../agent/store/redis-store.js';
import { redisServerInstalled } from '../redis-server.js';
import { TEST_REDIS_URL } from './redis-test-keys.js';

describe.skipIf(!redisServerInstalled())('the Redis the tests use (redis-server is installed)', () => {
  it('is a redis-server the tests started on a free port, unless OPSBOT_TEST_REDIS_URL named another', async () => {
    expect(process.env.OPSBOT_TEST_REDIS_URL).toBe(TEST_REDIS_URL);
    if (process.env.OPSBOT_TEST_REDIS_STARTED !== undefined) {
      expect(TEST_REDIS_URL).toMatch(/^redis:\/\/127\.0\.0\.1:\d+$/);
      expect(TEST_REDIS_URL).not.toBe('redis://127.0.0.1:6379');
    }
    const store = await RedisStore.connect(TEST_REDIS_URL, { prefix: 'opsbot-test:own-redis:' });
    try {
      await store.ping();
    } finally {
      await store.close();
    }
  });
});
