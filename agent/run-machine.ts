// Every change of a run's state, as pure functions (run, event) → { run, effects }. Nothing here does I/O:
// each transition names the states it may start from, and refuses any other with a reason a person can read.
import type { OutboundMessage } from './chat-port.js';
import type { Principal } from './principal.js';
import { principalKey } from './principal.js';
import {
  isTerminal,
  type PlannedCall,
  type Question,
  RUN_STATUSES,
  type Run,
  type RunBase,
  type RunEvent,
  type RunIn,
  type RunStatus,
} from './run.js';
import type { MessageSlot, RunEffect } from './run-effect.js';
import { type RecordedOutcome, recordOutcome } from './run-record-call.js';
import { describeRunState, formatClock } from './run-state-words.js';

export type ApprovalCard = Extract<OutboundMessage, { kind: 'approval' }>;
type CardDecision = NonNullable<ApprovalCard['decision']>;

/** Who did something to a run, as the run's events and messages name them. */
export interface Actor {
  key: string;
  displayName: string;
}

export function actorOf(principal: Principal): Actor {
  return { key: principalKey(principal), displayName: principal.displayName || principalKey(principal) };
}

/** How a person's answer fits the question: the ask_user result, the missing arguments, or not yet. */
export type AnswerTake =
  | { kind: 'tool_result'; content: string }
  | { kind: 'arguments'; args: Record<string, unknown> }
  | { kind: 'ask_again'; args: Record<string, unknown>; question: string; choices: string[] };

export type RunMachineEvent =
  | { type: 'thread_busy'; at: number; position: number }
  | { type: 'work_started'; at: number }
  | { type: 'calls_planned'; at: number; calls: PlannedCall[] }
  | { type: 'call_recorded'; at: number; call: PlannedCall; outcome: RecordedOutcome }
  | { type: 'step_completed'; at: number }
  | {
      type: 'question_asked';
      at: number;
      call: PlannedCall;
      question: string;
      choices: string[];
      missingFields: string[];
      expiresAt: number;
    }
  | { type: 'answer_received'; at: number; answer: string; by: Actor; take: AnswerTake; expiresAt: number }
  | { type: 'question_expired'; at: number }
  | {
      type: 'approval_requested';
      at: number;
      call: PlannedCall;
      approvalId: string;
      expiresAt: number;
      card: ApprovalCard;
    }
  | {
      type: 'approval_decided';
      at: number;
      approvalId: string;
      decision: 'approve' | 'deny';
      by: Actor;
      reason?: string;
      /** False when the approved call is not the call waiting to run: it is then refused, never run. */
      bound: boolean;
      stopOnDenial: boolean;
      card: ApprovalCard;
    }
  | { type: 'approval_expired'; at: number; approvalId: string; stopOnDenial: boolean; card: ApprovalCard }
  | { type: 'execution_started'; at: number; call: PlannedCall; displayArgs: unknown }
  | { type: 'execution_finished'; at: number; call: PlannedCall; outcome: RecordedOutcome }
  | { type: 'finished'; at: number; answer: string; ok: boolean; details?: ResultDetails }
  | { type: 'failed'; at: number; code: string; message: string }
  | { type: 'cancelled'; at: number; by: Actor; card?: ApprovalCard }
  | { type: 'action_interrupted'; at: number }
  | { type: 'message_posted'; slot: MessageSlot; messageId: string };

export type RunMachineEventType = RunMachineEvent['type'];
type ResultDetails = { tool: string; summary: string; data?: unknown }[];

/** The states each event may start from. Every other (state, event) pair is refused. */
export const ALLOWED_FROM: { readonly [E in RunMachineEventType]: readonly RunStatus[] } = {
  thread_busy: ['queued'],
  work_started: ['queued', 'running'],
  calls_planned: ['running'],
  call_recorded: ['running'],
  step_completed: ['running'],
  question_asked: ['running'],
  answer_received: ['waiting_for_user'],
  question_expired: ['waiting_for_user'],
  approval_requested: ['running'],
  approval_decided: ['waiting_for_approval'],
  approval_expired: ['waiting_for_approval'],
  execution_started: ['running'],
  execution_finished: ['executing'],
  finished: ['running'],
  failed: ['queued', 'running'],
  cancelled: ['queued', 'running', 'waiting_for_user', 'waiting_for_approval'],
  action_interrupted: ['executing'],
  message_posted: RUN_STATUSES,
};

