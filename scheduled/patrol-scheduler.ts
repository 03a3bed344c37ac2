// The patrol clock: node-cron fires each patrol, the Store elects one replica per slot, and downtime gets one late run.
import { type Logger as CronLogger, createTask, type ScheduledTask } from 'node-cron';
import type { Clock } from '../agent/clock.js';
import { errorMessage } from '../agent/errors.js';
import type { Logger } from '../agent/logger.js';
import type { Store } from '../agent/store/store.js';
import { systemTimers, type Timers } from '../agent/timers.js';
import { PatrolCalendar } from './patrol-calendar.js';
import { patrolKeys } from './patrol-keys.js';
import { isReservation, type PatrolReservation, PatrolRuns, type RunningPatrol } from './patrol-runs.js';

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
  store: Pick<Store, 'claim' | 'get' | 'set'>;
  /** Unique per process: the holder of the slots this replica claims. */
  owner: string;
  clock: Clock;
  logger: Logger;
  /** Runs the patrol's checks; the clock never runs checks itself. */
  run: RunPatrol;
  /** A paused patrol skips its ticks (a manual run still goes). */
  isPaused?(name: string): boolean | Promise<boolean>;
  timers?: Timers;
  /** How long `stop()` waits for running runs. */
  stopTimeoutMs?: number;
}

/** What one tick did: ran, or why it did not. */
export type TickOutcome = 'ran' | 'overlap' | 'paused' | 'taken' | 'already-handled';

export type RunNowOutcome = { started: true; finished: Promise<void> } | { started: false; reason: string };

/**
 * A slot claim is held for twice the slot's interval, and at least a minute. It is never released: node-cron
 * forgives about a second of lateness, and a replica that wakes late (even by a whole interval) must find the slot
 * taken, not free again because the winner already finished.
 */
export const minimumSlotClaimMs = 60_000;
export function slotClaimMs(intervalMs: number): number {
  return Math.max(2 * intervalMs, minimumSlotClaimMs);
}
/** For a schedule with no next slot within a year, the claim covers two years of it. */
const yearMs = 366 * 86_400_000;

const defaultStopTimeoutMs = 30_000;

interface ScheduledPatrol {
  name: string;
  calendar: PatrolCalendar;
  task: ScheduledTask;
  /** The latest slot this process has claimed, so a slot is never run twice here (the same owner re-claims). */
  latestHere: number;
  /** Handed from node-cron's coordinator to its task function: the coordinator admits, the task runs. */
  admitted?: { slot: number; reservation: PatrolReservation };
}

type Admission = { reservation: PatrolReservation } | { skipped: Exclude<TickOutcome, 'ran'> };

const iso = (ms: number) => new Date(ms).toISOString();

export class PatrolScheduler {
  private readonly patrols = new Map<string, ScheduledPatrol>();
  private readonly runs = new PatrolRuns();
  private readonly logger: Logger;
  private state: 'new' | 'started' | 'stopped' = 'new';

  constructor(private readonly options: PatrolSchedulerOptions) {
    this.logger = options.logger.child({ component: 'patrol-scheduler' });
    for (const [name, timing] of Object.entries(options.patrols))
      this.patrols.set(name, this.schedule(name, timing));
  }

  /** Starts every patrol's clock, then runs at most one late catch-up per patrol that missed slots while down. */
  async start(): Promise<void> {
    if (this.state !== 'new') return;
    this.state = 'started';
    for (const patrol of this.patrols.values()) patrol.task.start();
    await Promise.all([...this.patrols.values()].map((patrol) => this.catchUp(patrol)));
  }

  /** Stops the clocks and waits (bounded) for the runs going on here. */
  async stop(): Promise<void> {
    this.state = 'stopped';
    for (const patrol of this.patrols.values()) await patrol.task.destroy();
    const timers = this.options.timers ?? systemTimers;
    let timer: unknown;
    const timedOut = new Promise<boolean>((resolve) => {
      timer = timers.setTimeout(() => resolve(true), this.options.stopTimeoutMs ?? defaultStopTimeoutMs);
    });
    const late = await Promise.race([this.runs.settled().then(() => false), timedOut]);
    timers.clearTimeout(timer);
    if (late) this.logger.warn({ patrols: this.runs.names() }, 'stopped while patrol runs were still going');
  }

  /** The next scheduled run of a patrol, for report footers; undefined for an unknown patrol. */
  nextRunAt(name: string): number | undefined {
    return this.patrols.get(name)?.calendar.next(this.options.clock.now());
  }

  /** Runs a patrol now, outside the schedule and whether paused or not; refused while a run of it is going. */
  runNow(name: string): RunNowOutcome {
    const patrol = this.patrols.get(name);
    if (!patrol) return { started: false, reason: `there is no patrol named "${name}"` };
    const now = this.options.clock.now();
    const at = Math.floor(now / 1000) * 1000;
    const reserved = this.runs.reserve(name, { at, manual: true, startedAt: now });
    if (!isReservation(reserved)) {
      const reason = `patrol ${name} is already running (${describeRun(reserved)}); it was not started again`;
      this.logger.info({ patrol: name }, reason);
      return { started: false, reason };
    }
    return { started: true, finished: this.execute(name, { at, late: false, manual: true }, reserved) };
  }

