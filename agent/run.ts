// A Run: one task being carried out, as a versioned record that is a union on its status, plus an event list.
import { z } from 'zod';
import { CallReviewSchema } from './call-review/call-review.js';
import { ConversationSchema } from './conversation.js';
import { ModelMessageSchema, UsageSchema } from './model-message.js';
import { ApproverSetSchema } from './policy/approver-set.js';
import { GrantOfferSchema } from './policy/grant-offer.js';
import { PrincipalSchema } from './principal.js';
import { EngineKindSchema } from './run-engine-kind.js';
import { RunEventSchema } from './run-events.js';
import { StepPlanSchema } from './step-plan.js';

export { type RunEvent, RunEventSchema, type RunEventType } from './run-events.js';

/** Bump when the stored shape changes, and add a migration in run-migrations.ts. */
export const RUN_SCHEMA_VERSION = 4;

export const RUN_STATUSES = [
  'queued',
  'running',
  'executing',
  'waiting_for_user',
  'waiting_for_approval',
  'finished',
  'failed',
  'cancelled',
  'expired',
  'outcome_unknown',
] as const;
export const RunStatusSchema = z.enum(RUN_STATUSES);
export type RunStatus = z.infer<typeof RunStatusSchema>;

export const TERMINAL_STATUSES: ReadonlySet<RunStatus> = new Set([
  'finished',
  'failed',
  'cancelled',
  'expired',
  'outcome_unknown',
]);

export { type EngineKind, EngineKindSchema } from './run-engine-kind.js';

/** A tool call the run intends to make, with its arguments parsed (or the reason they could not be). */
export const PlannedCallSchema = z.object({
  id: z.string(),
  name: z.string(),
  rawArguments: z.string(),
  args: z.record(z.string(), z.unknown()).nullable(),
  parseError: z.string().optional(),
  /** What the model said alongside the call: its stated reason. */
  reason: z.string().optional(),
  /**
   * Set once an approver approved exactly this call: the worker then runs it, once. A call run under an approval
   * grant names the grant and when it ends; its approval is the one the grant was made with.
   */
  approved: z
    .object({
      approvalId: z.string(),
      by: z.string(),
      grantId: z.string().optional(),
      until: z.number().optional(),
    })
    .optional(),
});
export type PlannedCall = z.infer<typeof PlannedCallSchema>;

export const QuestionSchema = z.object({
  question: z.string(),
  choices: z.array(z.string()).default([]),
  /** The call that asked: the built-in ask_user, or a call missing required arguments. */
  call: PlannedCallSchema,
  missingFields: z.array(z.string()).default([]),
  askedAt: z.number(),
  expiresAt: z.number(),
  /** The question's message in the thread, updated with the answer. */
  messageId: z.string().optional(),
});
export type Question = z.infer<typeof QuestionSchema>;

/** One approver's approve click, counted toward a call that needs more than one. */
export const ApprovedBySchema = z.object({ key: z.string(), displayName: z.string(), at: z.number() });
export type ApprovedBy = z.infer<typeof ApprovedBySchema>;

export const PendingApprovalSchema = z.object({
  approvalId: z.string(),
  call: PlannedCallSchema,
  requestedAt: z.number(),
  expiresAt: z.number(),
  /**
   * What the approver is shown and decides on, kept with the run since v4: the hash binding the approval to the
   * run, step, tool, exact arguments and requester; who may approve; the model's reason; the redacted arguments.
   * Absent only in a run stored before v4 whose approval record has not been copied in yet (see
   * approval-fields-backfill.ts).
   */
  bindingHash: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .optional(),
  approvers: ApproverSetSchema.optional(),
  reason: z.string().optional(),
  displayArgs: z.unknown().optional(),
  /** What the card says will happen, redacted: the exact command line, and the tool's one-line impact. */
  willRun: z.string().optional(),
  impact: z.string().optional(),
  /** The approval card in the thread, updated when the approval is decided, expires or is withdrawn. */
  cardMessageId: z.string().optional(),
  /**
   * How many distinct approvers the call needs: 2 under the two-person rule (a tool's `approvals`, or a role's
   * `two_person`).
   */
  approvals: z.union([z.literal(1), z.literal(2)]).default(1),
  /** The approvals counted so far, short of `approvals`: kept with the run, so a restart loses none of them. */
  approvedBy: z.array(ApprovedBySchema).default([]),
  /** What the card offers besides approving once: grant lengths, and patterns; absent when it takes no grants. */
  grantOffer: GrantOfferSchema.optional(),
  /** A danger tool's parameters the model fills with any text (no enum or pattern): the card names them. */
  freeText: z.array(z.string()).optional(),
  /**
   * A Confirm, not an approval: a write the requester did not ask for, proposed after the run read outside data.
   * Only the requester may decide it (see policy/unrequested-call.ts).
   */
  confirm: z.literal(true).optional(),
  /**
   * The reviewer's verdict on the call, or why there is none, shown on the card: advice for the approver, never
   * part of the decision. Absent when no review was asked for (no model, switched off, or a run stored before).
   */
  review: CallReviewSchema.optional(),
});
export type PendingApproval = z.infer<typeof PendingApprovalSchema>;

export const ExecutingSchema = z.object({ call: PlannedCallSchema, startedAt: z.number() });

