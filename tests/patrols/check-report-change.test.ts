// What a check posts: its state compared with what the channel shows, with holds (snooze, quiet hours) and reminders.
import { describe, expect, it } from 'vitest';
import { type ReportContext, reportChange } from '../../scheduled/check-report-change.js';
import type { ActiveStatus, CheckState, CheckStatus, ShownLevel } from '../../scheduled/check-state.js';

const NOW = 100_000;
const HOUR = 3_600_000;
const firing = (severity: 'warn' | 'critical'): ActiveStatus => ({
  status: 'firing',
  severity,
  since: 50_000,
  previous: { word: 'pending', since: 40_000 },
});
const erroring: ActiveStatus = { status: 'error', since: 50_000, previous: { word: 'ok', since: 10_000 } };
const ok: CheckStatus = { status: 'ok', since: 90_000 };
const pending: CheckStatus = { status: 'pending', since: 90_000, failures: 1, okSince: 10_000 };
const resolving: CheckStatus = { status: 'resolving', since: 90_000, passes: 1, was: firing('critical') };

function state(machine: CheckStatus, extra: Partial<CheckState> = {}): CheckState {
  return { version: 1, machine, detail: 'HTTP 503 (expected 200)', recentChanges: [], ...extra };
}
const shows = (level: ShownLevel, postedAt = 60_000): Partial<CheckState> => ({
  reported: { reportId: 'r1', level, since: 50_000, postedAt },
});
const context = (extra: Partial<ReportContext> = {}): ReportContext => ({
  hold: { kind: 'none' },
  acked: false,
  newReportId: 'r2',
  ...extra,
});

describe('reportChange: what is shown against what the state calls for', () => {
  it.each([
    ['nothing shown, ok', state(ok)],
    ['nothing shown, pending', state(pending)],
    ['nothing shown, resolving (passing now)', state(resolving)],
    ['critical shown, still critical', state(firing('critical'), shows('critical'))],
    ['critical shown, resolving', state(resolving, shows('critical'))],
    ['warn shown, resolving from critical', state(resolving, shows('warn'))],
    [
      'flapping shown, still flapping',
      state(firing('critical'), { ...shows('flapping'), flappingSince: 70_000 }),
    ],
  ])('%s: posts nothing', (_name, before) => {
    expect(reportChange(before, context(), NOW)).toEqual({ state: before });
  });

  it.each([
    [
      'nothing shown, firing: a new report line',
      state(firing('critical')),
      {
        kind: 'firing',
        line: { change: 'firing', severity: 'critical', previous: 'pending', since: 40_000 },
      },
      { reportId: 'r2', level: 'critical', since: 50_000, postedAt: NOW },
    ],
    [
      'nothing shown, error: a new report line without severity',
      state(erroring),
      { kind: 'error', line: { change: 'error', previous: 'ok', since: 10_000 } },
      { reportId: 'r2', level: 'error', since: 50_000, postedAt: NOW },
    ],
    [
      'nothing shown, flapping: a new report line',
      state(firing('warn'), { flappingSince: 70_000 }),
      { kind: 'flapping', line: { change: 'flapping', previous: 'warn', since: 50_000 } },
      { reportId: 'r2', level: 'flapping', since: 70_000, postedAt: NOW },
    ],
    [
      'critical shown, ok: resolved in the thread',
      state(ok, shows('critical')),
      { kind: 'resolved', reportId: 'r1', line: { change: 'resolved', previous: 'critical', since: 50_000 } },
      undefined,
    ],
    [
      'critical shown, pending again (cleared while held): resolved',
      state(pending, shows('critical')),
      { kind: 'resolved', reportId: 'r1', line: { change: 'resolved', previous: 'critical', since: 50_000 } },
      undefined,
    ],
    [
      'warn shown, critical: severity changed',
      state(firing('critical'), shows('warn')),
      {
        kind: 'severity_changed',
        reportId: 'r1',
        line: { change: 'severity_changed', severity: 'critical', previous: 'warn', since: 50_000 },
      },
      { reportId: 'r1', level: 'critical', since: 50_000, postedAt: NOW },
    ],
    [
      'critical shown, error: the check could not run any more',
      state(erroring, shows('critical')),
      { kind: 'error', reportId: 'r1', line: { change: 'error', previous: 'critical', since: 50_000 } },
      { reportId: 'r1', level: 'error', since: 50_000, postedAt: NOW },
    ],
    [
      'error shown, warn: runs again and fails',
      state(firing('warn'), shows('error')),
      {
        kind: 'severity_changed',
        reportId: 'r1',
        line: { change: 'severity_changed', severity: 'warn', previous: 'error', since: 50_000 },
      },
      { reportId: 'r1', level: 'warn', since: 50_000, postedAt: NOW },
    ],
    [
      'critical shown, flapping: flapping in the thread',
      state(ok, { ...shows('critical'), flappingSince: 70_000 }),
      { kind: 'flapping', reportId: 'r1', line: { change: 'flapping', previous: 'critical', since: 50_000 } },
      { reportId: 'r1', level: 'flapping', since: 70_000, postedAt: NOW },
    ],
    [
      'flapping shown, stable and critical: its state, once',
      state(firing('critical'), shows('flapping')),
      {
        kind: 'stable_again',
        reportId: 'r1',
        line: { change: 'firing', severity: 'critical', previous: 'flapping', since: 50_000 },
      },
      { reportId: 'r1', level: 'critical', since: 50_000, postedAt: NOW },
    ],
    [
      'flapping shown, stable while passing but not cleared: the level it is failing at',
      state(resolving, shows('flapping')),
      {
        kind: 'stable_again',
        reportId: 'r1',
        line: { change: 'firing', severity: 'critical', previous: 'flapping', since: 50_000 },
      },
      { reportId: 'r1', level: 'critical', since: 50_000, postedAt: NOW },
    ],
    [
      'flapping shown, stable and ok: resolved',
      state(ok, shows('flapping')),
      {
        kind: 'stable_again',
        reportId: 'r1',
        line: { change: 'resolved', previous: 'flapping', since: 50_000 },
      },
      undefined,
    ],
  ])('%s', (_name, before, change, reported) => {
    const result = reportChange(before, context(), NOW);
    expect(result.change).toEqual({
      ...change,
      line: { ...change.line, detail: 'HTTP 503 (expected 200)' },
    });
    expect(result.state.reported).toEqual(reported);
    expect(result.state.machine).toEqual(before.machine);
  });
});

