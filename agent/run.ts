// A Run: one task being carried out, as a versioned, serializable record with an append-only event list.
import { z } from 'zod';
import { ConversationSchema } from './conversation.js';
import { ModelMessageSchema, UsageSchema } from './model-message.js';
import { PrincipalSchema } from './principal.js';

/** Bump when the stored shape changes, and add a migration in run-migrations.ts. */
export const RUN_SCHEMA_VERSION = 1;

export const RunStatusSchema = z.enum([
  'running',
  'waiting_for_user',
  'waiting_for_approval',
  'finished',
  'failed',
  'cancelled',
  'expired',
  'outcome_unknown',
]);
export type RunStatus = z.infer<typeof RunStatusSchema>;

export const TERMINAL_STATUSES: ReadonlySet<RunStatus> = new Set([
  'finished',
  'failed',
  'cancelled',
  'expired',
  'outcome_unknown',
]);

export const EngineKindSchema = z.enum(['react', 'command']);
export type EngineKind = z.infer<typeof EngineKindSchema>;

/** A tool call the run intends to make, with its arguments parsed (or the reason they could not be). */
export const PlannedCallSchema = z.object({
  id: z.string(),
  name: z.string(),
  rawArguments: z.string(),
  args: z.record(z.string(), z.unknown()).nullable(),
  parseError: z.string().optional(),
  /** What the model said alongside the call: its stated reason. */
  reason: z.string().optional(),
});
export type PlannedCall = z.infer<typeof PlannedCallSchema>;

export const PendingSchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('question'),
    question: z.string(),
    choices: z.array(z.string()).default([]),
    /** The call that asked: the built-in ask_user, or a call missing required arguments. */
    call: PlannedCallSchema,
    missingFields: z.array(z.string()).default([]),
    askedAt: z.number(),
    expiresAt: z.number(),
    /** The question's message in the thread, updated with the answer. */
    messageId: z.string().optional(),
  }),
  z.object({
    kind: z.literal('approval'),
    approvalId: z.string(),
    call: PlannedCallSchema,
    requestedAt: z.number(),
    expiresAt: z.number(),
    /** The approval card in the thread, updated when the approval is decided. */
    cardMessageId: z.string().optional(),
  }),
  z.object({
    kind: z.literal('executing'),
    call: PlannedCallSchema,
    startedAt: z.number(),
  }),
]);
export type Pending = z.infer<typeof PendingSchema>;

const eventBase = { at: z.number(), step: z.number().int().nonnegative() };

export const RunEventSchema = z.discriminatedUnion('type', [
  z.object({ ...eventBase, type: z.literal('task_received'), text: z.string(), engine: EngineKindSchema }),
  z.object({
    ...eventBase,
    type: z.literal('model_turn'),
    content: z.string().nullable(),
    toolCalls: z.array(z.object({ id: z.string(), name: z.string() })),
    promptTokens: z.number(),
    completionTokens: z.number(),
    durationMs: z.number(),
  }),
  z.object({
    ...eventBase,
    type: z.literal('tool_call'),
    callId: z.string(),
    tool: z.string(),
    args: z.unknown(),
  }),
  z.object({
    ...eventBase,
    type: z.literal('tool_result'),
    callId: z.string(),
    tool: z.string(),
    ok: z.boolean(),
    errorClass: z.string().optional(),
    summary: z.string(),
    durationMs: z.number(),
    repeated: z.boolean().default(false),
  }),
  z.object({
    ...eventBase,
    type: z.literal('question_asked'),
    question: z.string(),
    choices: z.array(z.string()),
  }),
  z.object({ ...eventBase, type: z.literal('answer_received'), answer: z.string(), by: z.string() }),
  z.object({
    ...eventBase,
    type: z.literal('approval_requested'),
    approvalId: z.string(),
    tool: z.string(),
  }),
  z.object({
    ...eventBase,
    type: z.literal('approval_decided'),
    approvalId: z.string(),
    decision: z.enum(['approved', 'denied', 'expired']),
    by: z.string(),
    reason: z.string().optional(),
  }),
  z.object({ ...eventBase, type: z.literal('executing'), callId: z.string(), tool: z.string() }),
  z.object({
    ...eventBase,
    type: z.literal('context_compressed'),
    beforeTokens: z.number(),
    afterTokens: z.number(),
  }),
  z.object({ ...eventBase, type: z.literal('post_failed'), message: z.string() }),
  z.object({ ...eventBase, type: z.literal('resumed'), by: z.string() }),
  z.object({ ...eventBase, type: z.literal('finished'), answer: z.string() }),
  z.object({ ...eventBase, type: z.literal('failed'), code: z.string(), message: z.string() }),
  z.object({ ...eventBase, type: z.literal('cancelled'), by: z.string() }),
  z.object({ ...eventBase, type: z.literal('expired'), message: z.string() }),
  z.object({ ...eventBase, type: z.literal('outcome_unknown'), callId: z.string(), tool: z.string() }),
]);
export type RunEvent = z.infer<typeof RunEventSchema>;
export type RunEventType = RunEvent['type'];

export const RunSchema = z.object({
  schemaVersion: z.literal(RUN_SCHEMA_VERSION),
  id: z.string(),
  status: RunStatusSchema,
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
  pending: PendingSchema.nullable(),
  /** Results of calls made earlier in this run, by call signature, for duplicate detection. */
  completedCalls: z.record(z.string(), z.object({ callId: z.string(), content: z.string() })),
  cancelRequestedBy: z.string().optional(),
  /** Time spent working (not waiting for people), for the wall-time budget. */
  activeMs: z.number().nonnegative(),
  /** The chat message that shows the run's progress, updated at the end. */
  statusMessageId: z.string().optional(),
  /** How many times the current missing-argument question was asked, to stop asking in circles. */
  askAttempts: z.number().int().nonnegative().default(0),
  answer: z.string().optional(),
  error: z.object({ code: z.string(), message: z.string() }).optional(),
  events: z.array(RunEventSchema),
});
export type Run = z.infer<typeof RunSchema>;

export function isTerminal(status: RunStatus): boolean {
  return TERMINAL_STATUSES.has(status);
}
