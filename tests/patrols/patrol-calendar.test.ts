// The calendar finds the same slots node-cron fires, from any instant, in any time zone, forwards and backwards.
import { createTask } from 'node-cron';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { PatrolCalendar } from '../../scheduled/patrol-calendar.js';
import { minute, T0 } from './patrol-rig.js';

const tasks: { destroy(): void | Promise<void> }[] = [];
function calendar(expression: string, timezone = 'UTC'): PatrolCalendar {
  const task = createTask(expression, () => {}, { timezone });
  tasks.push(task);
  return new PatrolCalendar(expression, timezone, (date) => task.match(date));
}

afterEach(async () => {
  vi.useRealTimers();
  for (const task of tasks.splice(0)) await task.destroy();
});

describe('PatrolCalendar', () => {
  it('finds the next slot strictly after an instant and the previous one at or before it', () => {
    const fiveMinutes = calendar('*/5 * * * *');
    expect(fiveMinutes.next(T0)).toBe(T0 + 5 * minute);
    expect(fiveMinutes.next(T0 - 1)).toBe(T0);
    expect(fiveMinutes.previous(T0)).toBe(T0);
    expect(fiveMinutes.previous(T0 + 999)).toBe(T0);
    expect(fiveMinutes.previous(T0 - 1)).toBe(T0 - 5 * minute);
    expect(fiveMinutes.intervalAfter(T0)).toBe(5 * minute);
  });

  it('honours a leading seconds field', () => {
    const twentySeconds = calendar('*/20 * * * * *');
    expect(twentySeconds.next(T0 + 1)).toBe(T0 + 20_000);
    expect(twentySeconds.previous(T0 + 59_500)).toBe(T0 + 40_000);
    expect(twentySeconds.intervalAfter(T0)).toBe(20_000);
  });

  it('reads the schedule in its time zone, including zones off by half an hour', () => {
    // 2026-01-01 is a Thursday; 09:00 in Berlin is 08:00 UTC in winter; 09:30 in Kolkata is 04:00 UTC.
    expect(calendar('0 9 * * *', 'Europe/Berlin').next(T0)).toBe(Date.UTC(2026, 0, 2, 8, 0));
    const mondays = calendar('30 9 * * 1', 'Asia/Kolkata');
    expect(mondays.next(T0)).toBe(Date.UTC(2026, 0, 5, 4, 0));
    expect(mondays.previous(T0)).toBe(Date.UTC(2025, 11, 29, 4, 0));
    expect(mondays.intervalAfter(Date.UTC(2026, 0, 5, 4, 0))).toBe(7 * 24 * 60 * minute);
  });

  it.each([
    ['*/5 * * * *', 'UTC'],
    ['0 9 * * 1-5', 'Europe/Berlin'],
    ['15 */2 * * *', 'Asia/Kolkata'],
    ['*/20 * * * * *', 'UTC'],
    ['0 0 1 * *', 'UTC'],
    ['0 30 2 * * *', 'America/New_York'],
  ])('agrees with node-cron on the next runs of %s in %s, across a DST change', (expression, timezone) => {
    const start = Date.UTC(2026, 2, 7, 22, 13, 7); // the night before the US spring-forward
    vi.useFakeTimers({ now: start, toFake: ['Date'] });
    const task = createTask(expression, () => {}, { timezone });
    tasks.push(task);
    const cal = new PatrolCalendar(expression, timezone, (date) => task.match(date));
    const expected = task.getNextRuns(4).map((date) => date.getTime());
    const ours: number[] = [];
    let from = start;
    for (let i = 0; i < 4; i += 1) {
      from = cal.next(from)!;
      ours.push(from);
    }
    expect(ours).toEqual(expected);
    // And walking back from the last lands on each earlier one.
    expect(cal.previous(expected[3]! - 1)).toBe(expected[2]);
  });
});
