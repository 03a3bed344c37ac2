// The Redis the tests share (started by tests/redis-global-setup.ts), and removing what a test wrote there
// under its own key prefix.
import { createClient } from '@redis/client';

/** A redis-server of the tests' own when one is installed; else OPSBOT_TEST_REDIS_URL, else the usual port. */
export const TEST_REDIS_URL = process.env.OPSBOT_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

export async function deleteRedisKeys(prefix: string, url = TEST_REDIS_URL): Promise<void> {
  const client = createClient({ url });
  await client.connect();
  try {
    const keys: string[] = [];
    for await (const batch of client.scanIterator({ MATCH: `${prefix}*`, COUNT: 500 })) keys.push(...batch);
    if (keys.length > 0) await client.del(keys);
  } finally {
    client.destroy();
  }
}