export interface Refusal {
  /** wrong_state: the event cannot start from this state; other_approval: the run waits for another one. */
  code: 'wrong_state' | 'other_approval';
  event: RunMachineEventType;
  from: RunStatus;
  /** For the person: "run run_1 was cancelled by Alice at 12:03 UTC". */
  message: string;
}

export type Transition = { ok: true; run: Run; effects: RunEffect[] } | { ok: false; refusal: Refusal };

export function transition(run: Run, event: RunMachineEvent): Transition {
  if (!ALLOWED_FROM[event.type].includes(run.status)) {
    return {
      ok: false,
      refusal: { code: 'wrong_state', event: event.type, from: run.status, message: describeRunState(run) },
    };
  }
  if (
    (event.type === 'approval_decided' || event.type === 'approval_expired') &&
    run.status === 'waiting_for_approval' &&
    run.approval.approvalId !== event.approvalId
  ) {
    return {
      ok: false,
      refusal: {
        code: 'other_approval',
        event: event.type,
        from: run.status,
        message: `run ${run.id} is waiting for another approval now (${run.approval.approvalId})`,
      },
    };
  }
  return { ok: true, ...apply(run, event) };
}

type Next = { run: Run; effects: RunEffect[] };

function apply(run: Run, event: RunMachineEvent): Next {
  switch (event.type) {
    case 'message_posted':
      return { run: rememberMessage(run, event.slot, event.messageId), effects: [] };
    case 'thread_busy':
      return {
        run,
        effects: [
          {
            kind: 'post',
            message: {
              kind: 'text',
              tone: 'info',
              text: `I'm still working on the earlier request in this thread. Yours is queued (position ${event.position}) and will start when it is done (${run.id}).`,
            },
          },
          { kind: 'audit', entry: { kind: 'thread_busy', reason: `queued at position ${event.position}` } },
        ],
      };
    case 'work_started':
      return {
        run: to(run, 'running', {}),
        effects: [{ kind: 'status', text: 'Working on it…', tone: 'working' }],
      };
    case 'calls_planned':
      return { run: { ...(run as RunIn<'running'>), queue: event.calls }, effects: [] };
    case 'call_recorded':
    case 'execution_finished': {
      const recorded = recordOutcome(base(run), event.call, event.outcome, event.at);
      const queue = recorded.run.queue.filter((queued) => queued.id !== event.call.id);
      return { run: { ...recorded.run, queue, status: 'running' }, effects: recorded.effects };
    }
    case 'step_completed':
      return { run, effects: [{ kind: 'save' }] };
    case 'question_asked':
      return askQuestion(run, event.call, event);
    case 'answer_received':
      return takeAnswer(run as RunIn<'waiting_for_user'>, event);
    case 'question_expired':
      return questionExpired(run as RunIn<'waiting_for_user'>, event.at);
    case 'approval_requested': {
      const next = to(run, 'waiting_for_approval', {
        approval: {
          approvalId: event.approvalId,
          call: event.call,
          requestedAt: event.at,
          expiresAt: event.expiresAt,
        },
      });
      return {
        run: withEvent(next, {
          type: 'approval_requested',
          at: event.at,
          step: run.step,
          approvalId: event.approvalId,
          tool: event.call.name,
        }),
        effects: [
          { kind: 'post', message: event.card, slot: 'approval_card' },
          { kind: 'status', text: `Waiting for approval of ${event.call.name}`, tone: 'warning' },
          { kind: 'save' },
          {
            kind: 'trace',
            record: {
              kind: 'approval',
              tool: event.call.name,
              args: event.card.argumentsJson,
              summary: 'approval requested',
              durationMs: 0,
            },
          },
        ],
      };
    }
    case 'approval_decided':
      return approvalDecided(run as RunIn<'waiting_for_approval'>, event);
    case 'approval_expired':
      return approvalExpired(run as RunIn<'waiting_for_approval'>, event);
    case 'execution_started': {
      const call = event.call;
      const next = to(run, 'executing', { executing: { call, startedAt: event.at } });
      return {
        run: withEvent(next, {
          type: 'executing',
          at: event.at,
          step: run.step,
          callId: call.id,
          tool: call.name,
        }),
        effects: [
          { kind: 'audit', entry: { kind: 'execution', tool: call.name, args: event.displayArgs } },
          { kind: 'save' },
        ],
      };
    }
    case 'finished':
      return finish(run, event);
    case 'failed':
      return fail(run, event.code, event.message, event.at);
    case 'cancelled':
      return cancel(run, event);
    case 'action_interrupted':
      return interrupted(run as RunIn<'executing'>, event.at);
  }
}

