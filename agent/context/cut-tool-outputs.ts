// Cuts old tool outputs to their summaries, in batches, so the prompt stays small and its prefix stays stable.
import type { ModelMessage } from '../model-message.js';

/** Said in place of a cut output, so the model knows the full output existed and how to see it again. */
export const CUT_NOTE =
  'Full output cut to save context; call the tool again with the same arguments to see it (it is not run twice).';

export interface CutToolOutputsOptions {
  /** The transcript after the system prompt: the task, then the model's turns and tool results. */
  messages: readonly ModelMessage[];
  /** The one-line summary of each tool result, by call id (the run's tool_result events). */
  summaries: ReadonlyMap<string, string>;
  /** Tool-result turns at the end that keep their full outputs. */
  keep: number;
  /**
   * How many more turns with full outputs may pile up before a cut. Every cut changes the prompt from the oldest
   * output it cuts onward, so a provider's prefix cache misses once per cut; cutting in batches keeps that rare.
   */
  batch: number;
}

/** The content a cut tool message carries: what the tool said about its result, and the note. */
export function cutContent(tool: string, summary: string): string {
  return JSON.stringify({ tool, summary, note: CUT_NOTE });
}

/**
 * False when the transcript has too few tool-call turns for `cutToolOutputs` to cut anything, whatever their
 * outputs: a count, so that most turns of most runs skip looking at the outputs at all.
 */
export function mayCut(messages: readonly ModelMessage[], keep: number, batch: number): boolean {
  let turns = 0;
  for (const message of messages) if (message.role === 'assistant' && message.toolCalls.length > 0) turns++;
  // Tool messages answering no call count as one more turn of their own.
  return turns + 1 > Math.max(0, Math.floor(keep)) + Math.max(1, Math.floor(batch));
}

function isCut(message: ModelMessage): boolean {
  return message.role === 'tool' && message.content.includes(CUT_NOTE);
}

/**
 * The transcript with the outputs of all but the latest `keep` tool-result turns cut to their summaries, once
 * more than `keep + batch` turns hold full outputs; undefined when nothing is to be cut. A turn is an assistant
 * message with tool calls; its outputs are the tool messages answering it. Outputs already no longer than their
 * cut form, and those without a summary, stay as they are.
 */
export function cutToolOutputs(options: CutToolOutputsOptions): ModelMessage[] | undefined {
  const { messages, summaries } = options;
  if (!mayCut(messages, options.keep, options.batch)) return undefined;
  const keep = Math.max(0, Math.floor(options.keep));
  const batch = Math.max(1, Math.floor(options.batch));
  const turnOf = new Map<string, number>();
  let turns = 0;
  for (const message of messages) {
    if (message.role === 'assistant' && message.toolCalls.length > 0) {
      turns++;
      for (const call of message.toolCalls) turnOf.set(call.id, turns);
    }
  }
  const cuttable = (message: ModelMessage): message is Extract<ModelMessage, { role: 'tool' }> => {
    if (message.role !== 'tool' || isCut(message)) return false;
    const summary = summaries.get(message.toolCallId);
    return summary !== undefined && cutContent(message.name, summary).length < message.content.length;
  };
  const fullTurns = new Set<number>();
  for (const message of messages) {
    if (cuttable(message)) fullTurns.add(turnOf.get(message.toolCallId) ?? 0);
  }
  if (fullTurns.size <= keep + batch) return undefined;
  const lastCutTurn = turns - keep;
  return messages.map((message) => {
    if (!cuttable(message) || (turnOf.get(message.toolCallId) ?? 0) > lastCutTurn) return message;
    return { ...message, content: cutContent(message.name, summaries.get(message.toolCallId)!) };
  });
}
