// The events the run machine takes, and the shapes its transitions share.
import type { OutboundMessage } from '../chat-port.js';
import type { ModelUsage } from '../model/model-port.js';
import { type Principal, personKey } from '../principal.js';
import type { PendingApproval, PlannedCall, Run } from '../run.js';
import type { MessageSlot, RunEffect } from '../run-effect.js';
import type { WrapUp } from '../run-progress.js';
import type { RecordedOutcome } from '../run-record-call.js';
import type { StepPlan } from '../step-plan.js';

export type ApprovalCard = Extract<OutboundMessage, { kind: 'approval' }>;

export type CardDecision = NonNullable<ApprovalCard['decision']>;

/** Who did something to a run, as the run's events and messages name them. */
export interface Actor {
  key: string;
  displayName: string;
  /** Where they acted (`slack`, `cli`, …), for the audit log; absent for actors that are not people. */
  surface?: Principal['platform'];
}

/** The key is the person as the settings name them (`local:bob` from the playground and the CLI alike). */
export function actorOf(principal: Principal): Actor {
  return {
    key: personKey(principal),
    displayName: principal.displayName || personKey(principal),
    surface: principal.platform,
  };
}

/** How a person's answer fits the question: the ask_user result, the missing arguments, or not yet. */
export type AnswerTake =
  | { kind: 'tool_result'; content: string }
  | { kind: 'arguments'; args: Record<string, unknown> }
  | { kind: 'ask_again'; args: Record<string, unknown>; question: string; choices: string[] };

export type RunMachineEvent =
  | {
      type: 'thread_busy';
      at: number;
      position: number;
      /** The run the thread is busy with, when it waits for a person: the line then says for whom. */
      behind?: {
        requester: string;
        waitsFor: { kind: 'answer'; who: string } | { kind: 'approval'; tool: string };
      };
    }
  /**
   * A gateway hands the run to the queue, and shows it at once: working when some worker was heard from lately,
   * or waiting for one when none was.
   */
  | { type: 'handed_to_queue'; at: number; workers: 'seen' | 'none' }
  /** A worker starts the run; on its first start, with the thread's context as it stands then. */
  | { type: 'work_started'; at: number; threadSummary?: string }
  | { type: 'calls_planned'; at: number; calls: PlannedCall[] }
  /** The plan engine's model made a plan, or a new one after a step failed (round 2); without its message id. */
  | { type: 'plan_made'; at: number; plan: Omit<StepPlan, 'messageId'> }
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
      /** What the run keeps to decide the approval by itself: the binding, who may approve, what was shown. */
      decides: Required<Pick<PendingApproval, 'bindingHash' | 'approvers' | 'reason'>> &
        Pick<PendingApproval, 'willRun' | 'impact' | 'grantOffer' | 'freeText' | 'confirm' | 'review'> & {
          displayArgs: unknown;
          /** How many distinct approvers the call needs; 1 when absent. */
          approvals?: 1 | 2;
        };
      /** The reviewer's model call, counted in the run's usage like any other; absent when none answered. */
      reviewUsage?: ModelUsage;
    }
  /** An approve click that counts toward a call needing more approvers than it has: the run keeps waiting. */
  | { type: 'approval_counted'; at: number; approvalId: string; by: Actor }
  | {
      type: 'approval_decided';
      at: number;
      approvalId: string;
      decision: 'approve' | 'deny';
      by: Actor;
      reason?: string;
      /** Approved for a while: what the grant made with it covers, for the card ("for 1h, until 13:05 UTC …"). */
      granted?: string;
      /** False when the approved call is not the call waiting to run: it is then refused, never run. */
      bound: boolean;
      stopOnDenial: boolean;
    }
  | { type: 'approval_expired'; at: number; approvalId: string; stopOnDenial: boolean }
  | { type: 'execution_started'; at: number; call: PlannedCall; displayArgs: unknown }
  | { type: 'execution_finished'; at: number; call: PlannedCall; outcome: RecordedOutcome }
  | {
      type: 'finished';
      at: number;
      answer: string;
      ok: boolean;
      details?: ResultDetails;
      /** The answer came from a last turn without tools: its notes say why, and what the run met. */
      wrapUp?: WrapUp;
    }
  | { type: 'engine_switched'; at: number; engine: 'command'; reason: string }
  | {
      type: 'stuck';
      at: number;
      reason: string;
      /** The id of the ask_user call the kernel makes on the run's behalf. */
      callId: string;
      expiresAt: number;
    }
  | { type: 'failed'; at: number; code: string; message: string }
  | { type: 'cancelled'; at: number; by: Actor }
  | { type: 'action_interrupted'; at: number }
  | { type: 'message_posted'; slot: MessageSlot; messageId: string };

export type RunMachineEventType = RunMachineEvent['type'];
export type ResultDetails = { tool: string; summary: string; data?: unknown }[];

export type Next = { run: Run; effects: RunEffect[] };
