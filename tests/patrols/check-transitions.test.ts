// The check state machine, walked exhaustively: every status × every outcome kind, counters below and at threshold.
import { describe, expect, it } from 'vitest';
import type { CheckOutcome } from '../../scheduled/check-outcome.js';
import type { CheckStatus } from '../../scheduled/check-state.js';
import { advanceCheck, type CheckMovement, nextStatus } from '../../scheduled/check-transitions.js';

const NOW = 9_000;
const pass: CheckOutcome = { kind: 'pass', detail: 'HTTP 200' };
const warn: CheckOutcome = { kind: 'fail', severity: 'warn', detail: 'slow' };
const critical: CheckOutcome = { kind: 'fail', severity: 'critical', detail: 'HTTP 503' };
const error: CheckOutcome = { kind: 'error', detail: 'timed out after 10s' };

const ok: CheckStatus = { status: 'ok', since: 1_000 };
const pending: CheckStatus = { status: 'pending', since: 2_000, failures: 1, okSince: 1_000 };
const firingCritical: CheckStatus = {
  status: 'firing',
  severity: 'critical',
  since: 3_000,
  previous: { word: 'pending', since: 2_000 },
};
const firingWarn: CheckStatus = { ...firingCritical, severity: 'warn' };
const erroring: CheckStatus = { status: 'error', since: 3_000, previous: { word: 'ok', since: 1_000 } };
const resolvingCritical: CheckStatus = { status: 'resolving', since: 4_000, passes: 1, was: firingCritical };
const resolvingError: CheckStatus = { status: 'resolving', since: 4_000, passes: 1, was: erroring };

const fresh = { word: 'unknown', since: NOW };
type Row = [
  string,
  CheckStatus | undefined,
  CheckOutcome,
  { raiseAfter: number; clearAfter: number },
  CheckStatus,
  CheckMovement,
];
const t = (raiseAfter: number, clearAfter: number) => ({ raiseAfter, clearAfter });

const table: Row[] = [
  ['no state, pass', undefined, pass, t(1, 1), { status: 'ok', since: NOW }, 'none'],
  [
    'no state, fail, raise_after 1',
    undefined,
    critical,
    t(1, 1),
    { status: 'firing', severity: 'critical', since: NOW, previous: fresh },
    'raised',
  ],
  [
    'no state, fail, raise_after 2',
    undefined,
    warn,
    t(2, 1),
    { status: 'pending', since: NOW, failures: 1 },
    'none',
  ],
  [
    'no state, error, raise_after 1',
    undefined,
    error,
    t(1, 1),
    { status: 'error', since: NOW, previous: fresh },
    'raised',
  ],
  [
    'no state, error, raise_after 2',
    undefined,
    error,
    t(2, 1),
    { status: 'pending', since: NOW, failures: 1 },
    'none',
  ],

  ['ok, pass', ok, pass, t(1, 1), ok, 'none'],
  [
    'ok, warn, raise_after 1',
    ok,
    warn,
    t(1, 1),
    { status: 'firing', severity: 'warn', since: NOW, previous: { word: 'ok', since: 1_000 } },
    'raised',
  ],
  [
    'ok, critical, raise_after 2',
    ok,
    critical,
    t(2, 1),
    { status: 'pending', since: NOW, failures: 1, okSince: 1_000 },
    'none',
  ],
  [
    'ok, error, raise_after 1',
    ok,
    error,
    t(1, 1),
    { status: 'error', since: NOW, previous: { word: 'ok', since: 1_000 } },
    'raised',
  ],
  [
    'ok, error, raise_after 2',
    ok,
    error,
    t(2, 1),
    { status: 'pending', since: NOW, failures: 1, okSince: 1_000 },
    'none',
  ],

  ['pending, pass', pending, pass, t(2, 1), { status: 'ok', since: NOW }, 'none'],
  ['pending, critical below raise_after', pending, critical, t(3, 1), { ...pending, failures: 2 }, 'none'],
  [
    'pending, critical at raise_after',
    pending,
    critical,
    t(2, 1),
    { status: 'firing', severity: 'critical', since: NOW, previous: { word: 'pending', since: 2_000 } },
    'raised',
  ],
  [
    'pending, warn at raise_after',
    pending,
    warn,
    t(2, 1),
    { status: 'firing', severity: 'warn', since: NOW, previous: { word: 'pending', since: 2_000 } },
    'raised',
  ],
  ['pending, error below raise_after', pending, error, t(3, 1), { ...pending, failures: 2 }, 'none'],
  [
    'pending, error at raise_after',
    pending,
    error,
    t(2, 1),
    { status: 'error', since: NOW, previous: { word: 'pending', since: 2_000 } },
    'raised',
  ],

  [
    'firing critical, pass, clear_after 1',
    firingCritical,
    pass,
    t(1, 1),
    { status: 'ok', since: NOW },
    'cleared',
  ],
  [
    'firing critical, pass, clear_after 2',
    firingCritical,
    pass,
    t(1, 2),
    { status: 'resolving', since: NOW, passes: 1, was: firingCritical },
    'none',
  ],
  ['firing critical, critical', firingCritical, critical, t(1, 1), firingCritical, 'none'],
  [
    'firing critical, warn',
    firingCritical,
    warn,
    t(1, 1),
    { status: 'firing', severity: 'warn', since: NOW, previous: { word: 'critical', since: 3_000 } },
    'none',
  ],
  [
    'firing critical, error',
    firingCritical,
    error,
    t(1, 1),
    { status: 'error', since: NOW, previous: { word: 'critical', since: 3_000 } },
    'none',
  ],
  ['firing warn, warn', firingWarn, warn, t(1, 1), firingWarn, 'none'],
  [
    'firing warn, critical',
    firingWarn,
    critical,
    t(1, 1),
    { status: 'firing', severity: 'critical', since: NOW, previous: { word: 'warn', since: 3_000 } },
    'none',
  ],
  [
    'firing warn, pass, clear_after 2',
    firingWarn,
    pass,
    t(1, 2),
    { status: 'resolving', since: NOW, passes: 1, was: firingWarn },
    'none',
  ],

  ['error, pass, clear_after 1', erroring, pass, t(1, 1), { status: 'ok', since: NOW }, 'cleared'],
  [
    'error, pass, clear_after 2',
    erroring,
    pass,
    t(1, 2),
    { status: 'resolving', since: NOW, passes: 1, was: erroring },
    'none',
  ],
  ['error, error', erroring, error, t(1, 1), erroring, 'none'],
  [
    'error, critical',
    erroring,
    critical,
    t(1, 1),
    { status: 'firing', severity: 'critical', since: NOW, previous: { word: 'error', since: 3_000 } },
    'none',
  ],
  [
    'error, warn',
    erroring,
    warn,
    t(1, 1),
    { status: 'firing', severity: 'warn', since: NOW, previous: { word: 'error', since: 3_000 } },
    'none',
  ],

  [
    'resolving, pass below clear_after',
    resolvingCritical,
    pass,
    t(1, 3),
    { ...resolvingCritical, passes: 2 },
    'none',
  ],
  [
    'resolving, pass at clear_after',
    resolvingCritical,
    pass,
    t(1, 2),
    { status: 'ok', since: NOW },
    'cleared',
  ],
  ['resolving, the same failure again', resolvingCritical, critical, t(1, 2), firingCritical, 'none'],
  [
    'resolving, another severity',
    resolvingCritical,
    warn,
    t(1, 2),
    { status: 'firing', severity: 'warn', since: NOW, previous: { word: 'critical', since: 3_000 } },
    'none',
  ],
  [
    'resolving, error',
    resolvingCritical,
    error,
    t(1, 2),
    { status: 'error', since: NOW, previous: { word: 'critical', since: 3_000 } },
    'none',
  ],
  ['resolving from error, error again', resolvingError, error, t(1, 2), erroring, 'none'],
  [
    'resolving from error, critical',
    resolvingError,
    critical,
    t(1, 2),
    { status: 'firing', severity: 'critical', since: NOW, previous: { word: 'error', since: 3_000 } },
    'none',
  ],
  [
    'resolving from error, pass at clear_after',
    resolvingError,
    pass,
    t(1, 2),
    { status: 'ok', since: NOW },
    'cleared',
  ],
];

