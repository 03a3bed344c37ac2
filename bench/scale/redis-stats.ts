// Redis's own counters (INFO stats and INFO commandstats), read before and after the measured runs, so the
// commands and bytes per run come from the server, whoever sent them (gateway, workers, BullMQ, the Store).
import { Redis } from 'ioredis';

export interface RedisCounters {
  commands: number;
  netInputBytes: number;
  netOutputBytes: number;
  /** calls by command name (lower case, as INFO names them). */
  byCommand: Record<string, number>;
}

export async function readRedisCounters(port: number): Promise<RedisCounters> {
  const client = new Redis({ port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 1 });
  await client.connect();
  try {
    const info = await client.info('all');
    const field = (name: string) => Number(new RegExp(`^${name}:(\\d+)`, 'm').exec(info)?.[1] ?? Number.NaN);
    const byCommand: Record<string, number> = {};
    for (const match of info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm))
      byCommand[match[1]!] = Number(match[2]);
    return {
      commands: field('total_commands_processed'),
      netInputBytes: field('total_net_input_bytes'),
      netOutputBytes: field('total_net_output_bytes'),
      byCommand,
    };
  } finally {
    client.disconnect();
  }
}

export interface RedisPerRun {
  commands: number;
  inputBytes: number;
  outputBytes: number;
  /** The commands that make up most of the total, per run, largest first. */
  topCommands: Array<{ command: string; perRun: number }>;
}

/** The difference over `runs`; the reads themselves (two INFO calls and a HELLO or so) are a rounding error. */
export function perRun(before: RedisCounters, after: RedisCounters, runs: number): RedisPerRun {
  const topCommands = Object.entries(after.byCommand)
    .map(([command, calls]) => ({ command, perRun: (calls - (before.byCommand[command] ?? 0)) / runs }))
    .filter((entry) => entry.perRun > 0)
    .sort((a, b) => b.perRun - a.perRun)
    .slice(0, 12);
  return {
    commands: (after.commands - before.commands) / runs,
    inputBytes: (after.netInputBytes - before.netInputBytes) / runs,
    outputBytes: (after.netOutputBytes - before.netOutputBytes) / runs,
    topCommands,
  };
}
