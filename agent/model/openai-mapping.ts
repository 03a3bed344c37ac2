// Translates our transcript to OpenAI chat completion params and checks the reply before anything reads it.
import { randomUUID } from 'node:crypto';
import type OpenAI from 'openai';
import { z } from 'zod';
import type { ModelMessage } from '../model-message.js';
import type { ModelReply, ModelToolSpec } from './model-port.js';

type ChatMessageParam = OpenAI.Chat.Completions.ChatCompletionMessageParam;
type ChatTool = OpenAI.Chat.Completions.ChatCompletionFunctionTool;

/**
 * By message: a run's messages are never changed once made and are sent again on every later turn, so each is
 * mapped once. The SDK only serializes what it is given.
 */
const mappedMessages = new WeakMap<ModelMessage, ChatMessageParam>();

export function toOpenAIMessages(messages: readonly ModelMessage[]): ChatMessageParam[] {
  return messages.map((message) => {
    let mapped = mappedMessages.get(message);
    if (mapped === undefined) {
      mapped = toOpenAIMessage(message);
      mappedMessages.set(message, mapped);
    }
    return mapped;
  });
}

function toOpenAIMessage(message: ModelMessage): ChatMessageParam {
  if (message.role === 'tool') {
    return { role: 'tool', tool_call_id: message.toolCallId, content: message.content };
  }
  if (message.role !== 'assistant') return { role: message.role, content: message.content };
  const toolCalls = message.toolCalls ?? [];
  // OpenAI refuses a null content without tool calls, and some servers refuse an empty tool_calls list.
  if (toolCalls.length === 0) return { role: 'assistant', content: message.content ?? '' };
  return {
    role: 'assistant',
    content: message.content,
    tool_calls: toolCalls.map((call) => ({
      id: call.id,
      type: 'function',
      function: { name: call.name, arguments: call.arguments },
    })),
  };
}

/**
 * By tool list: the react engine passes a run the same list object on every turn, so its tools are mapped once
 * per run, in the list's order, and every request carries the very same objects (the same bytes on the wire).
 * A list must not be changed once it has been sent.
 */
const mappedTools = new WeakMap<readonly ModelToolSpec[], ChatTool[]>();

export function toOpenAITools(tools: readonly ModelToolSpec[]): ChatTool[] {
  let mapped = mappedTools.get(tools);
  if (mapped === undefined) {
    mapped = tools.map((tool) => ({
      type: 'function',
      function: { name: tool.name, description: tool.description, parameters: tool.parameters },
    }));
    mappedTools.set(tools, mapped);
  }
  return mapped;
}

// Lenient on purpose: OpenAI-compatible servers (Ollama, vLLM, proxies) differ in the optional fields.
const ReplyToolCallSchema = z.object({
  id: z.string().nullish(),
  function: z.object({
    name: z.string(),
    arguments: z.union([z.string(), z.record(z.string(), z.unknown())]).nullish(),
  }),
});

const CompletionSchema = z.object({
  choices: z
    .array(
      z.object({
        finish_reason: z.string().nullish(),
        message: z.object({
          content: z.string().nullish(),
          tool_calls: z.array(ReplyToolCallSchema).nullish(),
        }),
      }),
    )
    .min(1, 'expected at least one choice'),
  usage: z.object({ prompt_tokens: z.number().nullish(), completion_tokens: z.number().nullish() }).nullish(),
});

export type CompletionCheck = { ok: true; reply: ModelReply } | { ok: false; problem: string };

/** Checks the shape of a chat completion body; `problem` says in plain words what was wrong. */
export function readCompletion(body: unknown): CompletionCheck {
  if (typeof body === 'string') return { ok: false, problem: `the body is not JSON: ${preview(body)}` };
  const parsed = CompletionSchema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? `${issue.path.join('.')}: ` : '';
    return {
      ok: false,
      problem: `it is not a chat completion (${where}${issue?.message ?? 'unexpected shape'})`,
    };
  }
  const choice = parsed.data.choices[0]!;
  const usage = parsed.data.usage;
  return {
    ok: true,
    reply: {
      content: choice.message.content ?? null,
      toolCalls: (choice.message.tool_calls ?? []).map((call) => ({
        // Some servers omit ids, but each tool message must answer one.
        id: call.id || `call_${randomUUID()}`,
        name: call.function.name,
        arguments:
          typeof call.function.arguments === 'string'
            ? call.function.arguments
            : JSON.stringify(call.function.arguments ?? {}),
      })),
      finishReason: choice.finish_reason ?? 'unknown',
      usage: {
        promptTokens: usage?.prompt_tokens ?? 0,
        completionTokens: usage?.completion_tokens ?? 0,
      },
    },
  };
}

export function preview(text: string, max = 200): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return JSON.stringify(flat.length > max ? `${flat.slice(0, max)}…` : flat);
}
