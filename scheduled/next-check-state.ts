// One run for one check: advance its state machine, then work out what (if anything) to post about it.
import type { CheckOutcome } from './check-outcome.js';
import { type CheckChange, type ReportContext, reportChange } from './check-report-change.js';
import type { CheckState } from './check-state.js';
import { advanceCheck, type CheckThresholds } from './check-transitions.js';

export type CheckRules = CheckThresholds & ReportContext;

export type CheckStep = { state: CheckState; change?: CheckChange };

export function nextCheckState(
  state: CheckState | undefined,
  outcome: CheckOutcome,
  rules: CheckRules,
  now: number,
): CheckStep {
  const advanced = advanceCheck(state, outcome, rules, now);
  return reportChange(advanced.state, rules, now);
}
