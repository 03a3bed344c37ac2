// The patrol clock: node-cron fires each patrol, the Store elects one replica per slot, and downtime gets one late run.
import { type Logger as CronLogger, createTask, type ScheduledTask } from 'node-cron';
import type { Clock } from '../agent/clock.js';
import { errorMessage } from '../agent/errors.js';
import type { Logger } from '../agent/logger.js';
import { systemTimers, type Timers } from '../agent/timers.js';
import { PatrolAdmission, type PatrolStore, type RunHold, type SkipReason } from './patrol-admission.js';
import { PatrolCalendar } from './patrol-calendar.js';
import { patrolKeys } from './patrol-keys.js';

/** Which run this is: `at` is the scheduled instant (or the request time of a manual run), in epoch ms. */
export interface PatrolSlot {
  at: number;
  /** A catch-up for a slot missed while no replica was up. */
  late: boolean;
  /** Asked for by a person ("Run again", `patrol run`), outside the schedule. */
  manual: boolean;
}

export type RunPatrol = (name: string, slot: PatrolSlot) => Promise<void>;

/** The part of a patrol's settings the clock needs. */
export interface PatrolTiming {
  schedule: string;
  timezone: string;
}

export interface PatrolSchedulerOptions {
  patrols: Readonly<Record<string, PatrolTiming>>;
  store: PatrolStore;
  /** Unique per process: the holder of the slots and leases this replica takes. */
  owner: string;
  clock: Clock;
  logger: Logger;
  /** Runs the patrol's checks; the clock never runs checks itself. */
  run: RunPatrol;
  /** A paused patrol skips its ticks and its catch-up (a manual run still goes). */
  isPaused?(name: string): boolean | Promise<boolean>;
  timers?: Timers;
  /** How long `stop()` waits for running runs; 30 s by default. */
  stopTimeoutMs?: number;
}

/** What one tick did: ran, or why it did not. */
export type TickOutcome = 'ran' | SkipReason;

export type RunNowOutcome = { started: true; finished: Promise<void> } | { started: false; reason: string };

const defaultStopTimeoutMs = 30_000;

interface ScheduledPatrol {
  name: string;
  calendar: PatrolCalendar;
  task: ScheduledTask;
  /** Handed from node-cron's coordinator to its task function: the coordinator admits, the task runs. */
  admitted?: { slot: number; hold: RunHold };
}

const iso = (ms: number) => new Date(ms).toISOString();

export class PatrolScheduler {
  private readonly patrols = new Map<string, ScheduledPatrol>();
  private readonly admission: PatrolAdmission;
  private readonly logger: Logger;
  private readonly timers: Timers;
  private started = false;

  constructor(private readonly options: PatrolSchedulerOptions) {
    this.logger = options.logger.child({ component: 'patrol-scheduler' });
    this.timers = options.timers ?? systemTimers;
    this.admission = new PatrolAdmission({ ...options, logger: this.logger, timers: this.timers });
    for (const [name, timing] of Object.entries(options.patrols))
      this.patrols.set(name, this.schedule(name, timing));
  }

