// The react engine: the model's tool loop. Each plan is one model turn that returns calls or the final answer.
import { BUILTIN_TOOLS } from '../builtin-tools.js';
import type { Clock } from '../clock.js';
import { compressContext } from '../context/compress-context.js';
import { cutToolOutputs, mayCut } from '../context/cut-tool-outputs.js';
import { estimateMessageTokens, estimatePromptTokens, estimateTokens } from '../context/token-estimate.js';
import type { ModelClient, ModelToolSpec } from '../model/model-client.js';
import { withoutThinking } from '../model/reasoning-text.js';
import { readTextToolCalls } from '../model/text-tool-calls.js';
import { parseToolArguments } from '../model/tool-arguments.js';
import type { ModelMessage } from '../model-message.js';
import { renderPrompt } from '../prompts.js';
import type { Redactor } from '../redaction.js';
import type { PlannedCall, Run } from '../run.js';
import { toolParametersSchema } from '../tool.js';
import type { ToolPolicy } from '../tool-policy.js';
import type { ToolRegistry } from '../tool-registry.js';
import { visibleToolsFor } from '../visible-tools.js';
import type { Engine, PlanOptions, PlanOutcome, PlanProgress } from './engine.js';
import { type ModelCallProgress, modelCallProgress } from './model-call-progress.js';
import { countModelCall, wrapUpPrompt } from './wrap-up-prompt.js';

export interface ReactEngineOptions {
  model: ModelClient;
  /** Writes the summary when older context is compressed; the main model when absent. */
  summaryModel?: ModelClient;
  registry: ToolRegistry;
  policy: ToolPolicy;
  redactor: Redactor;
  clock: Clock;
  botName: string;
  /** The team's notes about its systems; empty for none. */
  instructions: string;
  contextWindow: number;
  compressAt: number;
  /** Tool-result turns that keep their full outputs; older outputs are cut to their summaries, in batches. */
  keepToolOutputs: number;
  /** Called with each compression, so the kernel can record it. */
  onCompressed?(run: Run, beforeTokens: number, afterTokens: number): void;
  /** Called with each cut of older tool outputs: how many were cut, and how many turns kept theirs. */
  onToolOutputsCut?(run: Run, count: number, keptTurns: number): void;
}

const builtinSpecs: ModelToolSpec[] = BUILTIN_TOOLS.map((tool) => ({
  name: tool.name,
  description: tool.description,
  parameters: toolParametersSchema(tool.input),
}));

/** What stays the same on every turn of a run, worked out on its first turn. */
interface RunTurnBasis {
  /** The system prompt states the run's start time, not the turn's, so servers with prefix caching reuse it. */
  prompt: string;
  /** The estimated tokens of the system message. */
  promptTokens: number;
  /** The tools this person may use in this place; the same list object every turn. */
  tools: ModelToolSpec[];
  /** The estimated tokens of the tools as sent (their JSON). */
  toolsTokens: number;
}

/** Runs whose basis is kept, oldest dropped first. */
const KEPT_RUNS = 1000;

export class ReactEngine implements Engine {
  readonly kind = 'react' as const;
  /** By run id, oldest first, bounded. */
  private readonly bases = new Map<string, RunTurnBasis>();
  /** The tools' token estimate by their names: most runs are offered one of a few tool sets. */
  private readonly toolsTokens = new Map<string, number>();

  constructor(private readonly options: ReactEngineOptions) {}

