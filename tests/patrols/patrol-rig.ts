// Shared pieces for the patrol clock tests: a recording logger, a run that can be held open, and a scheduler maker.
import type { Clock } from '../../agent/clock.js';
import type { Logger } from '../../agent/logger.js';
import type { Timers } from '../../agent/timers.js';
import type { PatrolStore } from '../../scheduled/patrol-admission.js';
import { PatrolScheduler, type PatrolSlot, type PatrolTiming } from '../../scheduled/patrol-scheduler.js';

/** 2026-01-01 12:00:00 UTC, a slot of every schedule used here. */
export const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);
export const minute = 60_000;
export const everyFiveMinutes: PatrolTiming = { schedule: '*/5 * * * *', timezone: 'UTC' };

export interface LogEntry {
  level: 'debug' | 'info' | 'warn' | 'error';
  fields: Record<string, unknown>;
  message: string | undefined;
}

export function recordingLogger(entries: LogEntry[], bindings: Record<string, unknown> = {}): Logger {
  const at =
    (level: LogEntry['level']) =>
    (fields: object, message?: string): void =>
      void entries.push({ level, fields: { ...bindings, ...fields }, message });
  return {
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    child: (more) => recordingLogger(entries, { ...bindings, ...more }),
  };
}

/** A promise the test settles by hand. */
export function gate(): { promise: Promise<void>; open: () => void } {
  let open = () => {};
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

export interface RunRecord {
  owner: string;
  name: string;
  slot: PatrolSlot;
}

export interface SchedulerRig {
  store: PatrolStore;
  owner: string;
  clock: Clock;
  runs: RunRecord[];
  logs?: LogEntry[];
  patrols?: Record<string, PatrolTiming>;
  /** Each run waits for this before it ends. */
  holdRuns?: Promise<void>;
  isPaused?: (name: string) => boolean | Promise<boolean>;
  fail?: boolean;
  timers?: Timers;
}

export function newScheduler(rig: SchedulerRig): PatrolScheduler {
  return new PatrolScheduler({
    patrols: rig.patrols ?? { disk: everyFiveMinutes },
    store: rig.store,
    owner: rig.owner,
    clock: rig.clock,
    logger: recordingLogger(rig.logs ?? []),
    isPaused: rig.isPaused,
    timers: rig.timers,
    run: async (name, slot) => {
      rig.runs.push({ owner: rig.owner, name, slot });
      await rig.holdRuns;
      if (rig.fail) throw new Error('the checks blew up');
    },
  });
}

export const scheduled = (at: number): PatrolSlot => ({ at, late: false, manual: false });

export { ManualTimers } from '../manual-timers.js';

/** Lets pending promise callbacks and Store round trips finish. */
export const settle = () => new Promise((resolve) => setImmediate(resolve));
