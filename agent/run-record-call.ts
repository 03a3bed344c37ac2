// Records a call's outcome in a run — transcript, events, usage, duplicate memory — and says what to audit.

import { callSignature } from './call-signature.js';
import type { PlannedCall, RunBase } from './run.js';
import type { RunEffect } from './run-effect.js';
import type { CallOutcome } from './step-executor.js';

/** What a call produced, with its arguments as people may see them (redacted). */
export type RecordedOutcome = CallOutcome & {
  displayArgs: unknown;
  /** The call's signature (tool and canonical arguments), when the caller has already worked it out. */
  signature?: string;
};

export function recordOutcome(
  run: RunBase,
  call: PlannedCall,
  outcome: RecordedOutcome,
  at: number,
  options: { action?: boolean } = {},
): { run: RunBase; effects: RunEffect[] } {
  const args = outcome.displayArgs ?? call.args ?? call.rawArguments;
  const counted = outcome.executed || outcome.errorClass !== undefined;
  const next: RunBase = {
    ...run,
    usage: counted ? { ...run.usage, toolCalls: run.usage.toolCalls + 1 } : run.usage,
    messages: [
      ...run.messages,
      { role: 'tool', toolCallId: call.id, name: call.name, content: outcome.content },
    ],
    events: [
      ...run.events,
      { type: 'tool_call', at, step: run.step, callId: call.id, tool: call.name, args },
      {
        type: 'tool_result',
        at,
        step: run.step,
        callId: call.id,
        tool: call.name,
        ok: outcome.ok,
        ...(outcome.errorClass ? { errorClass: outcome.errorClass } : {}),
        summary: outcome.summary,
        durationMs: outcome.durationMs,
        repeated: outcome.repeated,
        ran: outcome.executed,
      },
      ...(outcome.budgetSpent
        ? [
            {
              type: 'tool_budget_spent' as const,
              at,
              step: run.step,
              callId: call.id,
              tool: call.name,
              calls: outcome.budgetSpent.calls,
              setting: outcome.budgetSpent.setting,
            },
          ]
        : []),
    ],
  };
  // An action that ran may have changed what the run's reads saw (a check after a restart must run again), so
  // their results are dropped; the results of actions are kept, so that an action is never repeated on its own.
  const kept = options.action && outcome.executed ? actionResults(run.completedCalls) : run.completedCalls;
  // A result to answer the same call with again: one that passed, or a read that ran and failed, so that the same
  // call is not run again to fail the same way. A failed action is not kept: trying it again is a person's call.
  const callArgs = call.args;
  const remembered = outcome.executed && callArgs !== undefined && (outcome.ok || !options.action);
  next.completedCalls = remembered
    ? {
        ...kept,
        [outcome.signature ?? callSignature(call.name, callArgs)]: {
          callId: call.id,
          content: outcome.content,
          at,
          ...(options.action ? { action: true } : {}),
          ...(outcome.ok ? {} : { failed: true, step: run.step, summary: outcome.summary }),
        },
      }
    : kept;
  const effects: RunEffect[] = [];
  if (outcome.errorClass === 'permission_denied' || outcome.errorClass === 'refused_by_policy') {
    effects.push({
      kind: 'audit',
      entry: { kind: 'refusal', tool: call.name, args, outcome: outcome.errorClass, reason: outcome.summary },
    });
  } else if (outcome.executed) {
    effects.push({
      kind: 'audit',
      entry: {
        kind: 'outcome',
        tool: call.name,
        args,
        outcome: outcome.ok ? 'ok' : 'failed',
        reason: outcome.summary,
      },
    });
  }
  effects.push({
    kind: 'trace',
    record: {
      kind: 'tool_call',
      tool: call.name,
      args,
      ok: outcome.ok,
      ...(outcome.errorClass ? { errorClass: outcome.errorClass } : {}),
      summary: outcome.summary,
      durationMs: outcome.durationMs,
    },
  });
  if (outcome.budgetSpent) {
    const { calls, setting } = outcome.budgetSpent;
    effects.push({
      kind: 'trace',
      record: {
        kind: 'tool_budget_spent',
        tool: call.name,
        summary: `budget spent: ${calls} ${calls === 1 ? 'call' : 'calls'} (${setting}); the call was refused`,
        durationMs: 0,
      },
    });
  }
  return { run: next, effects };
}

/** The results of write and danger calls among a run's completed calls; those saved before this was kept count too. */
function actionResults(completed: RunBase['completedCalls']): RunBase['completedCalls'] {
  return Object.fromEntries(
    Object.entries(completed).filter(([, result]) => result.action === true || result.at === undefined),
  );
}