  /** Starts every patrol's clock, then runs at most one late catch-up per patrol that missed slots while down. */
  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    for (const patrol of this.patrols.values()) patrol.task.start();
    await Promise.all([...this.patrols.values()].map((patrol) => this.catchUp(patrol)));
  }

  /** Stops the clocks for good and waits, at most `stopTimeoutMs`, for the runs going on here. */
  async stop(): Promise<void> {
    for (const patrol of this.patrols.values()) await patrol.task.destroy();
    let timer: unknown;
    const timedOut = new Promise<boolean>((resolve) => {
      timer = this.timers.setTimeout(() => resolve(true), this.options.stopTimeoutMs ?? defaultStopTimeoutMs);
    });
    const late = await Promise.race([this.admission.settled().then(() => false), timedOut]);
    this.timers.clearTimeout(timer);
    if (late)
      this.logger.warn({ patrols: this.admission.running() }, 'stopped while patrol runs were still going');
  }

  /** The next scheduled run of a patrol, for report footers; undefined for an unknown patrol. */
  nextRunAt(name: string): number | undefined {
    return this.patrols.get(name)?.calendar.next(this.options.clock.now());
  }

  /**
   * Runs a patrol now, outside the schedule and whether paused or not, without taking a slot. Refused while a run
   * of it is going on any replica. Resolves once the run has started; `finished` resolves when it has ended.
   */
  async runNow(name: string): Promise<RunNowOutcome> {
    if (!this.patrols.has(name)) return { started: false, reason: `there is no patrol named "${name}"` };
    const at = Math.floor(this.options.clock.now() / 1000) * 1000;
    const admitted = await this.admission.admitManual(name, at);
    if ('refused' in admitted) {
      const reason = `patrol ${name} is already running (${admitted.refused}); it was not started again`;
      this.logger.info({ patrol: name }, reason);
      return { started: false, reason };
    }
    return { started: true, finished: this.execute(name, { at, late: false, manual: true }, admitted) };
  }

  /**
   * One tick of a patrol for the slot `slotMs`: the path node-cron's coordinator and task function take, callable
   * directly (tests, tools). Resolves when the run, if any, has ended.
   */
  async tick(name: string, slotMs: number): Promise<TickOutcome> {
    const patrol = this.patrols.get(name);
    if (!patrol) throw new Error(`no patrol named "${name}" on this scheduler`);
    const admitted = await this.admission.admitSlot(name, patrol.calendar, slotMs);
    if (typeof admitted === 'string') return admitted;
    await this.execute(name, { at: slotMs, late: false, manual: false }, admitted);
    return 'ran';
  }

  private schedule(name: string, timing: PatrolTiming): ScheduledPatrol {
    const keyPrefix = `patrol:${name}:`;
    const task = createTask(timing.schedule, () => this.runAdmitted(patrol), {
      name: `patrol:${name}`,
      timezone: timing.timezone,
      noOverlap: true,
      distributed: true,
      // node-cron's key is `patrol:<name>:<ISO slot>`; the claim itself is patrolKeys.slot, with the slot in ms.
      runCoordinator: {
        shouldRun: async (key) => {
          const slot = Math.round(Date.parse(key.slice(keyPrefix.length)) / 1000) * 1000;
          const admitted = await this.admission.admitSlot(name, patrol.calendar, slot);
          if (typeof admitted === 'string') return false;
          patrol.admitted = { slot, hold: admitted };
          return true;
        },
        // No onComplete: the slot claim is never released early.
      },
      logger: cronLogger(this.logger.child({ patrol: name })),
      unref: true,
    });
    const patrol: ScheduledPatrol = {
      name,
      calendar: new PatrolCalendar(timing.schedule, timing.timezone, (date) => task.match(date)),
      task,
    };
    task.on('execution:overlap', (context) => this.admission.overlapSeenByCron(name, context.date.getTime()));
    task.on('execution:missed', (context) => {
      this.logger.warn(
        { patrol: name, slot: iso(context.date.getTime()) },
        'patrol tick missed; not replayed',
      );
    });
    return patrol;
  }

  /** node-cron's task function: runs the slot its coordinator has just admitted. */
  private async runAdmitted(patrol: ScheduledPatrol): Promise<void> {
    const admitted = patrol.admitted;
    patrol.admitted = undefined;
    if (!admitted) {
      this.logger.error({ patrol: patrol.name }, 'node-cron ran a patrol tick its coordinator did not admit');
      return;
    }
    await this.execute(patrol.name, { at: admitted.slot, late: false, manual: false }, admitted.hold);
  }

  /** After downtime: one late run of the latest missed slot, claimed like any slot so one replica runs it. */
  private async catchUp(patrol: ScheduledPatrol): Promise<void> {
    const { name } = patrol;
    try {
      const last = await this.options.store.get<number>(patrolKeys.lastSlot(name));
      const previous = patrol.calendar.previous(this.options.clock.now());
      if (previous === undefined) return;
      if (last === undefined) {
        // A fresh install runs nothing now, but from here on a restart can tell what it missed.
        await this.options.store.set(patrolKeys.lastSlot(name), previous);
        return;
      }
      if (previous <= last) return;
      const admitted = await this.admission.admitSlot(name, patrol.calendar, previous);
      if (typeof admitted === 'string') return;
      this.logger.info(
        { patrol: name, slot: iso(previous), lastSlot: iso(last) },
        'patrol missed slots; one late run',
      );
      void this.execute(name, { at: previous, late: true, manual: false }, admitted);
    } catch (error) {
      this.logger.error({ patrol: name, error: errorMessage(error) }, 'patrol catch-up check failed');
    }
  }

  private async execute(name: string, slot: PatrolSlot, hold: RunHold): Promise<void> {
    try {
      await this.options.run(name, slot);
    } catch (error) {
      this.logger.error(
        { patrol: name, slot: iso(slot.at), error: errorMessage(error) },
        'patrol run failed',
      );
    } finally {
      await hold.end();
    }
  }
}

/** node-cron's own messages; its overlap and missed warnings are repeated by our listeners with patrol and slot. */
function cronLogger(logger: Logger): CronLogger {
  const text = (message: string | Error) => (typeof message === 'string' ? message : errorMessage(message));
  return {
    info: (message) => logger.debug({ source: 'node-cron' }, message),
    warn: (message) => logger.debug({ source: 'node-cron' }, message),
    error: (message, error) =>
      logger.error({ source: 'node-cron', error: error ? errorMessage(error) : undefined }, text(message)),
    debug: (message) => logger.debug({ source: 'node-cron' }, text(message)),
  };
}
