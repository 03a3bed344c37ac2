// A redis-server of the tests' own, on a free port: no Redis service needs to be running on the machine.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { createInterface } from 'node:readline';

export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  server.close();
  await once(server, 'close');
  if (address === null || typeof address === 'string') throw new Error('no TCP port');
  return address.port;
}

/** Whether the `redis-server` program is installed (Debian: the redis-server package). */
export function redisServerInstalled(): boolean {
  return spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0;
}

/**
 * Starts redis-server on 127.0.0.1:<port>, and resolves once it accepts connections: in memory only, or, given
 * `dataDir`, with an append-only file there written on every command, so that a restart on the same folder
 * finds every write acknowledged before it stopped.
 */
export async function startRedisServer(port: number, dataDir?: string): Promise<ChildProcess> {
  const persistence = dataDir
    ? ['--dir', dataDir, '--appendonly', 'yes', '--appendfsync', 'always']
    : ['--appendonly', 'no'];
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', ...persistence],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  for await (const line of createInterface({ input: child.stdout! })) {
    if (line.includes('Ready to accept connections')) {
      child.stdout!.resume();
      return child;
    }
  }
  throw new Error(`redis-server on port ${port} exited before it was ready`);
}

export async function stopRedisServer(child: ChildProcess): Promise<void> {
  await signalRedisServer(child, 'SIGKILL');
}

/** Stops it as a shutdown does: with SIGTERM, it flushes its append-only file before it exits. */
export async function shutDownRedisServer(child: ChildProcess): Promise<void> {
  await signalRedisServer(child, 'SIGTERM');
}

async function signalRedisServer(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill(signal);
  await exited;
}
