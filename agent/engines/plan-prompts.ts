// The plan engine's words to the model: the planning prompt with the tools it may plan with, the answer prompt,
// and how the steps stand, for a re-plan and for the answer.
import type { ModelToolSpec } from '../model/model-client.js';
import type { PlanStepProgress } from '../plan-progress.js';
import { renderPrompt } from '../prompts.js';
import type { Run } from '../run.js';
import type { Tool } from '../tool.js';
import { MAX_PLAN_STEPS } from './plan-schema.js';

export interface PromptBasis {
  botName: string;
  /** The team's notes about its systems; empty for none. */
  instructions: string;
}

/** The planning system prompt: the run's people and place, the tools as a catalog, the team's notes. */
export function planPrompt(
  run: Run,
  basis: PromptBasis,
  tools: readonly Tool[],
  spec: (name: string) => ModelToolSpec | undefined,
): string {
  const catalog = tools
    .map((tool) => {
      const parameters = spec(tool.name)?.parameters ?? {};
      return `- ${tool.name} (${tool.risk}): ${tool.description}\n  arguments: ${JSON.stringify(parameters)}`;
    })
    .join('\n');
  const prompt = renderPrompt('plan', {
    ...people(run, basis),
    max_steps: String(MAX_PLAN_STEPS),
    tools: catalog || '(none: reply in plain text)',
  });
  return withContext(run, basis, prompt);
}

export function answerPrompt(run: Run, basis: PromptBasis): string {
  return withContext(run, basis, renderPrompt('planAnswer', people(run, basis)));
}

/** One line per step: its number, tool, state and the tool's summary (tool output: data for the model). */
export function stepLines(facts: readonly PlanStepProgress[]): string {
  return facts
    .map(
      ({ number, step, state, summary }) =>
        `${number}. ${step.tool} (id ${step.id}${step.round > 1 ? ', new plan' : ''}): ${state}${summary ? `: ${summary}` : ''}`,
    )
    .join('\n');
}

/** The last message before the answer: how every step ended. */
export function resultsMessage(facts: readonly PlanStepProgress[]): string {
  return `(From opsbot, not the requester.) How the plan's steps ended:\n\n${stepLines(facts)}\n\nWrite the answer now.`;
}

function people(run: Run, basis: PromptBasis): Record<string, string> {
  const channel = run.conversation.threadId
    ? `channel ${run.conversation.channelId} (thread ${run.conversation.threadId})`
    : `channel ${run.conversation.channelId}`;
  return {
    bot_name: basis.botName,
    requester: run.principal.displayName || run.principal.userId,
    channel,
    now: new Date(run.createdAt).toISOString(),
  };
}

function withContext(run: Run, basis: PromptBasis, prompt: string): string {
  const notes = basis.instructions.trim();
  const parts = [prompt];
  if (notes) parts.push(renderPrompt('teamNotes', { notes }));
  if (run.threadSummary) parts.push(renderPrompt('threadSummary', { runs: run.threadSummary }));
  return parts.join('\n\n');
}
