// Finds the processes one call started by the mark in their environment, including those that left its group.
import { readdir, readFile } from 'node:fs/promises';

/**
 * Pids whose /proc/<pid>/environ holds `name=value`. A process of another user (EACCES) or one that exited
 * meanwhile (ENOENT, ESRCH) is skipped, as is a zombie, whose environ reads empty. Without /proc (macOS) the
 * list is empty and only the process group is stopped.
 *
 * Limit: the mark is only as good as the environment. A process that clears or rewrites its own
 * environment (exec with `env -i`, or overwriting its environ memory) no longer carries it and escapes.
 */
export async function findMarkedProcesses(
  name: string,
  value: string,
  procRoot = '/proc',
): Promise<number[]> {
  let entries: string[];
  try {
    entries = await readdir(procRoot);
  } catch {
    return [];
  }
  const needle = Buffer.from(`${name}=${value}\0`);
  const found: number[] = [];
  await Promise.all(
    entries.map(async (entry) => {
      if (!/^\d+$/.test(entry) || Number(entry) === process.pid) return;
      let environ: Buffer;
      try {
        environ = await readFile(`${procRoot}/${entry}/environ`);
      } catch {
        return;
      }
      if (holdsEntry(environ, needle)) found.push(Number(entry));
    }),
  );
  return found;
}

/** The needle as a whole entry: at the start, or right after the NUL that ends the entry before it. */
function holdsEntry(environ: Buffer, needle: Buffer): boolean {
  for (let index = environ.indexOf(needle); index !== -1; index = environ.indexOf(needle, index + 1)) {
    if (index === 0 || environ[index - 1] === 0) return true;
  }
  return false;
}

/** Sends `signal` to every marked process; returns how many were found. */
export async function signalMarkedProcesses(
  name: string,
  value: string,
  signal: NodeJS.Signals,
): Promise<number> {
  const pids = await findMarkedProcesses(name, value);
  for (const pid of pids) {
    try {
      process.kill(pid, signal);
    } catch {
      // ESRCH: it exited after /proc was read.
    }
  }
  return pids.length;
}

/** SIGKILLs marked processes until a pass finds none, so one that forks during the sweep is caught next pass. */
export async function killMarkedProcesses(name: string, value: string, maxPasses = 5): Promise<void> {
  for (let pass = 0; pass < maxPasses; pass++) {
    if ((await signalMarkedProcesses(name, value, 'SIGKILL')) === 0) return;
  }
}
