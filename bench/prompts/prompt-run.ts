// Drives the prompt bench's run: N steps of one read tool with ~5 KB outputs, then an answer, through the real
// kernel and openai SDK against the fake OpenAI server; and the same conversation as a naive loop that resends
// everything. Both return the request bodies the fake received.
import OpenAI from 'openai';
import { ManualClock } from '../../agent/clock.js';
import { Kernel } from '../../agent/kernel.js';
import { createOpenAIModelClient } from '../../agent/model/model-client.js';
import type { Run } from '../../agent/run.js';
import { MemoryStore } from '../../agent/store/memory-store.js';
import { ModelSettingsSchema } from '../../bot/config/settings-schema.js';
import type { FakeAnswer, FakeRequestBody, RecordedRequest } from '../../tests/fakes/openai-answers.js';
import { text, toolCalls } from '../../tests/fakes/openai-answers.js';
import { startFakeOpenAIServer } from '../../tests/fakes/openai-server.js';
import { createOpsTools } from '../../tools/index.js';
import { ToolSettingsSchema } from '../../tools/tool-settings-schema.js';
import { FIRST_FINDING, logPage, PAGE_TOOL, pageTool } from './page-tool.js';

export const TASK = 'checkout has been flaky since the deploy; read its log page by page and tell me why';

export interface PromptRunOptions {
  steps: number;
  outputBytes: number;
  /** The `model:` settings as opsbot.yaml would give them (context_window, keep_tool_outputs, …). */
  model?: Record<string, unknown>;
}

export interface PromptRunResult {
  bodies: FakeRequestBody[];
  answer: string;
  run: Run;
}

/**
 * The model of the bench: a read per step, then an answer that cites the first finding only if it can see it
 * somewhere in its prompt, as a model could only cite what it was shown.
 */
export function scriptedModel(steps: number) {
  return (request: RecordedRequest): FakeAnswer => {
    const messages = request.body.messages ?? [];
    if (String(messages[0]?.content ?? '').startsWith('Summarize')) {
      return text(`- ${FIRST_FINDING}; every later page shows payment timeouts after 800ms.`);
    }
    const done = messages.filter((message) => message.role === 'assistant').length;
    if (done < steps) {
      const page = done + 1;
      return toolCalls([{ id: `call_${page}`, name: PAGE_TOOL, arguments: { page } }]);
    }
    const seen = request.rawBody.includes(FIRST_FINDING);
    return text(
      seen
        ? `Checkout times out on payments since the deploy: ${FIRST_FINDING}.`
        : 'Checkout times out on payments; the cause was not found.',
    );
  };
}

export async function runOpsbot(options: PromptRunOptions): Promise<PromptRunResult> {
  const fake = await startFakeOpenAIServer();
  fake.respond(scriptedModel(options.steps));
  const settings = ModelSettingsSchema.parse(options.model ?? {});
  const clock = new ManualClock();
  const store = new MemoryStore(clock);
  const tools = [...(await createOpsTools(ToolSettingsSchema.parse({}))), pageTool(options.outputBytes)];
  const kernel = new Kernel({
    store,
    tools,
    model: createOpenAIModelClient({
      baseURL: fake.baseURL,
      apiKey: 'sk-bench',
      model: 'fake-model',
      timeoutMs: 5_000,
      maxRetries: 0,
      clock,
    }),
    clock,
    contextWindow: settings.context_window,
    compressAt: settings.compress_at,
    keepToolOutputs: settings.keep_tool_outputs,
    limits: { maxSteps: options.steps + 4, maxToolCalls: options.steps + 4, maxTokens: 10_000_000 },
  });
  try {
    const runId = await kernel.start({
      text: TASK,
      principal: { platform: 'cli', userId: 'alice', displayName: 'Alice', roles: ['operator'], groups: [] },
      conversation: { platform: 'cli', channelId: 'terminal', threadId: 'bench' },
    });
    const run = await kernel.settled(runId);
    if (run.status !== 'finished') throw new Error(`the bench run ended ${run.status}, not finished`);
    return { bodies: fake.requests.map((request) => request.body), answer: run.answer, run };
  } finally {
    await kernel.shutdown();
    await store.close();
    await fake.close();
  }
}

type ChatMessage = OpenAI.Chat.Completions.ChatCompletionMessageParam;
type ChatTool = OpenAI.Chat.Completions.ChatCompletionFunctionTool;

/**
 * A bare openai-SDK loop with opsbot's system prompt and tools: it appends every reply and every tool output in
 * full and sends the whole list again on each turn.
 */
export async function runNaiveLoop(
  options: PromptRunOptions & { system: string; tools: ChatTool[] },
): Promise<{ bodies: FakeRequestBody[]; answer: string }> {
  const fake = await startFakeOpenAIServer();
  fake.respond(scriptedModel(options.steps));
  const client = new OpenAI({ baseURL: fake.baseURL, apiKey: 'sk-bench', maxRetries: 0, timeout: 5_000 });
  const messages: ChatMessage[] = [
    { role: 'system', content: options.system },
    { role: 'user', content: TASK },
  ];
  try {
    for (let turn = 0; turn <= options.steps + 1; turn++) {
      const reply = await client.chat.completions.create({
        model: 'fake-model',
        messages,
        tools: options.tools,
      });
      const message = reply.choices[0]!.message;
      const calls = (message.tool_calls ?? []).filter((call) => call.type === 'function');
      if (calls.length === 0)
        return { bodies: fake.requests.map((r) => r.body), answer: message.content ?? '' };
      messages.push({ role: 'assistant', content: message.content, tool_calls: calls });
      for (const call of calls) {
        const { page } = JSON.parse(call.function.arguments) as { page: number };
        const content = JSON.stringify({ tool: call.function.name, ...logPage(page, options.outputBytes) });
        messages.push({ role: 'tool', tool_call_id: call.id, content });
      }
    }
    throw new Error('the naive loop did not end');
  } finally {
    await fake.close();
  }
}
