// What the kernel needs from a model: one chat completion, with tools, that the OpenAI client implements.
import type { ModelMessage, ModelToolCall } from '../model-message.js';
import type { ModelRetry } from './model-retry.js';

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
