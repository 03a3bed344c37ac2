// When a cron schedule fires, measured from any instant (node-cron only answers from the real "now").
import { parse } from 'node-cron';

const second = 1000;
const minute = 60 * second;
/** Enough steps to cross more than a year of a once-a-year schedule (about two steps per local hour). */
const maxSteps = 50_000;

/**
 * The slots of one schedule. `match` is node-cron's own matcher (a task's `match`), so a slot here is exactly a
 * slot node-cron fires; this class only walks time to find them, minute by minute, skipping whole local hours
 * that cannot match.
 */
export class PatrolCalendar {
  private readonly seconds: readonly number[];
  private readonly minutes: ReadonlySet<number>;
  private readonly sortedMinutes: readonly number[];

  constructor(
    expression: string,
    private readonly timezone: string,
    private readonly match: (date: Date) => boolean,
  ) {
    const fields = parse(expression);
    this.seconds = [...fields.second].sort((a, b) => a - b);
    this.sortedMinutes = [...fields.minute].sort((a, b) => a - b);
    this.minutes = new Set(this.sortedMinutes);
  }

  /** The first slot strictly after `afterMs`, or undefined if none comes within about a year. */
  next(afterMs: number): number | undefined {
    const from = Math.floor(afterMs / second) * second + second;
    let at = Math.floor(from / minute) * minute;
    for (let step = 0; step < maxSteps; step += 1) {
      if (this.minuteMatches(at)) {
        const hit = this.seconds.find((s) => at + s * second >= from);
        if (hit !== undefined) return at + hit * second;
        at += minute;
        continue;
      }
      const local = this.minuteOf(at);
      const later = this.minutes.has(local) ? undefined : this.sortedMinutes.find((m) => m > local);
      at += ((later ?? 60) - local) * minute;
    }
    return undefined;
  }

  /** The last slot at or before `atOrBeforeMs`, or undefined if none came within about a year. */
  previous(atOrBeforeMs: number): number | undefined {
    const until = Math.floor(atOrBeforeMs / second) * second;
    let at = Math.floor(until / minute) * minute;
    for (let step = 0; step < maxSteps; step += 1) {
      if (this.minuteMatches(at)) {
        const hit = this.seconds.findLast((s) => at + s * second <= until);
        if (hit !== undefined) return at + hit * second;
        at -= minute;
        continue;
      }
      const local = this.minuteOf(at);
      const earlier = this.minutes.has(local) ? undefined : this.sortedMinutes.findLast((m) => m < local);
      at -= (earlier === undefined ? local + 1 : local - earlier) * minute;
    }
    return undefined;
  }

  /** The gap from `slotMs` to the slot after it: the interval that slot stands for. */
  intervalAfter(slotMs: number): number | undefined {
    const next = this.next(slotMs);
    return next === undefined ? undefined : next - slotMs;
  }

  /** Whether some second of the minute starting at `at` is a slot; only the seconds field varies within it. */
  private minuteMatches(at: number): boolean {
    return this.match(new Date(at + (this.seconds[0] ?? 0) * second));
  }

  /** The minute of the hour in the schedule's time zone (not always the UTC one: some zones are :30 or :45 off). */
  private minuteOf(at: number): number {
    return Number(minuteFormat(this.timezone).format(new Date(at)));
  }
}

/**
 * One formatter per time zone, made when a calendar first walks time: the first one loads the time-zone data,
 * which a start that schedules patrols but fires none yet does not need.
 */
const minuteFormats = new Map<string, Intl.DateTimeFormat>();

function minuteFormat(timezone: string): Intl.DateTimeFormat {
  let format = minuteFormats.get(timezone);
  if (format === undefined) {
    format = new Intl.DateTimeFormat('en-US', { timeZone: timezone, minute: 'numeric' });
    minuteFormats.set(timezone, format);
  }
  return format;
}