describe('reportChange: holds', () => {
  it('a snoozed check posts nothing and is not recorded as shown', () => {
    const before = state(firing('critical'));
    expect(reportChange(before, context({ hold: { kind: 'snoozed' } }), NOW)).toEqual({ state: before });
    const resolved = state(ok, shows('critical'));
    expect(reportChange(resolved, context({ hold: { kind: 'snoozed' } }), NOW)).toEqual({ state: resolved });
  });

  const quiet = (minSeverity: 'warn' | 'critical') => context({ hold: { kind: 'quiet', minSeverity } });
  it.each([
    ['a new warn, min critical: held', state(firing('warn')), 'critical', true],
    ['a new critical, min critical: posted', state(firing('critical')), 'critical', false],
    ['a new error, min critical: held', state(erroring), 'critical', true],
    ['a new error, min warn: posted', state(erroring), 'warn', false],
    ['a resolve of a critical, min critical: posted', state(ok, shows('critical')), 'critical', false],
    ['a resolve of a warn, min critical: held', state(ok, shows('warn')), 'critical', true],
    ['warn to critical, min critical: posted', state(firing('critical'), shows('warn')), 'critical', false],
    ['critical to warn, min critical: posted', state(firing('warn'), shows('critical')), 'critical', false],
    [
      'a critical check starting to flap, min critical: posted',
      state(firing('critical'), { flappingSince: 1 }),
      'critical',
      false,
    ],
    [
      'a warn check starting to flap, min critical: held',
      state(firing('warn'), { flappingSince: 1 }),
      'critical',
      true,
    ],
  ] as const)('during quiet hours, %s', (_name, before, minSeverity, heldBack) => {
    const result = reportChange(before, quiet(minSeverity), NOW);
    expect(result.change === undefined).toBe(heldBack);
  });
});

describe('reportChange: reminders', () => {
  const still = (postedAt: number, extra: Partial<CheckState> = {}) =>
    state(firing('critical'), { ...shows('critical', postedAt), ...extra });

  it('reminds once remind_every has passed since the last post, and counts from the reminder', () => {
    const result = reportChange(still(NOW - HOUR), context({ remindEvery: HOUR }), NOW);
    expect(result.change).toEqual({
      kind: 'reminder',
      reportId: 'r1',
      line: {
        change: 'reminder',
        severity: 'critical',
        detail: 'HTTP 503 (expected 200)',
        previous: 'critical',
        since: 50_000,
      },
    });
    expect(result.state.reported?.postedAt).toBe(NOW);
  });

  it.each([
    ['before remind_every has passed', still(NOW - HOUR + 1), context({ remindEvery: HOUR })],
    ['without remind_every', still(0), context()],
    ['after an ack', still(0), context({ remindEvery: HOUR, acked: true })],
    [
      'while it passes again (resolving)',
      state(resolving, shows('critical', 0)),
      context({ remindEvery: HOUR }),
    ],
    [
      'while it flaps',
      state(ok, { ...shows('flapping', 0), flappingSince: 1 }),
      context({ remindEvery: HOUR }),
    ],
    [
      'for a warn during quiet hours',
      state(firing('warn'), shows('warn', 0)),
      context({ remindEvery: HOUR, hold: { kind: 'quiet', minSeverity: 'critical' } }),
    ],
  ])('no reminder %s', (_name, before, ctx) => {
    expect(reportChange(before, ctx, NOW)).toEqual({ state: before });
  });
});
