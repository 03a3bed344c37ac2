// Shrinks a prompt that no longer fits: trims old tool output, collapses repeats, then summarizes old turns.
import type { ModelMessage } from '../model-message.js';
import { stableJson } from '../stable-json.js';
import { estimateMessageTokens, estimatePromptTokens } from './token-estimate.js';

export interface CompressContextOptions {
  /** The full prompt: the system message, the task (first user message), then the transcript. */
  messages: ModelMessage[];
  budgetTokens: number;
  /** Assistant turns at the end that are never touched, with everything after the oldest of them. */
  keepLatestTurns?: number;
  /** Summarizes older messages in one model call; called at most once. */
  summarize: (messages: ModelMessage[]) => Promise<string>;
  /** Told why summarizing failed, since compression then falls back to dropping turns and carries on. */
  onSummarizeFailed?: (error: unknown) => void;
}

export interface CompressContextResult {
  messages: ModelMessage[];
  beforeTokens: number;
  afterTokens: number;
  /** The stages that changed something, in order. */
  stages: CompressionStage[];
}

export type CompressionStage =
  | 'truncate_tool_outputs'
  | 'collapse_repeated_calls'
  | 'summarize_older_turns'
  | 'drop_oldest_turns';

export const SUMMARY_PREFIX = 'Summary of earlier steps: ';

// Enough of an old tool output for the model to remember what it showed, not enough to dominate.
const TOOL_OUTPUT_MAX_CHARS = 2_000;
const HEAD_LINES = 20;
const TAIL_LINES = 10;
const HEAD_CHARS = 1_200;
const TAIL_CHARS = 500;

/**
 * A unit that must stay whole: an assistant message with the tool messages answering its calls, or any
 * other single message. OpenAI rejects a tool message without its call and a call without its answer.
 */
type Turn = ModelMessage[];

/** Keeps the head and tail of a long tool output, by lines and then by characters for very long lines. */
export function truncateToolOutput(text: string, maxChars = TOOL_OUTPUT_MAX_CHARS): string {
  if (text.length <= maxChars) return text;
  let result = text;
  const lines = text.split('\n');
  if (lines.length > HEAD_LINES + TAIL_LINES + 1) {
    const dropped = lines.length - HEAD_LINES - TAIL_LINES;
    result = [
      ...lines.slice(0, HEAD_LINES),
      `[${dropped} lines truncated]`,
      ...lines.slice(-TAIL_LINES),
    ].join('\n');
  }
  if (result.length <= maxChars) return result;
  const dropped = result.length - HEAD_CHARS - TAIL_CHARS;
  return `${result.slice(0, HEAD_CHARS)}\n[${dropped} characters truncated]\n${result.slice(-TAIL_CHARS)}`;
}

function splitTurns(messages: ModelMessage[]): Turn[] {
  const turns: Turn[] = [];
  for (let index = 0; index < messages.length; ) {
    const message = messages[index]!;
    const turn: Turn = [message];
    index++;
    if (message.role === 'assistant') {
      const callIds = new Set(message.toolCalls.map((call) => call.id));
      while (index < messages.length) {
        const next = messages[index]!;
        if (next.role !== 'tool' || !callIds.has(next.toolCallId)) break;
        turn.push(next);
        index++;
      }
    }
    turns.push(turn);
  }
  return turns;
}

/** System prompt and task first, then older turns that may change, then the latest turns kept verbatim. */
function layout(messages: ModelMessage[], keepLatestTurns: number) {
  const taskIndex = messages.findIndex((message) => message.role === 'user');
  const headLength =
    taskIndex >= 0 ? taskIndex + 1 : messages.findIndex((message) => message.role !== 'system');
  const head = headLength >= 0 ? messages.slice(0, headLength) : messages.slice();
  const turns = splitTurns(headLength >= 0 ? messages.slice(headLength) : []);
  const assistantStarts = turns.flatMap((turn, index) => (turn[0]?.role === 'assistant' ? [index] : []));
  let keptFrom = 0;
  if (assistantStarts.length > keepLatestTurns) {
    keptFrom =
      keepLatestTurns === 0 ? turns.length : assistantStarts[assistantStarts.length - keepLatestTurns]!;
  }
  return { head, older: turns.slice(0, keptFrom), latest: turns.slice(keptFrom).flat() };
}

function normalizedArguments(raw: string): string {
  try {
    return stableJson(JSON.parse(raw));
  } catch {
    return raw.trim();
  }
}