  async plan(
    run: Run,
    signal: AbortSignal,
    progress?: PlanProgress,
    options: PlanOptions = {},
  ): Promise<PlanOutcome> {
    const { model, clock } = this.options;
    const basis = this.basis(run);
    const heard = modelCallProgress(progress);
    this.cutOldToolOutputs(run);
    let messages: ModelMessage[] = [{ role: 'system', content: basis.prompt }, ...run.messages];
    messages = await this.fitContext(run, messages, basis, signal, heard);
    // A last turn is offered no tools, and told why: it answers from the evidence so far.
    const { wrapUp } = options;
    const tools = wrapUp ? [] : basis.tools;
    if (wrapUp) messages = [...messages, { role: 'user', content: wrapUpPrompt(wrapUp) }];

    const started = clock.now();
    const reply = await model.complete({ messages, tools, purpose: 'tool_loop', signal, ...heard });
    countModelCall(run, reply.usage);

    // Reasoning models write their thinking before the reply: it is neither a call, nor said to the person, nor
    // kept in the transcript and events.
    const reasoned = withoutThinking(reply.content);
    const content = reasoned.text === null ? null : this.options.redactor.redact(reasoned.text);
    // Small local models often write their calls in the text; read from the raw text, so that they run with the
    // arguments as given, and kept in the transcript as real calls, so the tool results after them are valid.
    const fromText =
      reply.toolCalls.length === 0 ? readTextToolCalls(reasoned.text, tools, run.step) : undefined;
    const replyCalls = fromText?.calls ?? reply.toolCalls;
    const said = fromText ? fromText.prose && this.options.redactor.redact(fromText.prose) : content;
    // The history is saved with the run and sent back on every turn, so the model's own arguments are redacted
    // there as its text is; the planned calls below keep the arguments as given, to run with them.
    const toolCalls = replyCalls.map((call) => ({
      ...call,
      arguments: this.options.redactor.redact(call.arguments),
    }));
    run.messages.push({ role: 'assistant', content: said, toolCalls });
    run.events.push({
      type: 'model_turn',
      at: clock.now(),
      step: run.step,
      content,
      toolCalls: replyCalls.map((call) => ({ id: call.id, name: call.name })),
      ...(fromText ? { textToolCalls: true } : {}),
      promptTokens: reply.usage.promptTokens,
      completionTokens: reply.usage.completionTokens,
      durationMs: clock.now() - started,
    });

    if (replyCalls.length === 0) {
      const answer = content?.trim();
      if (answer) return { kind: 'answer', answer };
      return {
        kind: 'answer',
        answer: reasoned.thought
          ? 'The model ended without an answer: its reply was only its reasoning.'
          : 'The model ended without an answer.',
      };
    }
    const calls: PlannedCall[] = replyCalls.map((call) => {
      const parsed = parseToolArguments(call.arguments);
      return {
        id: call.id,
        name: call.name,
        rawArguments: call.arguments,
        args: parsed.ok ? parsed.args : null,
        ...(parsed.ok ? {} : { parseError: parsed.error }),
        ...(said ? { reason: said } : {}),
      };
    });
    return { kind: 'calls', calls };
  }

  /**
   * The prompt and tools of a run, the same on every turn: rendered, looked up and measured once per run, not
   * once per turn (the policy gives a run's person and place the same tools for the whole run).
   */
  private basis(run: Run): RunTurnBasis {
    const kept = this.bases.get(run.id);
    if (kept !== undefined) return kept;
    const tools = this.toolSpecs(run);
    const prompt = this.renderSystemPrompt(run);
    const basis = {
      prompt,
      promptTokens: estimateMessageTokens({ role: 'system', content: prompt }),
      tools,
      toolsTokens: this.estimateToolsTokens(tools),
    };
    if (this.bases.size >= KEPT_RUNS) this.bases.delete(this.bases.keys().next().value!);
    this.bases.set(run.id, basis);
    return basis;
  }

  /** Tool specs do not change while the process runs, so the names say everything about the JSON. */
  private estimateToolsTokens(tools: ModelToolSpec[]): number {
    const names = tools.map((tool) => tool.name).join('\n');
    let tokens = this.toolsTokens.get(names);
    if (tokens === undefined) {
      tokens = estimateTokens(JSON.stringify(tools));
      if (this.toolsTokens.size >= KEPT_RUNS) this.toolsTokens.clear();
      this.toolsTokens.set(names, tokens);
    }
    return tokens;
  }

