// A new Run record for a task, and the checks a task must pass before any work starts.
import type { Conversation } from './conversation.js';
import type { Principal } from './principal.js';
import type { Redactor } from './redaction.js';
import { type EngineKind, type PlannedCall, RUN_SCHEMA_VERSION, type RunIn } from './run.js';
import { isModelEngine, type ModelEngineKind } from './run-engine-kind.js';

export interface TaskInput {
  text: string;
  principal: Principal;
  conversation: Conversation;
  /** Forces an engine; by default `modelEngine` when a model is configured (and answers), command otherwise. */
  engine?: EngineKind;
  /**
   * The model engine the task runs on when no engine is forced: `react` when absent. Without a model, or with it
   * unreachable, a typed command still runs on the command engine, whichever is named here.
   */
  modelEngine?: ModelEngineKind;
  /** The run's id, when the caller needs it before the run starts. */
  runId?: string;
  /** For the checks engine: the calls to make, and an optional task for a model's summary of their results. */
  plan?: { calls: PlannedCall[]; summaryTask?: string };
  /** Keep the ended run only this long, and leave it out of its thread's memory (patrol runs). */
  keepForMs?: number;
  /**
   * Run beside the thread's active run instead of in line behind it: only for a button's short run of one planned
   * call, which a person waits on while an investigation holds the thread (see `alongside` in run.ts).
   */
  alongside?: true;
}

export interface NewRunInput {
  id: string;
  now: number;
  engine: EngineKind;
  text: string;
  principal: Principal;
  conversation: Conversation;
  maxTaskChars: number;
  redactor: Redactor;
  plan?: { calls: PlannedCall[]; summaryTask?: string };
  keepForMs?: number;
  alongside?: true;
}

export function newRun(input: NewRunInput): RunIn<'queued'> {
  const task = input.redactor.redact(input.text.trim().slice(0, input.maxTaskChars));
  return {
    schemaVersion: RUN_SCHEMA_VERSION,
    id: input.id,
    status: 'queued',
    engine: input.engine,
    principal: input.principal,
    conversation: input.conversation,
    task,
    createdAt: input.now,
    updatedAt: input.now,
    step: 0,
    usage: { promptTokens: 0, completionTokens: 0, modelCalls: 0, toolCalls: 0 },
    messages: [],
    queue: [],
    completedCalls: {},
    activeMs: 0,
    askAttempts: 0,
    failedActions: [],
    ...(input.plan ? { plan: input.plan } : {}),
    ...(input.keepForMs ? { keepForMs: input.keepForMs } : {}),
    ...(input.alongside ? { alongside: true as const } : {}),
    events: [{ type: 'task_received', at: input.now, step: 0, text: task, engine: input.engine }],
  };
}

/** Why a task cannot start, in words for the person; undefined when it can. */
export function taskProblem(text: string, engine: EngineKind, maxTaskChars: number): string | undefined {
  const trimmed = text.trim();
  if (trimmed.length === 0) {
    return isModelEngine(engine)
      ? 'The task is empty. Tell me what to check, for example: "is https://example.com up?"'
      : 'The command is empty. Try `help` to list the commands.';
  }
  if (trimmed.length > maxTaskChars) {
    return `The task is ${trimmed.length.toLocaleString('en-US')} characters long; the limit is ${maxTaskChars.toLocaleString('en-US')} (limits.max_task_chars). Shorten it, or attach logs by path instead of pasting them.`;
  }
  return undefined;
}
