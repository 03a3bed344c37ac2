// Every change of a run's state, as pure functions (run, event) → { run, effects }. Nothing here does I/O:
// each transition names the states it may start from, and refuses any other with a reason a person can read.
import { reviewText } from './call-review/call-review.js';
import { RUN_STATUSES, type Run, type RunIn, type RunStatus } from './run.js';
import type { RunEffect } from './run-effect.js';
import { actionFinished, grantUsed } from './run-machine/actions.js';
import { approvalCounted, approvalDecided, approvalExpired } from './run-machine/approvals.js';
import { cancel } from './run-machine/cancel.js';
import { fail, finish, interrupted } from './run-machine/endings.js';
import type { Next, RunMachineEvent, RunMachineEventType } from './run-machine/events.js';
import { planMade, withChecklistUpdate } from './run-machine/plan.js';
import { askQuestion, questionExpired, takeAnswer } from './run-machine/questions.js';
import { refusalCard } from './run-machine/refusals.js';
import { base, rememberMessage, to, withEvent } from './run-machine/shape.js';
import { stuckAsked } from './run-machine/stuck.js';
import { recordOutcome } from './run-record-call.js';
import { describeRunState, NO_WORKER_WORDS, possessive, WORKING_WORDS } from './run-state-words.js';

export { approvalCardOf, requestApproval } from './run-machine/approval-card.js';
export { refusedRecord } from './run-machine/approvals.js';
export {
  type Actor,
  type AnswerTake,
  type ApprovalCard,
  actorOf,
  type RunMachineEvent,
  type RunMachineEventType,
} from './run-machine/events.js';
export { questionExpiredText, questionMessage } from './run-machine/questions.js';

