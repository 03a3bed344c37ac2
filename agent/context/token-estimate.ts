// Fast token estimates for prompts, good enough to decide when to compress; never an exact count.
import type { ModelMessage } from '../model-message.js';

/**
 * Role markers and separators the chat format adds around each message. OpenAI documents about 3 to 4;
 * erring high makes compression start a little early rather than a request fail for being too long.
 */
const MESSAGE_OVERHEAD_TOKENS = 4;
/** An assistant tool call also carries its id, type and the function wrapper. */
const TOOL_CALL_OVERHEAD_TOKENS = 8;
/** The reply is primed with the assistant role marker. */
const REPLY_PRIMING_TOKENS = 3;

/**
 * About one token per four bytes of UTF-8, which is the usual rule for English and code with BPE
 * tokenizers. Bytes rather than characters so that non-Latin text, which tokenizes into more pieces
 * per character, is not underestimated. An estimate only: real counts vary by model and content.
 */
export function estimateTokens(text: string): number {
  if (text.length === 0) return 0;
  return Math.ceil(Buffer.byteLength(text, 'utf8') / 4);
}

export function estimateMessageTokens(message: ModelMessage): number {
  switch (message.role) {
    case 'system':
    case 'user':
      return MESSAGE_OVERHEAD_TOKENS + estimateTokens(message.content);
    case 'assistant': {
      let tokens = MESSAGE_OVERHEAD_TOKENS + estimateTokens(message.content ?? '');
      for (const call of message.toolCalls) {
        tokens += TOOL_CALL_OVERHEAD_TOKENS + estimateTokens(call.id) + estimateTokens(call.name);
        tokens += estimateTokens(call.arguments);
      }
      return tokens;
    }
    case 'tool':
      return (
        MESSAGE_OVERHEAD_TOKENS +
        estimateTokens(message.toolCallId) +
        estimateTokens(message.name) +
        estimateTokens(message.content)
      );
  }
}

/** The whole request: every message, the tool definitions as sent (JSON), and the reply priming. */
export function estimatePromptTokens(messages: ModelMessage[], toolsJson?: string): number {
  let tokens = REPLY_PRIMING_TOKENS + (toolsJson ? estimateTokens(toolsJson) : 0);
  for (const message of messages) tokens += estimateMessageTokens(message);
  return tokens;
}
