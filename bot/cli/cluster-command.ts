// `opsbot cluster`: the queue, the processes seen in the last minute, the run that has waited longest, and who
// holds the Discord session; read from the shared Store and queue, as any process sees them.
import { openStore, parseStoreUrl } from '../../agent/store/open-store.js';
import { storeKeys } from '../../agent/store/store-keys.js';
import { readableUtc } from '../../agent/utc-time.js';
import { liveProcesses } from '../cluster/process-presence.js';
import type { CliContext } from './cli-context.js';
import type { CliIo } from './cli-io.js';
import { EXIT } from './run-task.js';

function ago(ms: number): string {
  if (ms < 1_000) return 'just now';
  if (ms < 120_000) return `${Math.round(ms / 1_000)} s ago`;
  if (ms < 7_200_000) return `${Math.round(ms / 60_000)} min ago`;
  return `${Math.round(ms / 3_600_000)} h ago`;
}

export async function clusterCommand(context: CliContext, io: CliIo): Promise<number> {
  const write = (line: string) => io.stdout.write(`${line}\n`);
  const url = context.environment.OPSBOT_STORE_URL;
  const location = parseStoreUrl(url);
  const store = await openStore(url, { logger: context.logger });
  const now = Date.now();
  try {
    write(`store: ${store.description}`);
    if (location.backend === 'redis') {
      const { BullmqRunQueue } = await import('../../agent/queue/bullmq-run-queue.js');
      const queue = new BullmqRunQueue({ url: location.url, logger: context.logger });
      try {
        const stats = await queue.stats();
        write(
          `queue: BullMQ, ${stats.waiting} waiting, ${stats.active} being advanced, ${stats.delayed} delayed`,
        );
        const oldest = await queue.oldestWaiting();
        write(
          oldest
            ? `oldest waiting run: ${oldest.runId}, enqueued ${ago(now - oldest.since)} (${readableUtc(oldest.since)})`
            : 'oldest waiting run: none waits',
        );
      } finally {
        await queue.close();
      }
    } else {
      write('queue: in-process (one process on SQLite: each process queues its own runs)');
    }
    const processes = await liveProcesses(store, now);
    write(`processes seen in the last minute: ${processes.length}`);
    for (const process of processes) {
      write(
        `  ${process.role.padEnd(7)} ${process.host}:${process.pid}  up since ${readableUtc(process.startedAt)}, ` +
          `seen ${ago(now - process.seenAt)}, ${
            process.role === 'gateway' ? 'steps no runs' : `${process.concurrency} runs at once`
          }, settings ${process.settingsHash}`,
      );
    }
    const hashes = new Set(processes.map((process) => process.settingsHash));
    if (hashes.size > 1) write(`warning: the processes run with ${hashes.size} different settings files`);
    const leader = await store.holder(storeKeys.discordSession);
    const leaderProcess = processes.find((process) => process.instanceId === leader);
    write(
      leader === undefined
        ? 'discord session: nobody holds it'
        : `discord session: held by ${leader}${
            leaderProcess
              ? ` (${leaderProcess.role} ${leaderProcess.host}:${leaderProcess.pid})`
              : ' (not seen in the last minute)'
          }`,
    );
    return EXIT.ok;
  } finally {
    await store.close();
  }
}
