// Moving a run between states: the base fields every run keeps, and exactly the new state's own fields.
import type { Run, RunBase, RunEvent, RunIn, RunStatus } from '../run.js';
import type { MessageSlot } from '../run-effect.js';

/** The fields every run has, without its status and the status's own fields. */
export function base(run: Run): RunBase {
  // Most transitions leave a working run, which has no fields of its own state to drop.
  if (run.status === 'running' || run.status === 'queued') {
    const { status: _status, ...rest } = run;
    return rest;
  }
  const {
    status: _status,
    executing: _executing,
    question: _question,
    approval: _approval,
    answer: _answer,
    ok: _ok,
    error: _error,
    cancelled: _cancelled,
    expired: _expired,
    unknownCall: _unknownCall,
    ...rest
  } = run as Run & Partial<Record<string, unknown>>;
  return rest as RunBase;
}

/** The run in another state: the base fields plus exactly the new state's own fields. */
export function to<S extends RunStatus>(
  run: Run,
  status: S,
  fields: Omit<RunIn<S>, keyof RunBase | 'status'>,
): RunIn<S> {
  return { ...base(run), ...fields, status } as RunIn<S>;
}

export function withEvent<R extends Run>(run: R, event: RunEvent): R {
  return { ...run, events: [...run.events, event] };
}

export function rememberMessage(run: Run, slot: MessageSlot, messageId: string): Run {
  if (slot === 'question' && run.status === 'waiting_for_user')
    return { ...run, question: { ...run.question, messageId } };
  if (slot === 'approval_card' && run.status === 'waiting_for_approval')
    return { ...run, approval: { ...run.approval, cardMessageId: messageId } };
  if (slot === 'plan_checklist' && run.stepPlan) return { ...run, stepPlan: { ...run.stepPlan, messageId } };
  return run;
}
