// The RunQueue on Redis with BullMQ (open source), for several processes: gateways enqueue, workers advance.
// It carries only "advance this run now"; the Store stays the source of truth. One job per run waits at a time:
// BullMQ's deduplication by run id keeps a second enqueue out while the first waits, and `keepLastIfActive` turns
// an enqueue made while the run is being advanced into one more job, started only once that advance ends — so a
// run is never advanced twice at once, on any worker. Completed and failed jobs are removed at once.
import { type Job, Queue, Worker } from 'bullmq';
import { Redis, type RedisOptions } from 'ioredis';
import { errorMessage } from '../errors.js';
import { type Logger, silentLogger } from '../logger.js';
import type { QueueStats, QueueStatsSource } from '../queue-stats.js';
import type { AdvanceRun, RunQueue } from '../run-queue.js';

export const RUN_QUEUE_NAME = 'runs';
/** Every BullMQ key starts with this, beside the Store's own keys in the same Redis database. */
export const RUN_QUEUE_PREFIX = 'opsbot:bull';
const JOB_NAME = 'advance';

/** How often idle() looks at the queue's counts; only tests, the CLI and shutdown wait on it. */
const IDLE_POLL_MS = 25;

export interface BullmqRunQueueOptions {
  /** A redis:// or rediss:// URL, the Store's own. */
  url: string;
  /** The queue's name under the prefix; one per deployment (tests use their own). */
  name?: string;
  logger?: Logger;
  /**
   * How long a worker may go without renewing a job's lock before the job is taken as stalled and handed to
   * another worker (BullMQ's lockDuration; the stalled check runs at the same interval).
   */
  lockMs?: number;
}

export interface RunQueueStats extends QueueStats {
  /** Jobs held back for a while (none today: kept for retries with a delay). */
  delayed: number;
  /** Jobs of a dead worker this process's worker has handed back to the queue since it started. */
  stalled: number;
}

interface AdvanceJob {
  runId: string;
}

/**
 * A connection for BullMQ (which, as ES modules, takes a client rather than options). Its blocking commands must
 * wait as long as they need, so requests are never given up on; ioredis reconnects on its own.
 */
export function redisConnection(url: string): Redis {
  return new Redis(redisOptionsFromUrl(url));
}

/** ioredis options from a Redis URL, as BullMQ needs them. */
export function redisOptionsFromUrl(url: string): RedisOptions {
  const parsed = new URL(url);
  const db = parsed.pathname.replace(/^\//, '');
  return {
    host: parsed.hostname,
    port: parsed.port ? Number(parsed.port) : 6379,
    ...(parsed.username ? { username: decodeURIComponent(parsed.username) } : {}),
    ...(parsed.password ? { password: decodeURIComponent(parsed.password) } : {}),
    ...(db ? { db: Number(db) } : {}),
    ...(parsed.protocol === 'rediss:' ? { tls: {} } : {}),
    maxRetriesPerRequest: null,
  };
}

export class BullmqRunQueue implements RunQueue, QueueStatsSource {
  /** Every process on this queue's Redis may step its runs. */
  readonly shared = true;
  private readonly queue: Queue<AdvanceJob>;
  private stalledSeen = 0;
  private worker: Worker<AdvanceJob> | undefined;
  private closed = false;
  private readonly name: string;
  /** The connections this queue opened, closed with it (BullMQ does not close clients it was given). */
  private readonly connections: Redis[] = [];
  private readonly logger: Logger;

  constructor(private readonly options: BullmqRunQueueOptions) {
    this.name = options.name ?? RUN_QUEUE_NAME;
    this.logger = options.logger ?? silentLogger;
    this.queue = new Queue<AdvanceJob>(this.name, { connection: this.connect(), prefix: RUN_QUEUE_PREFIX });
    this.queue.on('error', (error) =>
      this.logger.warn({ err: errorMessage(error) }, 'run queue: Redis error'),
    );
  }

  async enqueue(runId: string): Promise<void> {
    if (this.closed) return;
    await this.queue.add(
      JOB_NAME,
      { runId },
      {
        deduplication: { id: runId, keepLastIfActive: true },
        removeOnComplete: true,
        removeOnFail: true,
      },
    );
  }

  process(advance: AdvanceRun, options: { concurrency: number }): void {
    if (this.worker) throw new Error('This RunQueue already has a worker');
    if (!(options.concurrency >= 1))
      throw new RangeError(`concurrency must be at least 1, got ${options.concurrency}`);
    const lockDuration = this.options.lockMs ?? 30_000;
    this.worker = new Worker<AdvanceJob>(
      this.name,
      async (job: Job<AdvanceJob>) => {
        await advance(job.data.runId);
      },
      {
        connection: this.connect(),
        prefix: RUN_QUEUE_PREFIX,
        concurrency: options.concurrency,
        lockDuration,
        stalledInterval: lockDuration,
        // A stalled job (its worker died) goes back to wait and another worker takes it; the kernel's rules then
        // decide what a half-done step means. Only a job that keeps stalling is given up (recovery finds its run).
        maxStalledCount: 5,
      },
    );
    this.worker.on('failed', (job, error) =>
      this.logger.error({ runId: job?.data.runId, err: errorMessage(error) }, 'a run could not be advanced'),
    );
    this.worker.on('stalled', (jobId) => {
      this.stalledSeen += 1;
      this.logger.warn(
        { jobId },
        // After a Redis restart every job that was active has lost its lock too, though its worker is alive.
        'a run job stalled (its lock ran out: its worker stopped answering, or Redis was away); it goes back to the queue',
      );
    });
    this.worker.on('error', (error) =>
      this.logger.warn({ err: errorMessage(error) }, 'run queue worker: Redis error'),
    );
  }

  /** Jobs waiting, being advanced and delayed, across every process on this queue. */
  async stats(): Promise<RunQueueStats> {
    const counts = await this.queue.getJobCounts('waiting', 'prioritized', 'active', 'delayed');
    return {
      waiting: (counts.waiting ?? 0) + (counts.prioritized ?? 0),
      active: counts.active ?? 0,
      delayed: counts.delayed ?? 0,
      stalled: this.stalledSeen,
    };
  }

  /** The run that has waited longest for a worker, and since when; undefined when none waits. */
  async oldestWaiting(): Promise<{ runId: string; since: number } | undefined> {
    const [job] = await this.queue.getJobs(['waiting', 'prioritized'], 0, 0, true);
    return job ? { runId: job.data.runId, since: job.timestamp } : undefined;
  }

  /**
   * Resolves once no job waits or runs on this queue (any process's), or at once without a worker here or after
   * close(): a gateway has nothing of its own to wait for.
   */
  async idle(): Promise<void> {
    while (this.worker && !this.closed) {
      const { waiting, active, delayed } = await this.stats();
      // (stalled counts jobs handed back: they are waiting again, and counted there.)
      if (waiting + active + delayed === 0) return;
      await new Promise((resolve) => setTimeout(resolve, IDLE_POLL_MS));
    }
  }

  /** Stops taking jobs and waits for the ones running here; jobs still waiting stay in Redis for other workers. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.worker?.close();
    await this.queue.close();
    await Promise.all(this.connections.map((connection) => connection.quit().catch(() => undefined)));
  }

  private connect(): Redis {
    const connection = redisConnection(this.options.url);
    // Errors while Redis is away are reported by the queue and the worker; ioredis keeps reconnecting.
    connection.on('error', () => {});
    this.connections.push(connection);
    return connection;
  }
}
