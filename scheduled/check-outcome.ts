// What one run of a check found: it passed, it failed at the check's severity, or it could not run at all.
import type { PatrolCheck, Severity } from './patrol-settings.js';

export type CheckOutcome =
  | { kind: 'pass'; detail: string }
  | { kind: 'fail'; severity: Severity; detail: string }
  | { kind: 'error'; detail: string };

/** What the patrol runner got from the tool: its result (a timeout is one that did not pass), or what it threw. */
export type CheckToolResult = { ok: boolean; summary: string } | { thrown: string };

/** A level a failing check can show: how bad it is, or `error` when it could not run. */
export type CheckLevel = Severity | 'error';

export function checkOutcome(check: PatrolCheck, result: CheckToolResult): CheckOutcome {
  if ('thrown' in result) return { kind: 'error', detail: result.thrown };
  if (result.ok) return { kind: 'pass', detail: result.summary };
  return { kind: 'fail', severity: check.severity, detail: result.summary };
}

/** The level a failing or erroring outcome asks for; undefined for a pass. */
export function outcomeLevel(outcome: CheckOutcome): CheckLevel | undefined {
  if (outcome.kind === 'pass') return undefined;
  return outcome.kind === 'error' ? 'error' : outcome.severity;
}
