// Quiet hours by the wall clock of their time zone: whether now is inside them, and when they end.
//
// Wall time comes from Intl.DateTimeFormat with the zone, so midnight and daylight-saving changes need no date
// library. `from` equal to `to` means no quiet hours. Quiet hours that end inside a skipped hour (spring
// forward) end when the clock jumps past their end; in a repeated hour (fall back) the wall clock says the
// same times twice, so quiet hours ending at 02:30 end at the first 02:30 and hold again at the second.
import type { QuietHours } from './patrol-settings.js';

const MINUTE = 60_000;
const DAY_MINUTES = 24 * 60;

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let format = formatters.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    });
    formatters.set(timeZone, format);
  }
  return format;
}

/** Minutes since local midnight at `instant` in `timeZone`. */
function wallMinutes(instant: number, timeZone: string): number {
  const parts = formatter(timeZone).formatToParts(instant);
  const part = (type: 'hour' | 'minute') => Number(parts.find((p) => p.type === type)?.value);
  return part('hour') * 60 + part('minute');
}

function clockMinutes(time: string): number {
  const [hours, minutes] = time.split(':').map(Number);
  return (hours ?? 0) * 60 + (minutes ?? 0);
}

function inside(minutes: number, from: number, to: number): boolean {
  if (from === to) return false;
  return from < to ? minutes >= from && minutes < to : minutes >= from || minutes < to;
}

export function inQuietHours(quiet: QuietHours, now: number): boolean {
  return inside(wallMinutes(now, quiet.timezone), clockMinutes(quiet.from), clockMinutes(quiet.to));
}

/**
 * Whether the wall clock reaches `target` (minutes after midnight) at the minute starting at `instant`: it
 * shows `target` now, or it jumped forward over it since the minute before. A jump back never reaches.
 */
function reaches(instant: number, target: number, timeZone: string): boolean {
  const before = wallMinutes(instant - MINUTE, timeZone);
  const jump = (wallMinutes(instant, timeZone) - before + DAY_MINUTES) % DAY_MINUTES;
  if (jump === 0 || jump > DAY_MINUTES / 2) return false;
  const ahead = (target - before + DAY_MINUTES) % DAY_MINUTES;
  return ahead >= 1 && ahead <= jump;
}

/** The first instant after `after` at which the wall clock in `timeZone` reaches `target`. */
function nextWallTime(after: number, target: number, timeZone: string): number {
  const minuteStart = Math.floor(after / MINUTE) * MINUTE;
  const ahead = (target - wallMinutes(minuteStart, timeZone) + DAY_MINUTES) % DAY_MINUTES || DAY_MINUTES;
  const guess = minuteStart + ahead * MINUTE;
  // Off by the day's change of UTC offset, if any; the common ones are 30 and 60 minutes.
  const candidates = [
    guess - 60 * MINUTE,
    guess - 30 * MINUTE,
    guess,
    guess + 30 * MINUTE,
    guess + 60 * MINUTE,
  ];
  const found = candidates.find((instant) => instant > after && reaches(instant, target, timeZone));
  if (found !== undefined) return found;
  for (let instant = minuteStart + MINUTE; instant <= after + 2 * 86_400_000; instant += MINUTE)
    if (reaches(instant, target, timeZone)) return instant;
  throw new Error(`the wall clock in ${timeZone} never reaches minute ${target} of the day`);
}

/** When the quiet hours in progress end; outside quiet hours, when the next ones end. `now` when there are none. */
export function quietHoursEnd(quiet: QuietHours, now: number): number {
  const from = clockMinutes(quiet.from);
  const to = clockMinutes(quiet.to);
  if (from === to) return now;
  const start = inQuietHours(quiet, now) ? now : nextWallTime(now, from, quiet.timezone);
  return nextWallTime(start, to, quiet.timezone);
}
