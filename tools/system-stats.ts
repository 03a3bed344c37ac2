// The system_stats tool: load, CPUs, memory, swap and uptime of the machine opsbot runs on.
import { readFile } from 'node:fs/promises';
import { cpus, freemem, loadavg, totalmem, uptime } from 'node:os';
import { z } from 'zod';
import { defineTool, type Tool } from '../agent/tool.js';
import { formatBytes, timeoutField } from './call-limits.js';

const input = z.object({ timeout_ms: timeoutField(2_000, 10_000) }).strict();

const description = `Reports the health of the machine opsbot runs on: load averages (1, 5, 15 minutes), CPU count, memory and swap use, and uptime.
Result data: load {one, five, fifteen, per_cpu_one}, cpus, memory {total_bytes, used_bytes, available_bytes, percent, total, used}, swap {total_bytes, used_bytes, percent} (null if unknown), uptime_seconds, uptime. Memory "used" excludes reclaimable cache (MemAvailable on Linux).
Use this when you need a quick picture of whether this host is overloaded, short of memory or swapping, or was recently rebooted.
Do not use it for other machines (it only sees the one opsbot runs on), for disk space (use disk_usage) or for single processes (use process_check).`;

/** /proc/meminfo values in bytes, by field name; empty on systems without it. */
async function memoryInfo(): Promise<Map<string, number>> {
  const fields = new Map<string, number>();
  const text = await readFile('/proc/meminfo', 'utf8').catch(() => '');
  for (const line of text.split('\n')) {
    const match = /^(\w+):\s+(\d+)(?:\s+kB)?/.exec(line);
    if (match?.[1] && match[2]) fields.set(match[1], Number(match[2]) * (line.includes('kB') ? 1024 : 1));
  }
  return fields;
}

/** A span of seconds as people say it: `1d 1h`, `3h 12m`, `43m`, `40 s`. */
export function readableDuration(seconds: number): string {
  const days = Math.floor(seconds / 86_400);
  const hours = Math.floor((seconds % 86_400) / 3_600);
  const minutes = Math.floor((seconds % 3_600) / 60);
  if (days > 0) return `${days}d ${hours}h`;
  if (hours > 0) return `${hours}h ${minutes}m`;
  if (minutes > 0) return `${minutes}m`;
  return `${Math.round(seconds)} s`;
}

const round = (value: number, digits = 2) => Math.round(value * 10 ** digits) / 10 ** digits;

export function createSystemStatsTool(): Tool {
  return defineTool({
    name: 'system_stats',
    description,
    input,
    risk: 'read',
    async execute() {
      const info = await memoryInfo();
      const [one = 0, five = 0, fifteen = 0] = loadavg();
      const cpuCount = cpus().length || 1;
      const total = info.get('MemTotal') ?? totalmem();
      const available = info.get('MemAvailable') ?? freemem();
      const used = total - available;
      const swapTotal = info.get('SwapTotal');
      const swapFree = info.get('SwapFree');
      const swap =
        swapTotal === undefined || swapFree === undefined
          ? null
          : {
              total_bytes: swapTotal,
              used_bytes: swapTotal - swapFree,
              percent: swapTotal > 0 ? round(((swapTotal - swapFree) / swapTotal) * 100, 1) : 0,
            };
      const up = Math.round(uptime());
      const memoryPercent = round((used / total) * 100, 1);
      const swapText =
        swap === null ? 'swap unknown' : swap.total_bytes === 0 ? 'no swap' : `swap ${swap.percent}% used`;
      return {
        ok: true,
        summary: `Load ${round(one)}/${round(five)}/${round(fifteen)} on ${cpuCount} CPU${cpuCount === 1 ? '' : 's'}, memory ${memoryPercent}% used (${formatBytes(used)} of ${formatBytes(total)}), ${swapText}, up ${readableDuration(up)}.`,
        data: {
          load: {
            one: round(one),
            five: round(five),
            fifteen: round(fifteen),
            per_cpu_one: round(one / cpuCount),
          },
          cpus: cpuCount,
          memory: {
            total_bytes: total,
            used_bytes: used,
            available_bytes: available,
            percent: memoryPercent,
            total: formatBytes(total),
            used: formatBytes(used),
          },
          swap,
          uptime_seconds: up,
          uptime: readableDuration(up),
        },
      };
    },
  });
}
