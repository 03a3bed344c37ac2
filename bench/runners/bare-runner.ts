// The floor: a tool loop written directly on the openai SDK, with no persistence, guards or trace. With `fetch`,
// the same loop on another HTTP client (the kernel's own undici fetch, model-fetch.ts, for bare-transport).
import OpenAI from 'openai';
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import { BUILTIN_TOOLS } from '../../agent/builtin-tools.js';
import { renderPrompt } from '../../agent/prompts.js';
import { toolParametersSchema } from '../../agent/tool.js';
import { ReadStatusInput, readStatus, TOOL_DESCRIPTION, ToolCounter } from '../bench-tool.js';
import { FINAL_ANSWER, TASK, TOOL_NAME, TURNS_PER_RUN } from '../scripted-run.js';
import { API_KEY, BrokenRunError, MODEL, type Runner } from './runner.js';

export function bareRunner(
  baseURL: string,
  options: { name?: 'bare' | 'bare-transport'; fetch?: typeof fetch } = {},
): Runner {
  const client = new OpenAI({ baseURL, apiKey: API_KEY, ...(options.fetch ? { fetch: options.fetch } : {}) });
  // The same work per model turn as the kernel's: the same system prompt and the same tool list (the
  // kernel also offers its built-in ask_user and finish), so the ratio measures the kernel, not the payload.
  const tools: ChatCompletionTool[] = [
    { name: TOOL_NAME, description: TOOL_DESCRIPTION, input: ReadStatusInput },
    ...BUILTIN_TOOLS.map((tool) => ({ name: tool.name, description: tool.description, input: tool.input })),
  ].map((tool) => ({
    type: 'function',
    function: {
      name: tool.name,
      description: tool.description,
      parameters: toolParametersSchema(tool.input),
    },
  }));
  const systemPrompt = renderPrompt('system', {
    bot_name: 'opsbot',
    requester: 'bench',
    channel: 'channel bench (thread bench)',
    now: new Date().toISOString(),
  });
  const counter = new ToolCounter();
  return {
    name: options.name ?? 'bare',
    tools: counter,
    async runOnce(label) {
      const messages: ChatCompletionMessageParam[] = [
        { role: 'system', content: systemPrompt },
        { role: 'user', content: TASK },
      ];
      let turns = 0;
      for (;;) {
        const completion = await client.chat.completions.create({ model: MODEL, messages, tools });
        turns += 1;
        const message = completion.choices[0]?.message;
        if (!message) throw new BrokenRunError(`bare run ${label}: turn ${turns} had no message`);
        messages.push(message);
        const calls = message.tool_calls ?? [];
        if (calls.length === 0) {
          if (message.content !== FINAL_ANSWER || turns !== TURNS_PER_RUN) {
            throw new BrokenRunError(
              `bare run ${label}: ended after ${turns} model turns (expected ${TURNS_PER_RUN}) with ${JSON.stringify(message.content)}`,
            );
          }
          return turns;
        }
        if (turns > TURNS_PER_RUN)
          throw new BrokenRunError(`bare run ${label}: more than ${TURNS_PER_RUN} turns`);
        for (const call of calls) {
          if (call.type !== 'function' || call.function.name !== TOOL_NAME) {
            throw new BrokenRunError(`bare run ${label}: unexpected tool call ${JSON.stringify(call)}`);
          }
          const result = await readStatus(
            counter,
            JSON.parse(call.function.arguments) as { service: string },
          );
          messages.push({ role: 'tool', tool_call_id: call.id, content: JSON.stringify(result) });
        }
      }
    },
    async close() {},
  };
}
