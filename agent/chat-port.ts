// What the kernel needs from a chat platform: post and update messages in a conversation. Nothing more.
import type { CallReview } from './call-review/call-review.js';
import type { Conversation } from './conversation.js';
import type { PlanStepState } from './plan-progress.js';

export type MessageTone = 'info' | 'working' | 'success' | 'warning' | 'error';

/** A platform-neutral message. Adapters render it to Block Kit, Discord components, HTML or a terminal. */
export type OutboundMessage =
  | { kind: 'text'; text: string; tone?: MessageTone }
  | {
      kind: 'status';
      runId: string;
      text: string;
      tone: MessageTone;
      /** While the run works or waits: the line offers Cancel (the requester and admins may). */
      cancellable?: boolean;
    }
  | {
      kind: 'question';
      runId: string;
      question: string;
      choices: string[];
      /** Who may answer, for the adapter to show. */
      askedOf: string;
      /**
       * Set once answered: the question then shows the answer and loses its buttons. `closed` says it closed
       * without an answer: cancelled (`by` is who cancelled the run) or expired (nobody answered in time).
       */
      answered?: { by: string; answer: string; at: number; closed?: 'cancelled' | 'expired' };
    }
  | {
      kind: 'approval';
      runId: string;
      approvalId: string;
      requester: string;
      tool: string;
      /** The exact arguments, already redacted. */
      argumentsJson: string;
      reason: string;
      approvers: string[];
      expiresAt: number;
      /**
       * Under the two-person rule: how many approvals the call needs and who has approved so far. While it
       * waits the card shows "1 of 2 approvals: Bob" and keeps its buttons.
       */
      progress?: { needed: number; approvedBy: string[] };
      /** The exact command the call will run, its arguments filled in and redacted, when the tool can say. */
      willRun?: string;
      /** The tool's own one line on what running it does ("restarts the api; about 20 s of 502s"). */
      impact?: string;
      /** A danger tool's parameters whose values are any text the model chose: the card calls them out. */
      freeText?: string[];
      /**
       * A Confirm card: the requester did not ask for this write, and only they may confirm or deny it. The
       * buttons read Confirm and Deny, and the card says why it asks.
       */
      confirm?: boolean;
      /**
       * The reviewer's advice on the call (a verdict and its reasons, or why there is none); absent when the call
       * was not reviewed. A `contradicted` verdict is shown as a warning; it never takes the buttons away.
       */
      review?: CallReview;
      /**
       * Approving for a while, besides once: the grant lengths as settings text ("1h"), and the patterns an
       * approver may pick, by name with what they let vary ("any service in api, worker").
       */
      grants?: { durations: string[]; patterns: { name: string; text: string }[] };
      /** Set once decided: the card then shows the outcome and loses its buttons. */
      decision?: {
        /** withdrawn: the run was cancelled while it waited; `by` is who cancelled it. */
        outcome: 'approved' | 'denied' | 'expired' | 'withdrawn';
        by: string;
        at: number;
        reason?: string;
        /** Approved for a while: what the grant covers and until when, shown with the outcome. */
        granted?: string;
      };
    }
  | {
      kind: 'result';
      runId: string;
      text: string;
      ok: boolean;
      /** A call the rules refused, which did not run: shown as "Refused", not "Failed". */
      refused?: boolean;
      /** Structured tool results to render as tables or fields. */
      details?: { tool: string; summary: string; data?: unknown }[];
    }
  | PlanChecklistMessage
  | PatrolReportMessage
  | AlertGroupMessage;

/** One step of a plan's checklist: its tool, the model's reason, how it stands, and the tool's own summary. */
export type PlanChecklistStep = {
  /** 1-based across the whole plan, re-planned steps included. */
  number: number;
  tool: string;
  /** The model's reason for the step: model text, shown escaped. */
  why?: string;
  state: PlanStepState;
  /** The tool's summary once it ran (redacted), or why it waits or was skipped. */
  summary?: string;
};

/** The plan engine's plan as a checklist in the thread: posted when the plan is made, updated as steps finish. */
export type PlanChecklistMessage = {
  kind: 'plan';
  runId: string;
  /** 2 once the model made a new plan after a step failed. */
  round: number;
  steps: PlanChecklistStep[];
};

