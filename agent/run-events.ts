// The append-only events of a run: what happened, in order, for status, traces and the CLI's step printer.
import { z } from 'zod';
import { EngineKindSchema } from './run-engine-kind.js';

const eventBase = { at: z.number(), step: z.number().int().nonnegative() };

export const RunEventSchema = z.discriminatedUnion('type', [
  z.object({ ...eventBase, type: z.literal('task_received'), text: z.string(), engine: EngineKindSchema }),
  z.object({
    ...eventBase,
    type: z.literal('model_turn'),
    content: z.string().nullable(),
    toolCalls: z.array(z.object({ id: z.string(), name: z.string() })),
    /** The calls were read from the reply's text (a model that writes them there), not its tool_calls. */
    textToolCalls: z.boolean().optional(),
    promptTokens: z.number(),
    completionTokens: z.number(),
    durationMs: z.number(),
  }),
  /** The plan engine's model made a plan (round 1) or a new one after a step failed (round 2). */
  z.object({
    ...eventBase,
    type: z.literal('plan_made'),
    round: z.number().int().positive(),
    steps: z.array(z.object({ callId: z.string(), tool: z.string(), dependsOn: z.array(z.string()) })),
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
    /** Whether the tool really ran (absent in runs saved before it was kept): what a tool's budget counts. */
    ran: z.boolean().optional(),
  }),
  /** A call refused because its tool's budget for the run was spent: its budget and the setting that sets it. */
  z.object({
    ...eventBase,
    type: z.literal('tool_budget_spent'),
    callId: z.string(),
    tool: z.string(),
    calls: z.number().int().positive(),
    setting: z.string(),
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
    /** The call waiting; absent in events recorded before approvals were kept with the run. */
    callId: z.string().optional(),
    expiresAt: z.number().optional(),
    /** The arguments as the card showed them (redacted). */
    args: z.unknown().optional(),
  }),
  z.object({
    ...eventBase,
    type: z.literal('approval_decided'),
    approvalId: z.string(),
    decision: z.enum(['approved', 'denied', 'expired', 'withdrawn']),
    by: z.string(),
    /** Who decided, as people know them; absent in older events, which kept only the key. */
    byName: z.string().optional(),
    reason: z.string().optional(),
  }),
  /** One approval of a call that needs more than one (the two-person rule): `count` of `needed` so far. */
  z.object({
    ...eventBase,
    type: z.literal('approval_counted'),
    approvalId: z.string(),
    by: z.string(),
    byName: z.string(),
    count: z.number().int().positive(),
    needed: z.number().int().positive(),
  }),
  z.object({ ...eventBase, type: z.literal('executing'), callId: z.string(), tool: z.string() }),
  z.object({
    ...eventBase,
    type: z.literal('context_compressed'),
    beforeTokens: z.number(),
    afterTokens: z.number(),
  }),
  /** Older tool outputs cut to their summaries (`model.keep_tool_outputs`): how many, and how many turns kept theirs. */
  z.object({
    ...eventBase,
    type: z.literal('tool_outputs_cut'),
    count: z.number().int().positive(),
    keptTurns: z.number().int().positive(),
  }),
  z.object({ ...eventBase, type: z.literal('post_failed'), message: z.string() }),
  z.object({ ...eventBase, type: z.literal('resumed'), by: z.string() }),
  /** The model could not be reached, so the typed command runs on the command engine; the reason says since when. */
  z.object({
    ...eventBase,
    type: z.literal('engine_switched'),
    engine: EngineKindSchema,
    reason: z.string(),
  }),
  /** The run was not getting anywhere, and asked its requester how to go on (agent/run-progress.ts). */
  z.object({ ...eventBase, type: z.literal('stuck'), reason: z.string() }),
  z.object({
    ...eventBase,
    type: z.literal('finished'),
    answer: z.string(),
    /** The answer was asked for without tools: at the step limit, or because the requester said to stop. */
    wrapUp: z.enum(['step_limit', 'requester']).optional(),
  }),
  z.object({ ...eventBase, type: z.literal('failed'), code: z.string(), message: z.string() }),
  z.object({ ...eventBase, type: z.literal('cancelled'), by: z.string() }),
  z.object({ ...eventBase, type: z.literal('expired'), message: z.string() }),
  z.object({ ...eventBase, type: z.literal('outcome_unknown'), callId: z.string(), tool: z.string() }),
]);
export type RunEvent = z.infer<typeof RunEventSchema>;
export type RunEventType = RunEvent['type'];
