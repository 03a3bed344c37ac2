// This installation's instance id: kept in the data directory, so a process restarted after a crash recognises
// the run leases of its previous life and takes them over at once instead of waiting for them to lapse. A lock
// file makes sure two live processes never share one id: the second gets a fresh id of its own.
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';

const LockSchema = z.object({ pid: z.number().int(), host: z.string(), id: z.string() });

export interface InstanceId {
  id: string;
  /** True when the id is the data directory's own (a restart takes over its leases); false for a fresh one. */
  persistent: boolean;
  /** Why the id is not the persistent one, for the log. */
  note?: string;
  release(): void;
}

export function claimInstanceId(dataDir: string, pid = process.pid): InstanceId {
  mkdirSync(dataDir, { recursive: true });
  const idFile = join(dataDir, 'instance-id');
  const lockFile = join(dataDir, 'instance.lock');
  const id = readOrCreateId(idFile);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(lockFile, JSON.stringify({ pid, host: hostname(), id }), { flag: 'wx', mode: 0o600 });
      return {
        id,
        persistent: true,
        release: () => removeOwnLock(lockFile, pid),
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') break;
      const holder = readLock(lockFile);
      // A lock left by a process on this machine that is gone: its life is over, and its id is ours again.
      if (holder && holder.host === hostname() && !alive(holder.pid)) {
        unlinkSync(lockFile);
        continue;
      }
      return {
        id: freshId(),
        persistent: false,
        note: holder
          ? `process ${holder.pid} on ${holder.host} holds ${lockFile}; this process uses an id of its own`
          : `${lockFile} is unreadable; this process uses an id of its own`,
        release: () => {},
      };
    }
  }
  return { id: freshId(), persistent: false, note: `cannot write ${lockFile}`, release: () => {} };
}

function readOrCreateId(file: string): string {
  try {
    const text = readFileSync(file, 'utf8').trim();
    if (/^inst_[0-9a-f]{16}$/.test(text)) return text;
  } catch {
    // absent: made below
  }
  const id = freshId();
  writeFileSync(file, `${id}\n`, { mode: 0o600 });
  return id;
}

function freshId(): string {
  return `inst_${randomBytes(8).toString('hex')}`;
}

function readLock(file: string): z.infer<typeof LockSchema> | undefined {
  try {
    const parsed = LockSchema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** Whether a process on this machine is alive: signal 0 checks without sending anything. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function removeOwnLock(file: string, pid: number): void {
  if (readLock(file)?.pid === pid) {
    try {
      unlinkSync(file);
    } catch {
      // already gone
    }
  }
}