/** The states each event may start from. Every other (state, event) pair is refused. */
export const ALLOWED_FROM: { readonly [E in RunMachineEventType]: readonly RunStatus[] } = {
  thread_busy: ['queued'],
  handed_to_queue: ['queued'],
  work_started: ['queued', 'running'],
  calls_planned: ['running'],
  plan_made: ['running'],
  call_recorded: ['running'],
  step_completed: ['running'],
  question_asked: ['running'],
  stuck: ['running'],
  engine_switched: ['running'],
  answer_received: ['waiting_for_user'],
  question_expired: ['waiting_for_user'],
  approval_requested: ['running'],
  approval_counted: ['waiting_for_approval'],
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
    (event.type === 'approval_counted' ||
      event.type === 'approval_decided' ||
      event.type === 'approval_expired') &&
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
  return { ok: true, ...withChecklistUpdate(run, event, apply(run, event)) };
}

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
              // Everyone in the thread reads this, so it names whose request waits.
              text: threadBusyWords(run.principal.displayName, run.id, event),
            },
          },
          { kind: 'audit', entry: { kind: 'thread_busy', reason: `queued at position ${event.position}` } },
        ],
      };
    case 'handed_to_queue':
      return {
        run,
        effects: [
          event.workers === 'seen'
            ? { kind: 'status', text: WORKING_WORDS, tone: 'working' }
            : { kind: 'status', text: NO_WORKER_WORDS, tone: 'warning' },
          // Saved with its status line, which the worker then updates instead of posting another.
          { kind: 'save' },
        ],
      };
    case 'work_started':
      return {
        run: to(event.threadSummary ? { ...run, threadSummary: event.threadSummary } : run, 'running', {}),
        effects: [{ kind: 'status', text: WORKING_WORDS, tone: 'working' }],
      };
    case 'calls_planned':
      return { run: { ...(run as RunIn<'running'>), queue: event.calls }, effects: [] };
    case 'plan_made':
      return planMade(run as RunIn<'running'>, event);
    case 'call_recorded': {
      const before = base(run);
      const recorded = recordOutcome(before, event.call, event.outcome, event.at);
      const queue = recorded.run.queue.filter((queued) => queued.id !== event.call.id);
      const card = refusalCard(before, event.call, event.outcome);
      const effects = card ? [...recorded.effects, card] : recorded.effects;
      return { run: { ...recorded.run, queue, status: 'running' }, effects };
    }
    case 'execution_finished':
      return actionFinished(
        recordOutcome(base(run), event.call, event.outcome, event.at, { action: true }),
        event,
      );
    case 'step_completed':
      return { run, effects: [{ kind: 'save' }] };
    case 'question_asked':
      return askQuestion(run, event.call, event);
    case 'stuck':
      return stuckAsked(run as RunIn<'running'>, event);
    case 'engine_switched':
      return {
        run: withEvent(
          { ...run, engine: event.engine },
          {
            type: 'engine_switched',
            at: event.at,
            step: run.step,
            engine: event.engine,
            reason: event.reason,
          },
        ),
        effects: [{ kind: 'status', text: 'Model unreachable: running the typed command', tone: 'warning' }],
      };
    case 'answer_received':
      return takeAnswer(run as RunIn<'waiting_for_user'>, event);
    case 'question_expired':
      return questionExpired(run as RunIn<'waiting_for_user'>, event.at);
    case 'approval_requested': {
      const reviewed = event.reviewUsage;
      const counted = reviewed
        ? {
            ...run,
            usage: {
              ...run.usage,
              modelCalls: run.usage.modelCalls + 1,
              promptTokens: run.usage.promptTokens + reviewed.promptTokens,
              completionTokens: run.usage.completionTokens + reviewed.completionTokens,
            },
          }
        : run;
      const next = to(counted, 'waiting_for_approval', {
        approval: {
          approvalId: event.approvalId,
          call: event.call,
          requestedAt: event.at,
          expiresAt: event.expiresAt,
          ...event.decides,
          approvals: event.decides.approvals ?? 1,
          approvedBy: [],
        },
      });
      return {
        run: withEvent(next, {
          type: 'approval_requested',
          at: event.at,
          step: run.step,
          approvalId: event.approvalId,
          tool: event.call.name,
          callId: event.call.id,
          expiresAt: event.expiresAt,
          args: event.decides.displayArgs,
        }),
        effects: [
          { kind: 'post', message: event.card, slot: 'approval_card' },
          {
            kind: 'audit',
            entry: {
              kind: 'approval_requested',
              approvalId: event.approvalId,
              tool: event.call.name,
              args: event.decides.displayArgs,
              ...(run.conversation.channelName ? { channelName: run.conversation.channelName } : {}),
              outcome: 'pending',
              // The approver saw the reviewer's advice: the trail keeps what they saw.
              ...(event.decides.review ? { reason: `reviewer: ${reviewText(event.decides.review)}` } : {}),
            },
          },
          {
            kind: 'status',
            text: event.decides.confirm
              ? `Waiting for ${run.principal.displayName} to confirm ${event.call.name}`
              : `Waiting for approval of ${event.call.name}`,
            tone: 'warning',
          },
          { kind: 'save' },
          {
            kind: 'trace',
            record: {
              kind: 'approval',
              tool: event.call.name,
              args: event.card.argumentsJson,
              summary: `${event.decides.confirm ? 'confirm requested' : 'approval requested'}${
                event.decides.review ? `; reviewer: ${reviewText(event.decides.review)}` : ''
              }`.slice(0, 200),
              durationMs: 0,
            },
          },
        ],
      };
    }
    case 'approval_counted':
      return approvalCounted(run as RunIn<'waiting_for_approval'>, event);
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
          ...grantUsed(call, event.displayArgs),
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

/** The queued run's line: whose request waits, behind what, and its place in line. */
function threadBusyWords(
  requester: string,
  runId: string,
  event: Extract<RunMachineEvent, { type: 'thread_busy' }>,
): string {
  const whose = capitalized(possessive(requester));
  const place = event.position > 1 ? ` (position ${event.position})` : '';
  const behind = event.behind;
  if (behind) {
    const waits =
      behind.waitsFor.kind === 'answer'
        ? `it waits for ${possessive(behind.waitsFor.who)} answer`
        : `it waits for an approval of ${behind.waitsFor.tool}`;
    return `Queued behind ${possessive(behind.requester)} run: ${waits}. ${whose} request${place} starts when that run ends (${runId}).`;
  }
  return `I'm still working on the earlier request in this thread. ${whose} request is queued (position ${event.position}) and will start when it is done (${runId}).`;
}

function capitalized(text: string): string {
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}`;
}
