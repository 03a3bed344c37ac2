// Finds the tool calls that small local models write as text instead of tool_calls, for the tools offered.
import type { ModelToolCall } from '../model-message.js';
import { isJsonObject, parseJson, unwrapFence } from './json-text.js';

export interface TextToolCalls {
  calls: ModelToolCall[];
  /** What the model wrote around the calls, trimmed; null when nothing. */
  prose: string | null;
}

/** Hermes and Qwen wrap each call in a tag; a reply cut off at the end may lack the last closing tag. */
const TAGGED = /<tool_call>([\s\S]*?)(?:<\/tool_call>|$)/g;
const FENCED = /```([\w-]*)[ \t]*\r?\n?([\s\S]*?)```/g;
const FENCE_LANGUAGES = new Set(['', 'json', 'tool_call', 'tool_code']);
const CALL_KEYS = new Set(['name', 'arguments', 'parameters', 'type', 'id']);

/**
 * The calls in a reply's text, or undefined when it is an answer. The text is model output: it is a call only
 * when every candidate in it (each tagged block, or each JSON code fence, or the whole text) is a call of an
 * offered tool; one that is not makes the whole reply an answer, so a half-understood reply never runs in part.
 * Ids are `text_call_<step>_<n>`, stable for the run's transcript and events.
 */
export function readTextToolCalls(
  content: string | null,
  offered: readonly { name: string }[],
  step: number,
): TextToolCalls | undefined {
  if (content === null || content.trim() === '') return undefined;
  const names = new Set(offered.map((tool) => tool.name));
  const found = tagged(content) ?? fenced(content) ?? bare(content);
  if (found === undefined) return undefined;
  const calls: UnnamedCall[] = [];
  for (const text of found.candidates) {
    const read = readCandidate(text, names);
    if (read === undefined) return undefined;
    calls.push(...read);
  }
  if (calls.length === 0) return undefined;
  return {
    calls: calls.map((call, index) => ({ ...call, id: `text_call_${step}_${index + 1}` })),
    prose: found.prose.trim() || null,
  };
}

/** A call as written, before it is given its id. */
type UnnamedCall = Omit<ModelToolCall, 'id'>;

interface Candidates {
  candidates: string[];
  prose: string;
}

function tagged(content: string): Candidates | undefined {
  const blocks = [...content.matchAll(TAGGED)];
  if (blocks.length === 0) return undefined;
  return { candidates: blocks.map((block) => block[1] ?? ''), prose: content.replace(TAGGED, ' ') };
}

function fenced(content: string): Candidates | undefined {
  const blocks = [...content.matchAll(FENCED)].filter((block) =>
    FENCE_LANGUAGES.has((block[1] ?? '').toLowerCase()),
  );
  if (blocks.length === 0) return undefined;
  let prose = content;
  for (const block of blocks) prose = prose.replace(block[0], ' ');
  return { candidates: blocks.map((block) => block[2] ?? ''), prose };
}

/** A bare call must be the whole reply: JSON inside prose without a tag or fence is the model talking about it. */
function bare(content: string): Candidates | undefined {
  const text = content.trim();
  if (!text.startsWith('{') && !text.startsWith('[')) return undefined;
  return { candidates: [text], prose: '' };
}

/** One call, or an array of calls (a tagged block may hold a fence); undefined when the text is anything else. */
function readCandidate(text: string, names: ReadonlySet<string>): UnnamedCall[] | undefined {
  const parsed = parseJson(unwrapFence(text));
  if (!parsed.ok) return undefined;
  const items = Array.isArray(parsed.value) ? parsed.value : [parsed.value];
  const calls: UnnamedCall[] = [];
  for (const item of items) {
    const call = readCall(item, names);
    if (call === undefined) return undefined;
    calls.push(call);
  }
  return calls;
}

function readCall(item: unknown, names: ReadonlySet<string>): UnnamedCall | undefined {
  if (!isJsonObject(item)) return undefined;
  if (!Object.keys(item).every((key) => CALL_KEYS.has(key))) return undefined;
  if (item.type !== undefined && item.type !== 'function') return undefined;
  const { name } = item;
  if (typeof name !== 'string' || !names.has(name)) return undefined;
  // "parameters" is what Llama-style templates call the arguments; both at once is not a call we can read.
  if (Object.hasOwn(item, 'arguments') && Object.hasOwn(item, 'parameters')) return undefined;
  const given = Object.hasOwn(item, 'arguments') ? item.arguments : item.parameters;
  if (given === undefined) return undefined;
  if (typeof given === 'string') return { name, arguments: given };
  if (isJsonObject(given)) return { name, arguments: JSON.stringify(given) };
  return undefined;
}
