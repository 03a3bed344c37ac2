// Vitest global setup: the Redis the tests share. OPSBOT_TEST_REDIS_URL, when set, names one; otherwise, when
// redis-server is installed, the tests start their own on a free port; otherwise they use 127.0.0.1:6379.
import type { ChildProcess } from 'node:child_process';
import { freePort, redisServerInstalled, startRedisServer, stopRedisServer } from './redis-server.js';

let server: ChildProcess | undefined;

export async function setup(): Promise<void> {
  if (process.env.OPSBOT_TEST_REDIS_URL || !redisServerInstalled()) return;
  const port = await freePort();
  server = await startRedisServer(port);
  // Test workers are started after this and inherit the environment.
  process.env.OPSBOT_TEST_REDIS_URL = `redis://127.0.0.1:${port}`;
  process.env.OPSBOT_TEST_REDIS_STARTED = String(server.pid);
}

export async function teardown(): Promise<void> {
  if (server) await stopRedisServer(server);
}