  private toolSpecs(run: Run): ModelToolSpec[] {
    const { registry, policy } = this.options;
    const visible = visibleToolsFor(run, policy, registry);
    const specs = visible.map((tool) => registry.spec(tool.name)).filter((spec) => spec !== undefined);
    return [...specs, ...builtinSpecs];
  }

  private renderSystemPrompt(run: Run): string {
    const channel = run.conversation.threadId
      ? `channel ${run.conversation.channelId} (thread ${run.conversation.threadId})`
      : `channel ${run.conversation.channelId}`;
    const prompt = renderPrompt('system', {
      bot_name: this.options.botName,
      requester: run.principal.displayName || run.principal.userId,
      channel,
      now: new Date(run.createdAt).toISOString(),
    });
    const notes = this.options.instructions.trim();
    const parts = [prompt];
    if (notes) parts.push(renderPrompt('teamNotes', { notes }));
    if (run.threadSummary) parts.push(renderPrompt('threadSummary', { runs: run.threadSummary }));
    return parts.join('\n\n');
  }

  /**
   * Cuts old outputs in the run's own transcript, so every later request repeats the cut version byte for byte.
   * The batch is as large as what is kept: a cut every `keep` turns, which the prompt bench found to cost few
   * uncached tokens while keeping the prompt small (bench/prompts, docs/performance.md).
   */
  private cutOldToolOutputs(run: Run): void {
    const keep = this.options.keepToolOutputs;
    if (!mayCut(run.messages, keep, keep)) return;
    const summaries = new Map<string, string>();
    for (const event of run.events) {
      if (event.type === 'tool_result') summaries.set(event.callId, event.summary);
    }
    const cut = cutToolOutputs({ messages: run.messages, summaries, keep, batch: keep });
    if (!cut) return;
    const count = cut.filter((message, index) => message !== run.messages[index]).length;
    run.messages = cut;
    this.options.onToolOutputsCut?.(run, count, keep);
  }

  /** Compresses older context when the prompt would pass the threshold, and keeps the result in the run. */
  private async fitContext(
    run: Run,
    messages: ModelMessage[],
    basis: RunTurnBasis,
    signal: AbortSignal,
    heard: ModelCallProgress,
  ): Promise<ModelMessage[]> {
    const budgetTokens = Math.floor(this.options.contextWindow * this.options.compressAt);
    // The system message is the first; its estimate was made with the basis.
    const estimated = basis.promptTokens + estimatePromptTokens(run.messages) + basis.toolsTokens;
    if (estimated <= budgetTokens) return messages;
    const result = await compressContext({
      messages,
      budgetTokens: Math.max(1, budgetTokens - estimatePromptTokens([]) - basis.toolsTokens),
      summarize: (older) => this.summarize(run, older, signal, heard),
    });
    run.messages = result.messages.slice(1);
    this.options.onCompressed?.(run, result.beforeTokens, result.afterTokens);
    return result.messages;
  }

  private async summarize(
    run: Run,
    older: ModelMessage[],
    signal: AbortSignal,
    heard: ModelCallProgress,
  ): Promise<string> {
    const transcript = older
      .map((message) => {
        if (message.role === 'tool') return `tool ${message.name} returned: ${message.content}`;
        if (message.role === 'assistant') {
          const calls = message.toolCalls.map((call) => `${call.name}(${call.arguments})`).join(', ');
          return `assistant: ${message.content ?? ''}${calls ? ` [called ${calls}]` : ''}`;
        }
        return `${message.role}: ${message.content}`;
      })
      .join('\n');
    const model = this.options.summaryModel ?? this.options.model;
    const reply = await model.complete({
      messages: [
        { role: 'system', content: renderPrompt('summarize') },
        { role: 'user', content: transcript },
      ],
      tools: [],
      purpose: 'context_summary',
      signal,
      ...heard,
    });
    countModelCall(run, reply.usage);
    return withoutThinking(reply.content).text ?? '';
  }
}