/** One check's line in a patrol report: what changed, its figure, and what it was before since when. */
export type PatrolReportLine = {
  checkId: string;
  tool: string;
  /** What this line reports. */
  change: 'firing' | 'severity_changed' | 'resolved' | 'error' | 'flapping' | 'reminder' | 'still_failing';
  /** The check's severity now; absent for resolved and error lines. */
  severity?: 'warn' | 'critical';
  /** The tool's own summary: its figure and threshold, e.g. "/ is 93% full (limit 90%)". Redacted. */
  detail: string;
  /** The state before this change, in words ("ok", "critical"), and since when it held. */
  previous: string;
  since: number;
};

/** A patrol's report: posted only when something changed, updated in place when it resolves or is acked. */
export type PatrolReportMessage = {
  kind: 'patrol_report';
  /** Opaque id of the stored report, carried by its buttons. */
  reportId: string;
  patrol: string;
  runId: string;
  /** The worst of the report's lines; `resolved` when every check in it is fine again. */
  level: 'critical' | 'warn' | 'error' | 'resolved' | 'flapping';
  lines: PatrolReportLine[];
  /** A model's short summary of what changed, when the patrol has a `task` and a model is configured. */
  summary?: string;
  /** The run was a catch-up after downtime, not its scheduled tick. */
  late?: boolean;
  nextRunAt?: number;
  timezone: string;
  /** When the report was first posted; a resolved report says how long it was open. */
  openedAt?: number;
  /** Set once every check in it is fine again: the header shows it resolved. */
  resolvedAt?: number;
  /** Set once somebody acked it: reminders stop. */
  acked?: { by: string; at: number };
  /** Set while the report's checks are snoozed. */
  snoozedUntil?: number;
  /** Buttons are shown only while the report is open (not resolved). */
  buttons: boolean;
};

/** One alert in an alert group's message: outside data (Alertmanager's labels and annotations), shown escaped. */
export type AlertLine = {
  /** The labels that tell this alert from the others of its group. */
  labels: Record<string, string>;
  /** Its `summary` (or `description`) annotation. */
  summary?: string;
  since: number;
};

/**
 * An Alertmanager group's thread: the root shows the group now and is edited in place; a change is a reply in
 * its thread saying which alerts joined or resolved.
 */
export type AlertGroupMessage = {
  kind: 'alert_group';
  /** Opaque id of the stored group, carried by its buttons. */
  groupId: string;
  part: 'root' | 'change';
  status: 'firing' | 'resolved';
  groupLabels: Record<string, string>;
  /** The root: the alerts firing (or last firing, once resolved). A change: those that joined. */
  alerts: AlertLine[];
  /** A change: the alerts that resolved. */
  resolved?: AlertLine[];
  /** How many fire now. */
  firingCount: number;
  openedAt: number;
  resolvedAt?: number;
  /** Where to look: the alert's generatorURL, or Alertmanager's externalURL. */
  link?: string;
  /** opsbot's own word on the investigation ("not investigated automatically: 30 this hour"). */
  note?: string;
  acked?: { by: string; at: number };
  /** A silence a Silence button made, while it lasts: who asked, until when, for how long, and its id. */
  silenced?: { by: string; until: number; duration: string; silenceId?: string };
  /**
   * Buttons while the group fires: Ack until acked, with a model Investigate (Run again once a run started), and
   * with an Alertmanager configured Silence 1 h / 4 h (none while silenced).
   */
  buttons: false | { investigate: boolean; investigated: boolean; silence: boolean };
};

export interface MessageRef {
  conversation: Conversation;
  messageId: string;
}

export interface ChatPort {
  post(conversation: Conversation, message: OutboundMessage): Promise<MessageRef>;
  update(ref: MessageRef, message: OutboundMessage): Promise<void>;
}

/** A ChatPort that drops everything, for runs nobody is watching. */
export const nullChatPort: ChatPort = {
  async post(conversation) {
    return { conversation, messageId: 'null' };
  },
  async update() {},
};
