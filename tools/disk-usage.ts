// The disk_usage tool: used and total space (and inodes) for the file systems holding the given paths.
import { realpath, statfs } from 'node:fs/promises';
import { z } from 'zod';
import { defineTool, type Tool } from '../agent/tool.js';
import { errorText, formatBytes, timeoutField, withCallLimits } from './call-limits.js';
import { mountOf, readMounts } from './mount-table.js';

const DEFAULT_TIMEOUT_MS = 5_000;
const MAX_TIMEOUT_MS = 30_000;

const input = z
  .object({
    paths: z
      .array(
        z
          .string()
          .min(1)
          .max(1024)
          .regex(/^\//, 'an absolute path')
          .refine((path) => !path.includes('\0'), 'must not contain a NUL byte'),
      )
      .min(1)
      .max(20)
      .default(['/'])
      .describe('Absolute paths or mount points to check, e.g. ["/", "/var/lib/docker"]. Default ["/"].'),
    max_percent: z
      .number()
      .min(0)
      .max(100)
      .optional()
      .describe('Fail the check (ok=false) when any file system is fuller than this percentage.'),
    timeout_ms: timeoutField(DEFAULT_TIMEOUT_MS, MAX_TIMEOUT_MS),
  })
  .strict();

const description = `Reports disk space for the file systems that hold the given paths, like df: used, available and total bytes, percentage used, and inode use, one row per path.
Result data: rows [{path, mount, file_system, device, used, total, available, percent, used_bytes, total_bytes, available_bytes, inodes_used, inodes_total, inodes_percent, error}], where percent is used / (used + available) as df computes it. ok is false if a path cannot be read or, with max_percent, when a file system is fuller than that.
Use this when you need to know whether a disk is full or filling up: failed writes, a database or log volume, before a deploy that needs space.
Do not use it to find which directories or files take the space (it does not walk directories), or for memory (use system_stats).`;

interface DiskRow {
  path: string;
  mount: string | null;
  file_system: string | null;
  device: string | null;
  used: string | null;
  total: string | null;
  available: string | null;
  percent: number | null;
  used_bytes: number | null;
  total_bytes: number | null;
  available_bytes: number | null;
  inodes_used: number | null;
  inodes_total: number | null;
  inodes_percent: number | null;
  error: string | null;
}

const round1 = (value: number) => Math.round(value * 10) / 10;

async function diskRow(path: string, mounts: Awaited<ReturnType<typeof readMounts>>): Promise<DiskRow> {
  const empty = {
    mount: null,
    file_system: null,
    device: null,
    used: null,
    total: null,
    available: null,
    percent: null,
    used_bytes: null,
    total_bytes: null,
    available_bytes: null,
    inodes_used: null,
    inodes_total: null,
    inodes_percent: null,
  };
  try {
    const real = await realpath(path);
    const info = await statfs(real);
    const total = info.blocks * info.bsize;
    const used = (info.blocks - info.bfree) * info.bsize;
    const available = info.bavail * info.bsize;
    const inodesUsed = info.files - info.ffree;
    const mount = mountOf(real, mounts);
    return {
      path,
      mount: mount?.mountPoint ?? null,
      file_system: mount?.fileSystem ?? null,
      device: mount?.source ?? null,
      used: formatBytes(used),
      total: formatBytes(total),
      available: formatBytes(available),
      percent: used + available > 0 ? round1((used / (used + available)) * 100) : 0,
      used_bytes: used,
      total_bytes: total,
      available_bytes: available,
      inodes_used: inodesUsed,
      inodes_total: info.files,
      inodes_percent: info.files > 0 ? round1((inodesUsed / info.files) * 100) : null,
      error: null,
    };
  } catch (error) {
    return { path, ...empty, error: errorText(error) };
  }
}

export function createDiskUsageTool(): Tool {
  return defineTool({
    name: 'disk_usage',
    description,
    input,
    risk: 'read',
    timeoutMs: MAX_TIMEOUT_MS,
    execute(ctx, args) {
      return withCallLimits(ctx, args.timeout_ms, DEFAULT_TIMEOUT_MS, async (limits) => {
        const mounts = await readMounts();
        const rows: DiskRow[] = [];
        for (const path of [...new Set(args.paths)]) {
          if (limits.signal.aborted) break;
          rows.push(await diskRow(path, mounts));
        }
        const failed = rows.filter((row) => row.error !== null);
        const measured = rows.filter((row) => row.error === null);
        const over =
          args.max_percent === undefined
            ? []
            : measured.filter((row) => (row.percent ?? 0) > (args.max_percent ?? 100));
        const parts = measured.map(
          (row) =>
            `${row.path}${row.mount && row.mount !== row.path ? ` (on ${row.mount})` : ''} is ${row.percent}% full, ${row.used} of ${row.total}`,
        );
        if (failed.length > 0) parts.push(`${failed.map((row) => `${row.path}: ${row.error}`).join('; ')}`);
        if (rows.length < args.paths.length)
          parts.push('the call ran out of time before checking every path');
        let summary = `${parts.join('; ')}.`;
        if (over.length > 0)
          summary += ` Above ${args.max_percent}%: ${over.map((row) => row.path).join(', ')}.`;
        return {
          ok: failed.length === 0 && over.length === 0 && rows.length === new Set(args.paths).size,
          summary,
          data: { rows },
        };
      });
    },
  });
}