/** The fields every run has, without its status and the status's own fields. */
function base(run: Run): RunBase {
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
function to<S extends RunStatus>(
  run: Run,
  status: S,
  fields: Omit<RunIn<S>, keyof RunBase | 'status'>,
): RunIn<S> {
  return { ...base(run), ...fields, status } as RunIn<S>;
}

function withEvent<R extends Run>(run: R, event: RunEvent): R {
  return { ...run, events: [...run.events, event] };
}

function rememberMessage(run: Run, slot: MessageSlot, messageId: string): Run {
  if (slot === 'question' && run.status === 'waiting_for_user')
    return { ...run, question: { ...run.question, messageId } };
  if (slot === 'approval_card' && run.status === 'waiting_for_approval')
    return { ...run, approval: { ...run.approval, cardMessageId: messageId } };
  return run;
}

export function questionMessage(
  run: Run,
  question: Question,
): Extract<OutboundMessage, { kind: 'question' }> {
  return {
    kind: 'question',
    runId: run.id,
    question: question.question,
    choices: question.choices,
    askedOf: run.principal.displayName,
  };
}

function askQuestion(
  run: Run,
  call: PlannedCall,
  asked: { at: number; question: string; choices: string[]; missingFields: string[]; expiresAt: number },
): Next {
  const question: Question = {
    question: asked.question,
    choices: asked.choices,
    call,
    missingFields: asked.missingFields,
    askedAt: asked.at,
    expiresAt: asked.expiresAt,
  };
  const next = withEvent(to(run, 'waiting_for_user', { question }), {
    type: 'question_asked',
    at: asked.at,
    step: run.step,
    question: asked.question,
    choices: asked.choices,
  });
  return {
    run: next,
    effects: [
      { kind: 'post', message: questionMessage(run, question), slot: 'question' },
      { kind: 'status', text: 'Waiting for your answer', tone: 'warning' },
      // Before the save, as at every end: see closing().
      { kind: 'free_thread' },
      { kind: 'save' },
      { kind: 'trace', record: { kind: 'question', summary: asked.question, durationMs: 0 } },
    ],
  };
}

function closeQuestion(
  run: RunIn<'waiting_for_user'>,
  closed: { answer: string; by: string; at: number },
): RunEffect[] {
  const { messageId } = run.question;
  if (!messageId) return [];
  return [
    { kind: 'update', messageId, message: { ...questionMessage(run, run.question), answered: closed } },
  ];
}

function takeAnswer(
  run: RunIn<'waiting_for_user'>,
  event: Extract<RunMachineEvent, { type: 'answer_received' }>,
): Next {
  const { call } = run.question;
  const answered = withEvent(run, {
    type: 'answer_received',
    at: event.at,
    step: run.step,
    answer: event.answer,
    by: event.by.key,
  });
  const shown = closeQuestion(run, { answer: event.answer, by: event.by.displayName, at: event.at });
  const { take } = event;
  if (take.kind === 'ask_again') {
    const retried = { ...call, args: take.args, rawArguments: JSON.stringify(take.args) };
    const waiting = {
      ...answered,
      queue: [retried, ...run.queue.slice(1)],
      askAttempts: run.askAttempts + 1,
    };
    const asked = askQuestion(waiting, retried, {
      at: event.at,
      question: take.question,
      choices: take.choices,
      missingFields: run.question.missingFields,
      expiresAt: event.expiresAt,
    });
    return {
      run: asked.run,
      effects: [...shown, ...asked.effects.filter((effect) => effect.kind !== 'free_thread')],
    };
  }
  const queue =
    take.kind === 'tool_result'
      ? run.queue.slice(1)
      : [{ ...call, args: take.args, rawArguments: JSON.stringify(take.args) }, ...run.queue.slice(1)];
  const messages =
    take.kind === 'tool_result'
      ? [
          ...run.messages,
          { role: 'tool' as const, toolCallId: call.id, name: call.name, content: take.content },
        ]
      : run.messages;
  const next = to({ ...answered, queue, messages, askAttempts: 0 }, 'queued', {});
  return {
    run: next,
    effects: [
      ...shown,
      { kind: 'save' },
      { kind: 'enqueue' },
      { kind: 'trace', record: { kind: 'answer', summary: event.answer.slice(0, 200), durationMs: 0 } },
    ],
  };
}

/** What a person sees when their question waited too long. */
export function questionExpiredText(waitedMs: number): string {
  const hours = waitedMs / 3_600_000;
  const waited = hours >= 1 ? `${Math.round(hours * 10) / 10} h` : `${Math.round(waitedMs / 60_000)} min`;
  return `This question expired unanswered after ${waited}. Ask again to start a new run.`;
}

function questionExpired(run: RunIn<'waiting_for_user'>, at: number): Next {
  const message = questionExpiredText(run.question.expiresAt - run.question.askedAt);
  const closed = closeQuestion(run, { answer: '(expired unanswered)', by: 'nobody', at });
  const ended = end(
    run,
    'expired',
    { expired: { message, at } },
    { type: 'expired', at, step: run.step, message },
  );
  return {
    run: ended,
    effects: [
      ...closed,
      { kind: 'post', message: { kind: 'text', text: message, tone: 'warning' } },
      { kind: 'status', text: 'Expired', tone: 'warning' },
      ...closing('expired', message),
    ],
  };
}

function decideCard(
  run: RunIn<'waiting_for_approval'>,
  card: ApprovalCard,
  decision: CardDecision,
): RunEffect[] {
  const messageId = run.approval.cardMessageId;
  return messageId ? [{ kind: 'update', messageId, message: { ...card, decision } }] : [];
}

function approvalDecided(
  run: RunIn<'waiting_for_approval'>,
  event: Extract<RunMachineEvent, { type: 'approval_decided' }>,
): Next {
  const { call } = run.approval;
  const outcome = event.decision === 'approve' ? 'approved' : 'denied';
  const card = decideCard(run, event.card, {
    outcome,
    by: event.by.displayName,
    at: event.at,
    ...(event.reason ? { reason: event.reason } : {}),
  });
  const decided = withEvent(run, {
    type: 'approval_decided',
    at: event.at,
    step: run.step,
    approvalId: event.approvalId,
    decision: outcome,
    by: event.by.key,
    ...(event.reason ? { reason: event.reason } : {}),
  });
  if (event.decision === 'approve' && event.bound) {
    const approved = { ...call, approved: { approvalId: event.approvalId, by: event.by.displayName } };
    const queue = [approved, ...run.queue.filter((queued) => queued.id !== call.id)];
    return {
      run: to({ ...decided, queue }, 'queued', {}),
      effects: [...card, { kind: 'save' }, { kind: 'enqueue' }],
    };
  }
  const message = event.bound
    ? `Denied by ${event.by.displayName}${event.reason ? `: ${event.reason}` : '.'}`
    : 'The approved call does not match the call waiting to run, so it was not run.';
  return refuseAndGoOn(decided, call, message, event.stopOnDenial, event.at, card);
}

function approvalExpired(
  run: RunIn<'waiting_for_approval'>,
  event: Extract<RunMachineEvent, { type: 'approval_expired' }>,
): Next {
  const { call, expiresAt } = run.approval;
  const card = decideCard(run, event.card, { outcome: 'expired', by: 'nobody', at: expiresAt });
  const decided = withEvent(run, {
    type: 'approval_decided',
    at: event.at,
    step: run.step,
    approvalId: event.approvalId,
    decision: 'expired',
    by: 'expiry',
  });
  const message = `The approval for ${call.name} expired before anyone decided (at ${formatClock(expiresAt)}), so it was not run.`;
  if (!event.stopOnDenial) {
    // The thread hears it too, not only the model: the run goes on without the call.
    const told: RunEffect = { kind: 'post', message: { kind: 'text', text: message, tone: 'warning' } };
    return refuseAndGoOn(decided, call, message, false, event.at, [...card, told]);
  }
  const text = `${message} Ask again if it is still needed.`;
  const ended = end(
    decided,
    'expired',
    { expired: { message: text, at: event.at } },
    {
      type: 'expired',
      at: event.at,
      step: run.step,
      message: text,
    },
  );
  return {
    run: ended,
    effects: [
      ...card,
      { kind: 'post', message: { kind: 'text', text, tone: 'warning' } },
      { kind: 'status', text: 'Expired', tone: 'warning' },
      ...closing('expired', text),
    ],
  };
}

/** A call that will not run: the model is told why, and the run stops or goes on as on_denial says. */
function refuseAndGoOn(
  run: Run,
  call: PlannedCall,
  message: string,
  stop: boolean,
  at: number,
  before: RunEffect[],
): Next {
  const refused = recordOutcome(base(run), call, refusedRecord(call.name, message), at);
  const queue = refused.run.queue.filter((queued) => queued.id !== call.id);
  const next = { ...refused.run, queue, status: 'running' as const };
  if (stop) {
    const failed = fail(next, 'denied', `${message} The run stopped (permissions.on_denial is stop).`, at);
    return { run: failed.run, effects: [...before, ...refused.effects, ...failed.effects] };
  }
  return {
    run: to(next, 'queued', {}),
    effects: [...before, ...refused.effects, { kind: 'save' }, { kind: 'enqueue' }],
  };
}

export function refusedRecord(tool: string, message: string): RecordedOutcome {
  return {
    content: JSON.stringify({
      tool,
      ok: false,
      error: {
        class: 'permission_denied',
        message,
        what_to_do: 'Someone else must do this: tell the user who can, and do not retry.',
      },
    }),
    ok: false,
    summary: `permission_denied: ${message}`,
    errorClass: 'permission_denied',
    repeated: false,
    durationMs: 0,
    executed: false,
    displayArgs: undefined,
  };
}

/**
 * The effects every end shares: free the thread, save, trace. The thread is freed first: a process that dies
 * between the two leaves a run that recovery takes up again from its last save, without the thread (as after an
 * answer), never a lock held by a run that has ended, which nothing would release until its TTL.
 */
function closing(
  kind: 'finished' | 'failed' | 'cancelled' | 'expired' | 'outcome_unknown',
  summary: string,
): RunEffect[] {
  return [
    { kind: 'free_thread' },
    { kind: 'save' },
    {
      kind: 'trace',
      record: {
        kind,
        summary: summary.slice(0, 200),
        durationMs: 0,
        ...(kind === 'finished' ? {} : { ok: false }),
      },
    },
  ];
}

function end<S extends 'finished' | 'failed' | 'cancelled' | 'expired' | 'outcome_unknown'>(
  run: Run,
  status: S,
  fields: Omit<RunIn<S>, keyof RunBase | 'status'>,
  event: RunEvent,
): RunIn<S> {
  const ended = to({ ...run, queue: [] } as Run, status, fields);
  return withEvent(ended, event);
}

function finish(run: Run, event: Extract<RunMachineEvent, { type: 'finished' }>): Next {
  const ended = end(
    run,
    'finished',
    { answer: event.answer, ok: event.ok },
    {
      type: 'finished',
      at: event.at,
      step: run.step,
      answer: event.answer,
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
          text: event.answer,
          ok: event.ok,
          ...(event.details ? { details: event.details } : {}),
        },
      },
      {
        kind: 'status',
        text: event.ok ? 'Done' : 'Done, with a problem',
        tone: event.ok ? 'success' : 'warning',
      },
      ...closing('finished', event.answer),
    ],
  };
}

