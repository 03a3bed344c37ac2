// Removes what a test wrote under its own key prefix in the shared Redis on 127.0.0.1:6379.
import { createClient } from '@redis/client';

export const TEST_REDIS_URL = 'redis://127.0.0.1:6379';

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
