// nextCheckState: one check, run after run, as the machine step and the report change in a row.
import { describe, expect, it } from 'vitest';
import type { CheckOutcome } from '../../scheduled/check-outcome.js';
import type { CheckState } from '../../scheduled/check-state.js';
import { type CheckRules, nextCheckState } from '../../scheduled/next-check-state.js';

const fail: CheckOutcome = { kind: 'fail', severity: 'critical', detail: 'HTTP 503' };
const pass: CheckOutcome = { kind: 'pass', detail: 'HTTP 200' };
const rules: CheckRules = {
  raiseAfter: 2,
  clearAfter: 2,
  acked: false,
  hold: { kind: 'none' },
  newReportId: 'r1',
};

/** Runs outcomes one minute apart and returns, per run, the machine status and the change kind (or '-'). */
function walk(steps: [CheckOutcome, CheckRules][]): string[] {
  let state: CheckState | undefined;
  return steps.map(([outcome, stepRules], index) => {
    const step = nextCheckState(state, outcome, stepRules, index * 60_000);
    state = step.state;
    return `${step.state.machine.status}:${step.change?.kind ?? '-'}`;
  });
}

describe('nextCheckState', () => {
  it('raise_after 2 and clear_after 2: pending, firing (posted), resolving, ok (resolved)', () => {
    expect(walk([fail, fail, pass, pass].map((outcome) => [outcome, rules]))).toEqual([
      'pending:-',
      'firing:firing',
      'resolving:-',
      'ok:resolved',
    ]);
  });

  it('a firing held back by a snooze is posted by the first run after it, once', () => {
    const snoozed: CheckRules = { ...rules, hold: { kind: 'snoozed' } };
    expect(
      walk([
        [fail, snoozed],
        [fail, snoozed],
        [fail, snoozed],
        [fail, rules],
        [fail, rules],
      ]),
    ).toEqual(['pending:-', 'firing:-', 'firing:-', 'firing:firing', 'firing:-']);
  });

  it('a report line carries the check state before the firing and since when', () => {
    const first = nextCheckState(undefined, fail, rules, 1_000);
    const second = nextCheckState(first.state, fail, rules, 2_000);
    expect(second.change?.line).toEqual({
      change: 'firing',
      severity: 'critical',
      detail: 'HTTP 503',
      previous: 'pending',
      since: 1_000,
    });
    expect(second.state.reported).toEqual({
      reportId: 'r1',
      level: 'critical',
      since: 2_000,
      postedAt: 2_000,
    });
  });
});