function fail(run: Run, code: string, message: string, at: number): Next {
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

function cancel(run: Run, event: Extract<RunMachineEvent, { type: 'cancelled' }>): Next {
  const by = event.by.displayName;
  const closed: RunEffect[] =
    run.status === 'waiting_for_user'
      ? closeQuestion(run, { answer: `(cancelled by ${by})`, by, at: event.at })
      : run.status === 'waiting_for_approval' && event.card
        ? decideCard(run, event.card, { outcome: 'withdrawn', by, at: event.at })
        : [];
  const ended = end(
    run,
    'cancelled',
    { cancelled: { by, at: event.at } },
    {
      type: 'cancelled',
      at: event.at,
      step: run.step,
      by,
    },
  );
  return {
    run: ended,
    effects: [
      ...closed,
      { kind: 'post', message: { kind: 'text', text: `Cancelled by ${by}.`, tone: 'warning' } },
      { kind: 'status', text: `Cancelled by ${by}`, tone: 'warning' },
      { kind: 'audit', entry: { kind: 'cancel', actor: event.by } },
      { kind: 'forget_cancel_request' },
      ...closing('cancelled', `cancelled by ${by}`),
    ],
  };
}

function interrupted(run: RunIn<'executing'>, at: number): Next {
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

/** True once nothing more can happen to the run. */
export function hasEnded(run: Run): boolean {
  return isTerminal(run.status);
}
