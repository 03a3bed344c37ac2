// What the kernel needs from a model: one chat completion, with tools, that the OpenAI client implements.
import type { ModelMessage, ModelToolCall } from '../model-message.js';

export interface ModelToolSpec {
  name: string;
  description: string;
  /** JSON Schema for the arguments object. */
  parameters: Record<string, unknown>;
}

/** What one model call cost, as the server counted it. */
export interface ModelUsage {
  promptTokens: number;
  completionTokens: number;
}

export interface ModelReply {
  content: string | null;
  toolCalls: ModelToolCall[];
  finishReason: string;
  usage: ModelUsage;
}

/** A model call whose attempt failed and that will be tried again. */
export interface ModelRetry {
  /** The attempt about to start: 2 for the first retry. */
  attempt: number;
  /** Every attempt the call may make, the first included. */
  attempts: number;
  /** Why the last attempt failed, for people: "no answer within 60 s", "the server answered 503 …". */
  problem: string;
}

/**
 * What a call is for, which picks its output cap (`model.max_output_tokens`) and, for summaries, its model:
 * a turn of the tool loop, the summary of older turns when a run's context is compressed, a patrol's summary.
 */
export const MODEL_PURPOSES = ['tool_loop', 'context_summary', 'patrol_summary'] as const;
export type ModelPurpose = (typeof MODEL_PURPOSES)[number];

/** A model call held back before it is sent, so that this process stays within its rate limit. */
export interface ModelWait {
  /** Calls waiting ahead of this one. */
  queued: number;
  /** `rate`: the requests per second; `in_flight`: the calls open at once; `server`: a 429's Retry-After. */
  reason: 'rate' | 'in_flight' | 'server';
}

export interface ModelRequest {
  messages: ModelMessage[];
  tools: ModelToolSpec[];
  /** Absent (probes, tests): no output cap is sent. */
  purpose?: ModelPurpose;
  signal?: AbortSignal;
  /** Told when an attempt failed and the call will be tried again, before the wait for that retry. */
  onRetry?: (retry: ModelRetry) => void;
  /** Told when the call must wait for the rate limit before it is sent. */
  onWaiting?: (wait: ModelWait) => void;
  /** Told when a call that waited is sent after all. */
  onAdmitted?: () => void;
}

/** The model cannot be reached now: since when (this process's first failed call of the streak), and why. */
export interface ModelOutage {
  /** Which model, where: `"llama3" at http://127.0.0.1:11434/v1`. */
  where: string;
  since: number;
  /** The last failure, for people: "connection refused", "no answer within 60 s". */
  reason: string;
}

export interface ModelClient {
  readonly model: string;
  complete(request: ModelRequest): Promise<ModelReply>;
  /** Set while calls fail for want of an answer (or the breaker is open): typed commands then run without it. */
  outage?(): ModelOutage | undefined;
}