/** For each answered call, the id of the last answered call with the same tool and arguments. */
function latestCallBySignature(messages: ModelMessage[]): Map<string, string> {
  const signatures = new Map<string, string>();
  const latest = new Map<string, string>();
  for (const message of messages) {
    if (message.role === 'assistant') {
      for (const call of message.toolCalls) {
        signatures.set(call.id, `${call.name}\n${normalizedArguments(call.arguments)}`);
      }
    } else if (message.role === 'tool') {
      const signature = signatures.get(message.toolCallId);
      if (signature !== undefined) latest.set(signature, message.toolCallId);
    }
  }
  const byCall = new Map<string, string>();
  for (const [callId, signature] of signatures) {
    const latestId = latest.get(signature);
    if (latestId !== undefined) byCall.set(callId, latestId);
  }
  return byCall;
}

/** The note must not claim the results match unless they do, or the later call replayed this one. */
function repeatNote(callId: string, content: string, later: { toolCallId: string; content: string }): string {
  const replayed = later.content.includes(`"repeat_of":${JSON.stringify(callId)}`);
  return content === later.content || replayed
    ? `[same result as the later call ${later.toolCallId}]`
    : `[older result; the later call ${later.toolCallId} with the same arguments has the current one]`;
}

export async function compressContext(options: CompressContextOptions): Promise<CompressContextResult> {
  const { messages, budgetTokens, summarize } = options;
  const keepLatestTurns = Math.max(0, Math.floor(options.keepLatestTurns ?? 2));
  const beforeTokens = estimatePromptTokens(messages);
  if (beforeTokens <= budgetTokens) return { messages, beforeTokens, afterTokens: beforeTokens, stages: [] };

  const { head, older, latest } = layout(messages, keepLatestTurns);
  const stages: CompressionStage[] = [];
  let total = beforeTokens;
  const fits = () => total <= budgetTokens;
  const assemble = (middle: ModelMessage[]) => [...head, ...middle, ...latest];
  const done = (result: ModelMessage[]): CompressContextResult => ({
    messages: result,
    beforeTokens,
    afterTokens: estimatePromptTokens(result),
    stages,
  });
  /** Replaces one message of an older turn, keeping the running estimate current. */
  const replace = (turn: Turn, index: number, next: ModelMessage) => {
    total += estimateMessageTokens(next) - estimateMessageTokens(turn[index]!);
    turn[index] = next;
  };
  const turns = older.map((turn) => turn.slice());

  // (a) Old tool output is the bulk of most transcripts and the least needed verbatim. Every older output is
  // truncated at once, not just enough of them to fit: the prompt then changes once and drops well under the
  // budget, instead of changing on every later turn (each change is a miss for provider prefix caches).
  for (const turn of turns) {
    for (let index = 0; index < turn.length; index++) {
      const message = turn[index]!;
      if (message.role !== 'tool') continue;
      const content = truncateToolOutput(message.content);
      if (content === message.content) continue;
      replace(turn, index, { ...message, content });
      if (!stages.includes('truncate_tool_outputs')) stages.push('truncate_tool_outputs');
    }
  }
  if (fits()) return done(assemble(turns.flat()));

  // (b) A call repeated with the same arguments: the latest answer is the one that matters.
  const latestCallIds = latestCallBySignature(messages);
  const originals = new Map(
    messages.flatMap((message) => (message.role === 'tool' ? [[message.toolCallId, message]] : [])),
  );
  for (const turn of turns) {
    for (let index = 0; index < turn.length && !fits(); index++) {
      const message = turn[index]!;
      if (message.role !== 'tool') continue;
      const laterId = latestCallIds.get(message.toolCallId);
      const later = laterId === undefined ? undefined : originals.get(laterId);
      if (!later || laterId === message.toolCallId) continue;
      const original = originals.get(message.toolCallId)?.content ?? message.content;
      replace(turn, index, { ...message, content: repeatNote(message.toolCallId, original, later) });
      if (!stages.includes('collapse_repeated_calls')) stages.push('collapse_repeated_calls');
    }
  }
  if (fits() || turns.length === 0) return done(assemble(turns.flat()));

  // (c) One summary in place of every older turn; if that fails, drop the oldest turns instead.
  const olderMessages = turns.flat();
  try {
    const summary = (await summarize(olderMessages)).trim();
    if (summary === '') throw new Error('the summary was empty');
    stages.push('summarize_older_turns');
    return done(assemble([{ role: 'user', content: `${SUMMARY_PREFIX}${summary}` }]));
  } catch (error) {
    options.onSummarizeFailed?.(error);
  }
  stages.push('drop_oldest_turns');
  let dropped = 0;
  const marker = (): ModelMessage => ({
    role: 'user',
    content: `[${dropped} earlier messages were dropped to fit the context window; summarizing them failed.]`,
  });
  let kept = estimatePromptTokens(assemble(olderMessages));
  while (turns.length > 0) {
    const turn = turns.shift()!;
    dropped += turn.length;
    for (const message of turn) kept -= estimateMessageTokens(message);
    if (kept + estimateMessageTokens(marker()) <= budgetTokens) break;
  }
  return done(assemble([marker(), ...turns.flat()]));
}