describe('nextStatus', () => {
  it.each(table)('%s', (_name, status, outcome, thresholds, expected, movement) => {
    expect(nextStatus(status, outcome, thresholds, NOW)).toEqual({ status: expected, movement });
  });

  it('the table covers every status × every outcome kind', () => {
    const covered = new Set(
      table.map(([, status, outcome]) => `${status?.status ?? 'none'}×${outcome.kind}`),
    );
    const statuses = ['none', 'ok', 'pending', 'firing', 'error', 'resolving'];
    const kinds = ['pass', 'fail', 'error'];
    const missing = statuses
      .flatMap((s) => kinds.map((k) => `${s}×${k}`))
      .filter((pair) => !covered.has(pair));
    expect(missing).toEqual([]);
  });
});

describe('flapping', () => {
  /** Runs a sequence of outcomes through advanceCheck and returns, per run, whether the check was flapping. */
  function flappingAfterEachRun(outcomes: CheckOutcome[], thresholds = t(1, 1)) {
    let state: ReturnType<typeof advanceCheck>['state'] | undefined;
    return outcomes.map((outcome, index) => {
      state = advanceCheck(state, outcome, thresholds, index * 60_000).state;
      return state.flappingSince !== undefined;
    });
  }

  it('starts at the fourth raise or clear within 10 runs', () => {
    expect(flappingAfterEachRun([critical, pass, critical, pass])).toEqual([false, false, false, true]);
  });

  it('does not count pending: with raise_after 2 alternating results never raise, so never flap', () => {
    const alternating = Array.from({ length: 12 }, (_, index) => (index % 2 ? pass : critical));
    expect(flappingAfterEachRun(alternating, t(2, 1)).some(Boolean)).toBe(false);
  });

  it('does not count severity changes', () => {
    expect(flappingAfterEachRun([critical, warn, critical, warn, critical, warn]).some(Boolean)).toBe(false);
  });

  it('three changes in 10 runs are not flapping, and changes older than 10 runs are forgotten', () => {
    const spread = [critical, critical, critical, pass, pass, pass, pass, pass, pass, pass, critical, pass];
    // changes at runs 1, 4, 11, 12: runs 1 and 4 have left the window by run 12 (runs 3..12)
    expect(flappingAfterEachRun(spread).some(Boolean)).toBe(false);
  });

  it('is stable again after 10 runs in a row without a change, and not one run earlier', () => {
    const flaps = [critical, pass, critical, pass];
    const calm = Array.from({ length: 10 }, () => pass);
    const flags = flappingAfterEachRun([...flaps, ...calm]);
    expect(flags.slice(3, 13).every(Boolean)).toBe(true);
    expect(flags[13]).toBe(false);
  });

  it('keeps the detail of the latest run and the report it was given', () => {
    const reported = { reportId: 'r1', level: 'critical' as const, since: 1, postedAt: 1 };
    const first = advanceCheck(undefined, critical, t(1, 1), 0).state;
    const second = advanceCheck({ ...first, reported }, warn, t(1, 1), 1).state;
    expect(second.detail).toBe('slow');
    expect(second.reported).toEqual(reported);
  });
});
