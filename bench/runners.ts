// The three runners compared: a bare loop on the openai SDK (the floor), and the Kernel over two stores.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import { BUILTIN_TOOLS } from '../agent/builtin-tools.js';
import { Kernel } from '../agent/kernel.js';
import { createOpenAIModelClient } from '../agent/model/model-client.js';
import type { Principal } from '../agent/principal.js';
import { renderPrompt } from '../agent/prompts.js';
import { MemoryStore } from '../agent/store/memory-store.js';
import { SqliteStore } from '../agent/store/sqlite-store.js';
import type { Store } from '../agent/store/store.js';
import { toolParametersSchema } from '../agent/tool.js';
import { ReadStatusInput, readStatus, readStatusTool, TOOL_DESCRIPTION, ToolCounter } from './bench-tool.js';
import { FINAL_ANSWER, TOOL_NAME, TOOL_STEPS, TURNS_PER_RUN } from './scripted-run.js';

export const RUNNER_NAMES = ['bare', 'kernel-memory', 'kernel-sqlite'] as const;
export type RunnerName = (typeof RUNNER_NAMES)[number];

export interface Runner {
  readonly name: RunnerName;
  readonly tools: ToolCounter;
  /** Does one whole run and returns its model turns; throws a BrokenRunError unless it finished as scripted. */
  runOnce(label: string): Promise<number>;
  close(): Promise<void>;
}

export class BrokenRunError extends Error {
  override readonly name = 'BrokenRunError';
}

const TASK = 'Are the api, worker and database services healthy?';
const MODEL = 'fake-model';
const API_KEY = 'sk-bench-not-a-real-key';

const operator: Principal = {
  platform: 'cli',
  userId: 'bench',
  displayName: 'Bench',
  roles: ['operator'],
  groups: [],
};

export async function createRunner(name: RunnerName, baseURL: string): Promise<Runner> {
  switch (name) {
    case 'bare':
      return bareRunner(baseURL);
    case 'kernel-memory':
      return kernelRunner(name, baseURL, new MemoryStore(), () => {});
    case 'kernel-sqlite': {
      const dir = mkdtempSync(join(tmpdir(), 'opsbot-bench-'));
      const store = new SqliteStore(join(dir, 'opsbot.sqlite'));
      return kernelRunner(name, baseURL, store, () => rmSync(dir, { recursive: true, force: true }));
    }
  }
}

/** The floor: what any tool loop on the SDK must spend, with no persistence, guards or trace. */
function bareRunner(baseURL: string): Runner {
  const client = new OpenAI({ baseURL, apiKey: API_KEY });
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
    name: 'bare',
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

function kernelRunner(name: RunnerName, baseURL: string, store: Store, cleanUp: () => void): Runner {
  const counter = new ToolCounter();
  const model = createOpenAIModelClient({
    baseURL,
    apiKey: API_KEY,
    model: MODEL,
    timeoutMs: 30_000,
    maxRetries: 2,
  });
  const kernel = new Kernel({ store, tools: [readStatusTool(counter)], model });
  return {
    name,
    tools: counter,
    async runOnce(label) {
      // A thread per run: thread-summary lookups happen as in production, but stay small.
      const run = await kernel.start({
        text: TASK,
        principal: operator,
        conversation: { platform: 'cli', channelId: 'bench', threadId: `${name}-${label}` },
      });
      const toolResults = run.events.filter((event) => event.type === 'tool_result' && event.ok).length;
      if (
        run.status !== 'finished' ||
        run.usage.modelCalls !== TURNS_PER_RUN ||
        toolResults !== TOOL_STEPS ||
        run.answer !== FINAL_ANSWER
      ) {
        throw new BrokenRunError(
          `${name} run ${label} (${run.id}): status ${run.status}, ${run.usage.modelCalls} model turns (expected ${TURNS_PER_RUN}), ${toolResults} ok tool results (expected ${TOOL_STEPS}), answer ${JSON.stringify(run.answer)}${run.error ? `, error ${run.error.code}: ${run.error.message}` : ''}`,
        );
      }
      return run.usage.modelCalls;
    },
    async close() {
      await kernel.shutdown();
      await store.close();
      cleanUp();
    },
  };
}