  /**
   * One tick of a patrol for the slot `slotMs`, as node-cron makes it: skipped while a run of the patrol is going
   * here or when paused, otherwise claimed in the Store so one replica runs it. Resolves when the run has ended.
   */
  async tick(name: string, slotMs: number): Promise<TickOutcome> {
    const patrol = this.patrols.get(name);
    if (!patrol) throw new Error(`no patrol named "${name}" on this scheduler`);
    const admission = await this.admit(patrol, slotMs);
    if ('skipped' in admission) return admission.skipped;
    await this.execute(name, { at: slotMs, late: false, manual: false }, admission.reservation);
    return 'ran';
  }

  private schedule(name: string, timing: PatrolTiming): ScheduledPatrol {
    const keyPrefix = `patrol:${name}:`;
    const task = createTask(timing.schedule, () => this.runAdmitted(patrol), {
      name: `patrol:${name}`,
      timezone: timing.timezone,
      noOverlap: true,
      distributed: true,
      // node-cron's key is `patrol:<name>:<ISO slot>`; the claim itself uses the slot in ms (patrolKeys.slot).
      runCoordinator: {
        shouldRun: async (key) => {
          const slot = Math.round(Date.parse(key.slice(keyPrefix.length)) / 1000) * 1000;
          const admission = await this.admit(patrol, slot);
          if ('skipped' in admission) return false;
          patrol.admitted = { slot, reservation: admission.reservation };
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
      latestHere: Number.NEGATIVE_INFINITY,
    };
    task.on('execution:overlap', (context) => {
      this.warnOverlap(name, context.date.getTime(), this.runs.get(name));
    });
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
    await this.execute(patrol.name, { at: admitted.slot, late: false, manual: false }, admitted.reservation);
  }

  /** Decides whether this replica runs the slot; when it does, the patrol is reserved here and the slot claimed. */
  private async admit(patrol: ScheduledPatrol, slot: number): Promise<Admission> {
    const { name } = patrol;
    if (slot <= patrol.latestHere) return { skipped: 'already-handled' };
    const reserved = this.runs.reserve(name, {
      at: slot,
      manual: false,
      startedAt: this.options.clock.now(),
    });
    if (!isReservation(reserved)) {
      this.warnOverlap(name, slot, reserved);
      return { skipped: 'overlap' };
    }
    try {
      if (await this.options.isPaused?.(name)) {
        this.logger.info({ patrol: name, slot: iso(slot) }, 'patrol is paused; tick skipped');
        reserved.finish();
        return { skipped: 'paused' };
      }
      const interval = patrol.calendar.intervalAfter(slot) ?? yearMs;
      const claimed = await this.options.store.claim(
        patrolKeys.slot(name, slot),
        this.options.owner,
        slotClaimMs(interval),
      );
      if (!claimed) {
        this.logger.debug({ patrol: name, slot: iso(slot) }, 'patrol slot taken by another replica');
        reserved.finish();
        return { skipped: 'taken' };
      }
    } catch (error) {
      reserved.finish();
      throw error;
    }
    patrol.latestHere = slot;
    await this.recordLastSlot(name, slot);
    return { reservation: reserved };
  }

  /** Remembers the latest claimed slot for the catch-up after downtime; never moves it back. */
  private async recordLastSlot(name: string, slot: number): Promise<void> {
    try {
      const last = await this.options.store.get<number>(patrolKeys.lastSlot(name));
      if (last === undefined || last < slot) await this.options.store.set(patrolKeys.lastSlot(name), slot);
    } catch (error) {
      // The slot is claimed already, so it runs; at worst a restart makes one extra catch-up.
      this.logger.warn(
        { patrol: name, slot: iso(slot), error: errorMessage(error) },
        'could not record the last slot',
      );
    }
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
      const admission = await this.admit(patrol, previous);
      if ('skipped' in admission) return;
      this.logger.info(
        { patrol: name, slot: iso(previous), lastRun: iso(last) },
        'patrol missed slots; one late run',
      );
      void this.execute(name, { at: previous, late: true, manual: false }, admission.reservation);
    } catch (error) {
      this.logger.error({ patrol: name, error: errorMessage(error) }, 'patrol catch-up check failed');
    }
  }

  private async execute(name: string, slot: PatrolSlot, reservation: PatrolReservation): Promise<void> {
    try {
      await this.options.run(name, slot);
    } catch (error) {
      this.logger.error(
        { patrol: name, slot: iso(slot.at), error: errorMessage(error) },
        'patrol run failed',
      );
    } finally {
      reservation.finish();
    }
  }

  private warnOverlap(name: string, slot: number, running: RunningPatrol | undefined): void {
    this.logger.warn(
      { patrol: name, slot: iso(slot), running: running ? describeRun(running) : 'a scheduled run' },
      'patrol tick skipped: the previous run is still going',
    );
  }
}

function describeRun(run: RunningPatrol): string {
  const what = run.manual ? 'a manual run' : `the ${iso(run.at)} slot`;
  return `${what}, started ${iso(run.startedAt)}`;
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
