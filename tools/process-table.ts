// Reads the process table straight from /proc (Linux): no shell, no ps parsing.
import { execFile } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { totalmem } from 'node:os';

export interface ProcessEntry {
  pid: number;
  /** The kernel's short name (at most 15 characters). */
  name: string;
  /** argv as the process set it; empty for kernel threads. */
  argv: string[];
}

export interface ProcessRow {
  pid: number;
  ppid: number;
  name: string;
  state: string;
  user: string;
  cpu_percent: number;
  memory_bytes: number;
  memory_percent: number;
  started_at: string;
  elapsed_seconds: number;
  command: string;
}

const MAX_COMMAND_CHARS = 4096;

let clockTicks: Promise<number> | undefined;

/** USER_HZ, for turning /proc tick counts into seconds; 100 on nearly every Linux, asked once. */
function ticksPerSecond(): Promise<number> {
  clockTicks ??= new Promise((resolve) => {
    execFile('getconf', ['CLK_TCK'], { timeout: 2_000 }, (error, stdout) => {
      const value = Number(stdout.trim());
      resolve(!error && value > 0 ? value : 100);
    });
  });
  return clockTicks;
}

let users: Promise<Map<string, string>> | undefined;

function userNames(): Promise<Map<string, string>> {
  users ??= readFile('/etc/passwd', 'utf8')
    .then((text) => {
      const byUid = new Map<string, string>();
      for (const line of text.split('\n')) {
        const [name, , uid] = line.split(':');
        if (name && uid) byUid.set(uid, name);
      }
      return byUid;
    })
    .catch(() => new Map());
  return users;
}

export function commandLine(entry: ProcessEntry): string {
  const text = entry.argv.length > 0 ? entry.argv.join(' ') : `[${entry.name}]`;
  return text.length > MAX_COMMAND_CHARS ? text.slice(0, MAX_COMMAND_CHARS) : text;
}

/** Every process visible now. Processes that exit while being read are skipped. */
export async function listProcesses(): Promise<ProcessEntry[]> {
  const names = await readdir('/proc');
  const entries: ProcessEntry[] = [];
  await Promise.all(
    names
      .filter((name) => /^\d+$/.test(name))
      .map(async (name) => {
        try {
          const [comm, cmdline] = await Promise.all([
            readFile(`/proc/${name}/comm`, 'utf8'),
            readFile(`/proc/${name}/cmdline`),
          ]);
          const argv = cmdline.toString('utf8').split('\0');
          if (argv.at(-1) === '') argv.pop();
          entries.push({ pid: Number(name), name: comm.trim(), argv });
        } catch {
          // The process ended between readdir and read.
        }
      }),
  );
  return entries.sort((a, b) => a.pid - b.pid);
}

async function bootSeconds(): Promise<{ bootTime: number; uptime: number }> {
  const [stat, uptime] = await Promise.all([
    readFile('/proc/stat', 'utf8'),
    readFile('/proc/uptime', 'utf8'),
  ]);
  const btime = Number(/^btime (\d+)/m.exec(stat)?.[1] ?? 0);
  return { bootTime: btime, uptime: Number(uptime.split(' ')[0]) };
}

/** Details for chosen processes: CPU (lifetime average, as ps shows it), memory, start time, user. */
export async function describeProcesses(entries: ProcessEntry[]): Promise<ProcessRow[]> {
  const [hz, byUid, boot] = await Promise.all([ticksPerSecond(), userNames(), bootSeconds()]);
  const memoryTotal = totalmem();
  const rows: ProcessRow[] = [];
  for (const entry of entries) {
    try {
      const [stat, status] = await Promise.all([
        readFile(`/proc/${entry.pid}/stat`, 'utf8'),
        readFile(`/proc/${entry.pid}/status`, 'utf8'),
      ]);
      // The name in stat is in parentheses and may itself contain ") ", so split after the last one.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const startTicks = Number(fields[19]);
      const cpuSeconds = (Number(fields[11]) + Number(fields[12])) / hz;
      const elapsed = Math.max(0, boot.uptime - startTicks / hz);
      const rssBytes = Number(/^VmRSS:\s+(\d+)/m.exec(status)?.[1] ?? 0) * 1024;
      const uid = /^Uid:\s+(\d+)/m.exec(status)?.[1] ?? '';
      rows.push({
        pid: entry.pid,
        ppid: Number(fields[1]),
        name: entry.name,
        state: fields[0] ?? '?',
        user: byUid.get(uid) ?? uid,
        cpu_percent: elapsed > 0 ? Math.round((cpuSeconds / elapsed) * 1000) / 10 : 0,
        memory_bytes: rssBytes,
        memory_percent: Math.round((rssBytes / memoryTotal) * 1000) / 10,
        started_at: new Date((boot.bootTime + startTicks / hz) * 1000).toISOString(),
        elapsed_seconds: Math.round(elapsed),
        command: commandLine(entry),
      });
    } catch {
      // Ended while being read.
    }
  }
  return rows;
}
