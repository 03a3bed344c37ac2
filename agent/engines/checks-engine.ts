// The checks engine: makes a run's planned calls all at once, then answers with their results. With a model and
// a summary task, one extra model call (offered no tools) writes a short summary; it never changes the results.
import type { Clock } from '../clock.js';
import { errorMessage } from '../errors.js';
import type { ModelClient } from '../model/model-client.js';
import { withoutThinking } from '../model/reasoning-text.js';
import type { Redactor } from '../redaction.js';
import type { Run } from '../run.js';
import type { Engine, PlanOutcome, PlanProgress } from './engine.js';
import { modelCallProgress } from './model-call-progress.js';

export interface ChecksEngineOptions {
  /** Writes the summary of a patrol's results (the summary model, if one is set); no summary without one. */
  model?: ModelClient;
  redactor: Redactor;
  clock: Clock;
}

const SUMMARY_PROMPT = [
  'You summarize the results of scheduled operations checks for the on-call team.',
  'Write at most three short sentences: what changed and a sensible first step.',
  'Use only the results given. Do not invent figures, and do not ask questions.',
].join(' ');

interface CheckResult {
  tool: string;
  summary: string;
  ok: boolean;
  data?: unknown;
}

export class ChecksEngine implements Engine {
  readonly kind = 'checks' as const;

  constructor(private readonly options: ChecksEngineOptions) {}

  async plan(run: Run, signal: AbortSignal, progress?: PlanProgress): Promise<PlanOutcome> {
    const plan = run.plan;
    if (!plan) return { kind: 'answer', answer: 'This run has no checks to make.', ok: false };
    const made = new Set(run.messages.filter((m) => m.role === 'tool').map((m) => m.toolCallId));
    if (made.size === 0) {
      run.messages.push({
        role: 'assistant',
        content: null,
        toolCalls: plan.calls.map((call) => ({ id: call.id, name: call.name, arguments: call.rawArguments })),
      });
      return { kind: 'calls', calls: plan.calls };
    }
    const results = plan.calls.map((call) => resultOf(run, call.id, call.name));
    const failed = results.filter((result) => !result.ok);
    const headline =
      failed.length === 0
        ? `All ${results.length} checks passed.`
        : `${failed.length} of ${results.length} checks failed: ${failed.map((r) => r.tool).join(', ')}.`;
    const summary = plan.summaryTask
      ? await this.summarize(run, plan.summaryTask, results, signal, progress)
      : '';
    return {
      kind: 'answer',
      answer: summary ? `${headline}\n\n${summary}` : headline,
      details: results.map(({ tool, summary: text, data }) => ({ tool, summary: text, data })),
      ok: failed.length === 0,
    };
  }

  /** The model's few sentences, or nothing when there is no model or it fails: the results stand either way. */
  private async summarize(
    run: Run,
    task: string,
    results: CheckResult[],
    signal: AbortSignal,
    progress: PlanProgress | undefined,
  ): Promise<string> {
    const { model, redactor, clock } = this.options;
    if (!model) return '';
    const facts = results.map((r) => `- ${r.tool}: ${r.ok ? 'ok' : 'FAILED'}: ${r.summary}`).join('\n');
    const started = clock.now();
    try {
      const reply = await model.complete({
        messages: [
          { role: 'system', content: SUMMARY_PROMPT },
          { role: 'user', content: `${task}\n\nResults:\n${facts}` },
        ],
        tools: [],
        purpose: 'patrol_summary',
        signal,
        ...modelCallProgress(progress),
      });
      run.usage.modelCalls += 1;
      run.usage.promptTokens += reply.usage.promptTokens;
      run.usage.completionTokens += reply.usage.completionTokens;
      // A reasoning model's thinking is not part of the summary.
      const content = redactor.redact(withoutThinking(reply.content).text ?? '').trim();
      run.events.push({
        type: 'model_turn',
        at: clock.now(),
        step: run.step,
        content,
        toolCalls: [],
        promptTokens: reply.usage.promptTokens,
        completionTokens: reply.usage.completionTokens,
        durationMs: clock.now() - started,
      });
      return content.slice(0, 1_500);
    } catch (error) {
      if (signal.aborted) throw error;
      return `(No summary: the model failed: ${redactor.redact(errorMessage(error)).slice(0, 200)})`;
    }
  }
}

/** A call's result as the executor recorded it: its tool message, or a note that it was never made. */
function resultOf(run: Run, callId: string, tool: string): CheckResult {
  const message = run.messages.find((m) => m.role === 'tool' && m.toolCallId === callId);
  if (message?.role !== 'tool') return { tool, ok: false, summary: 'The check was not made.' };
  try {
    const parsed = JSON.parse(message.content) as {
      ok?: boolean;
      summary?: string;
      data?: unknown;
      error?: { message?: string };
    };
    if (parsed.error) return { tool, ok: false, summary: parsed.error.message ?? 'The check could not run.' };
    return {
      tool,
      ok: parsed.ok !== false,
      summary: parsed.summary ?? `${tool} finished.`,
      ...(parsed.data !== undefined ? { data: parsed.data } : {}),
    };
  } catch {
    return { tool, ok: false, summary: message.content.slice(0, 500) };
  }
}
