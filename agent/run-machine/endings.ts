// How a run ends: finished, failed or interrupted mid-action, and what every end shares.
import { personKey } from '../principal.js';
import type { Run, RunBase, RunEvent, RunIn } from '../run.js';
import type { RunEffect } from '../run-effect.js';
import { type CallOutcomeFact, errorsMet, outcomeProblems } from '../run-outcomes.js';
import type { WrapUp } from '../run-progress.js';
import { finishedWords } from '../run-state-words.js';
import type { Next, RunMachineEvent } from './events.js';
import { to, withEvent } from './shape.js';

/**
 * The effects every end shares: audit the outcome, free the thread, save, trace. The thread is freed first: a process that dies
 * between the two leaves a run that recovery takes up again from its last save, without the thread (as after an
 * answer), never a lock held by a run that has ended, which nothing would release until its TTL.
 */
export function closing(
  kind: 'finished' | 'failed' | 'cancelled' | 'expired' | 'outcome_unknown',
  summary: string,
  ok = kind === 'finished',
): RunEffect[] {
  return [
    // Every run ends with an outcome row in the audit log, however it ends: a model failure too.
    {
      kind: 'audit',
      entry: {
        kind: 'outcome',
        outcome: kind === 'finished' && !ok ? 'finished_with_problem' : kind,
        reason: summary.slice(0, 500),
      },
    },
    { kind: 'free_thread' },
    { kind: 'save' },
    {
      kind: 'trace',
      record: {
        kind,
        summary: summary.slice(0, 200),
        durationMs: 0,
        ...(ok ? {} : { ok: false }),
      },
    },
  ];
}

export function end<S extends 'finished' | 'failed' | 'cancelled' | 'expired' | 'outcome_unknown'>(
  run: Run,
  status: S,
  fields: Omit<RunIn<S>, keyof RunBase | 'status'>,
  event: RunEvent,
): RunIn<S> {
  const ended = to({ ...run, queue: [] } as Run, status, fields);
  return withEvent(ended, event);
}

export function finish(run: Run, event: Extract<RunMachineEvent, { type: 'finished' }>): Next {
  // A call that failed or was refused (and did not pass when made again) makes the run's end a problem, whatever
  // the engine's answer says; so does a failed write or danger action, and an answer given at the step limit.
  const problems = outcomeProblems(run);
  const { wrapUp } = event;
  const ok =
    event.ok && run.failedActions.length === 0 && problems.length === 0 && wrapUp?.reason !== 'step_limit';
  const switched = run.events.findLast((earlier) => earlier.type === 'engine_switched');
  const fallback =
    switched?.type === 'engine_switched'
      ? [`Note: ${switched.reason}, so this ran as a typed command, without the model.`]
      : [];
  const answer = [event.answer, ...endNotes(problems, wrapUp, run, event.answer), ...fallback].join('\n\n');
  const ended = end(
    run,
    'finished',
    { answer, ok },
    {
      type: 'finished',
      at: event.at,
      step: run.step,
      answer,
      ...(wrapUp ? { wrapUp: wrapUp.reason } : {}),
    },
  );
  return {
    run: ended,
    effects: [
      {
        kind: 'post',
        message: {
          kind: 'result',
          runId: run.id,
          text: answer,
          // The failed action already has its own red card; the answer is coloured by what it says itself. An
          // answer at the step limit is an answer, not a failure: its note and the status line say it may be unfinished.
          ok: event.ok,
          ...(event.details ? { details: event.details } : {}),
        },
      },
      { kind: 'status', text: finishedWords(ended), tone: ok ? 'success' : 'warning' },
      ...(wrapUp
        ? [
            {
              kind: 'trace' as const,
              record: {
                kind: 'wrap_up' as const,
                summary: `answered without tools: ${wrapUp.reason === 'step_limit' ? 'at the step limit' : `${wrapUp.by} said stop here`}`,
                durationMs: 0,
              },
            },
          ]
        : []),
      ...closing('finished', answer, ok),
    ],
  };
}

/**
 * The bot's own lines under the engine's answer: a refusal the model may gloss over ("restarted, or tried to"),
 * and for an answer asked for without tools, why, and every error the run met on the way.
 */
function endNotes(
  problems: CallOutcomeFact[],
  wrapUp: WrapUp | undefined,
  run: Run,
  answer: string,
): string[] {
  // A refusal the answer already gives in full (a typed command's answer is its tool's words) is not said twice.
  const refused = problems
    .filter((fact) => fact.state === 'refused' && !answer.includes(fact.summary))
    .map((fact) => `Note: ${fact.tool} was refused: ${fact.summary}`);
  if (!wrapUp) return refused;
  const why =
    wrapUp.reason === 'step_limit'
      ? `Note: this answer was given at the step limit (limits.max_steps is ${wrapUp.maxSteps}), from what the run had found so far; the work may be unfinished.`
      : `Note: stopped here, as ${whoAsked(run, wrapUp.by)} asked; this answer is from what the run had found so far.`;
  return [why, ...refused, ...errorsMet(problems)];
}

export function fail(run: Run, code: string, message: string, at: number): Next {
  const ended = end(
    run,
    'failed',
    { error: { code, message } },
    { type: 'failed', at, step: run.step, code, message },
  );
  return {
    run: ended,
    effects: [
      { kind: 'post', message: { kind: 'result', runId: run.id, text: message, ok: false } },
      { kind: 'status', text: 'Failed', tone: 'error' },
      ...closing('failed', message),
    ],
  };
}

export function interrupted(run: RunIn<'executing'>, at: number): Next {
  const { call } = run.executing;
  const ended = end(
    run,
    'outcome_unknown',
    { unknownCall: call },
    {
      type: 'outcome_unknown',
      at,
      step: run.step,
      callId: call.id,
      tool: call.name,
    },
  );
  const args = JSON.stringify(call.args ?? {});
  return {
    run: ended,
    effects: [
      {
        kind: 'post',
        message: {
          kind: 'result',
          runId: run.id,
          ok: false,
          text: `opsbot stopped while running ${call.name} ${args}, before its result was saved. It may or may not have taken effect, and it was NOT run again. Check the system, and ask again if it is still needed.`,
        },
      },
      { kind: 'status', text: 'Outcome unknown', tone: 'error' },
      ...closing('outcome_unknown', `${call.name} was interrupted`),
    ],
  };
}

/** The requester by name when they answered; anyone else by the key the run's events keep. */
function whoAsked(run: Run, key: string): string {
  return key === personKey(run.principal) ? run.principal.displayName || key : key;
}
