// The Redis client the Redis Store talks through (its timeouts and reconnection), and its Lua scripts' SHAs.
import { createHash } from 'node:crypto';
import { createClient } from '@keyv/redis';

export interface RedisClientSettings {
  connectTimeoutMs: number;
  commandTimeoutMs: number;
  reconnectMaxDelayMs: number;
}

/** The SHA1 of each Lua script, worked out once: EVALSHA names a script by it on every call. */
const scriptShas = new Map<string, string>();

export function sha1(text: string): string {
  let sha = scriptShas.get(text);
  if (sha === undefined) {
    sha = createHash('sha1').update(text).digest('hex');
    scriptShas.set(text, sha);
  }
  return sha;
}

export function createRedisClient(url: string, settings: RedisClientSettings) {
  return createClient({
    url,
    // Without this, commands issued while Redis is down wait in memory until it returns: callers would hang.
    disableOfflineQueue: true,
    // No per-command timeout here: node-redis would make a timer and an AbortSignal for every command. The store
    // gives every command its deadline with one timer (CommandDeadlines).
    socket: {
      connectTimeout: settings.connectTimeoutMs,
      // Never give up: the store must come back by itself when Redis does.
      reconnectStrategy: (retries: number) =>
        Math.min(50 * 2 ** Math.min(retries, 10), settings.reconnectMaxDelayMs) +
        Math.floor(Math.random() * 50),
    },
  });
}
export type RedisClient = ReturnType<typeof createRedisClient>;