/** A write or danger call that ran and failed: whatever the model says afterwards, the run ends with a problem. */
export const FailedActionSchema = z.object({
  callId: z.string(),
  tool: z.string(),
  summary: z.string(),
  at: z.number(),
  /** The tool and its canonical arguments: the same call succeeding later in the run clears the failure. */
  signature: z.string().optional(),
});
export type FailedAction = z.infer<typeof FailedActionSchema>;

const base = {
  schemaVersion: z.literal(RUN_SCHEMA_VERSION),
  id: z.string(),
  engine: EngineKindSchema,
  principal: PrincipalSchema,
  conversation: ConversationSchema,
  task: z.string(),
  createdAt: z.number(),
  updatedAt: z.number(),
  /** Model turns (react) or commands (command) taken so far. */
  step: z.number().int().nonnegative(),
  usage: UsageSchema,
  /** The working transcript sent to the model (system prompt excluded; it is rebuilt from the prompt files). */
  messages: z.array(ModelMessageSchema),
  /** Summary of the thread's earlier runs, shown to the model as context. */
  threadSummary: z.string().optional(),
  /** Calls from the latest model turn still to be made. */
  queue: z.array(PlannedCallSchema),
  /** Results of calls made earlier in this run, by call signature, for duplicate detection. */
  completedCalls: z.record(
    z.string(),
    z.object({
      callId: z.string(),
      content: z.string(),
      /** When the result was made, so a repeat can say how old it is (absent in runs saved before it was kept). */
      at: z.number().optional(),
      /** A write or danger call's result: kept when an action drops the run's read results. */
      action: z.boolean().optional(),
      /** A read that ran and failed: made again, it is not run but answered with this failure (a loop guard). */
      failed: z.boolean().optional(),
      /** The step it ran at and its summary, for the failure's repeat: "failed the same way at step 2: …". */
      step: z.number().int().nonnegative().optional(),
      summary: z.string().optional(),
    }),
  ),
  /** Time spent working (not waiting for people), for the wall-time budget. */
  activeMs: z.number().nonnegative(),
  /** The chat message that shows the run's progress. */
  statusMessageId: z.string().optional(),
  /**
   * What that message shows now (its tone, text and whether it offers Cancel), so the same status is not sent
   * again: a gateway's "Working on it…" is not rewritten by the worker that starts the run.
   */
  statusShown: z.string().optional(),
  /** For the checks engine: the calls to make, all at once, and what a model should summarize afterwards. */
  plan: z.object({ calls: z.array(PlannedCallSchema).min(1), summaryTask: z.string().optional() }).optional(),
  /** For the plan engine: the model's plan and its round; its progress is read from the events (v4, optional). */
  stepPlan: StepPlanSchema.optional(),
  /** A run kept only this long after it ends (patrol runs), with no place in its thread's memory. */
  keepForMs: z.number().int().positive().optional(),
  /**
   * A button's short run of one call (the alert group's Silence) that runs beside its thread's active run: it never
   * takes the thread's lock nor waits in its line, and its end frees nothing there. Absent for every other run.
   */
  alongside: z.literal(true).optional(),
  /** How many times the current missing-argument question was asked, to stop asking in circles. */
  askAttempts: z.number().int().nonnegative().default(0),
  /** The run's write and danger calls that failed, oldest first (v3). */
  failedActions: z.array(FailedActionSchema).default([]),
  events: z.array(RunEventSchema),
};

export const RunSchema = z.discriminatedUnion('status', [
  z.object({ ...base, status: z.literal('queued') }),
  z.object({ ...base, status: z.literal('running') }),
  z.object({ ...base, status: z.literal('executing'), executing: ExecutingSchema }),
  z.object({ ...base, status: z.literal('waiting_for_user'), question: QuestionSchema }),
  z.object({ ...base, status: z.literal('waiting_for_approval'), approval: PendingApprovalSchema }),
  /** ok is false for "done, with a problem": a failed check, or a write or danger action that failed. */
  z.object({ ...base, status: z.literal('finished'), answer: z.string(), ok: z.boolean().default(true) }),
  z.object({
    ...base,
    status: z.literal('failed'),
    error: z.object({ code: z.string(), message: z.string() }),
  }),
  z.object({
    ...base,
    status: z.literal('cancelled'),
    cancelled: z.object({ by: z.string(), at: z.number() }),
  }),
  z.object({
    ...base,
    status: z.literal('expired'),
    expired: z.object({ message: z.string(), at: z.number() }),
  }),
  z.object({ ...base, status: z.literal('outcome_unknown'), unknownCall: PlannedCallSchema }),
]);
export type Run = z.infer<typeof RunSchema>;
export type RunIn<S extends RunStatus> = Extract<Run, { status: S }>;
/** The fields every run has, whatever its status. */
export type RunBase = Omit<RunIn<'running'>, 'status'>;

export function isTerminal(status: RunStatus): boolean {
  return TERMINAL_STATUSES.has(status);
}

/** Where a run stops needing a worker: it ended, or it waits for a person. */
export function isSettled(status: RunStatus): boolean {
  return isTerminal(status) || status === 'waiting_for_user' || status === 'waiting_for_approval';
}

/** A run needs its thread while it works or waits for an approver; a question is answered by a reply there. */
export function holdsThread(status: RunStatus): boolean {
  return !isTerminal(status) && status !== 'waiting_for_user';
}

/** What the run is waiting for, for people and indexes: a person's answer, an approval, or nothing. */
export function waitingUntil(run: Run): number | undefined {
  if (run.status === 'waiting_for_user') return run.question.expiresAt;
  if (run.status === 'waiting_for_approval') return run.approval.expiresAt;
  return undefined;
}
