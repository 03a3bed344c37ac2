// What the kernel needs from a model: one chat completion, with tools, that the OpenAI client implements.
import type { ModelMessage, ModelToolCall } from '../model-message.js';

export interface ModelToolSpec {
  name: string;
  description: string;
  /** JSON Schema for the arguments object. */
  parameters: Record<string, unknown>;
}

export interface ModelReply {
  content: string | null;
  toolCalls: ModelToolCall[];
  finishReason: string;
  usage: { promptTokens: number; completionTokens: number };
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

export interface ModelRequest {
  messages: ModelMessage[];
  tools: ModelToolSpec[];
  signal?: AbortSignal;
  /** Told when an attempt failed and the call will be tried again, before the wait for that retry. */
  onRetry?: (retry: ModelRetry) => void;
}

export interface ModelClient {
  readonly model: string;
  complete(request: ModelRequest): Promise<ModelReply>;
}
