// Finds the tool calls that small local models write as text instead of tool_calls, for the tools offered.
import type { ModelToolCall } from '../model-message.js';
import { isJsonObject, type JsonParse, parseJson, unwrapFence } from './json-text.js';
import { mistralToolCalls } from './mistral-tool-calls.js';

export interface TextToolCalls {
  calls: ModelToolCall[];
  /** What the model wrote around the calls, trimmed; null when nothing. */
  prose: string | null;
}

/** Hermes and Qwen wrap each call in a tag; a reply cut off at the end may lack the last closing tag. */
const TAGGED = /<tool_call>([\s\S]*?)(?:<\/tool_call>|$)/g;
const FENCED = /```([\w-]*)[ \t]*\r?\n?([\s\S]*?)```/g;
const FENCE_LANGUAGES = new Set(['', 'json', 'tool_call', 'tool_code']);
/** A fence with this label holds a call and nothing else, as a tag does. */
const CALL_FENCE = 'tool_call';
const CALL_KEYS = new Set(['name', 'arguments', 'parameters', 'type', 'id']);
/** What the OpenAI API accepts as a function name: a call of a tool not offered is kept in the transcript. */
const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * The calls in a reply's text, or undefined when it is an answer. The text is model output: it is a call only
 * when every candidate in it (each tagged block, each [TOOL_CALLS] segment, each JSON code fence, or the whole
 * text) is a call; one that is not makes the whole reply an answer, so a half-understood reply never runs in part.
 * A candidate in a bare object or a plain fence may be data, so it is a call only of an offered tool; one that is
 * marked as a call (a tag, the prefix, a tool_call fence) is a call of any tool name, for the kernel's policy to
 * refuse when it was not offered, and may leave out its arguments. With no tools offered there are no calls.
 * Ids are `text_call_<step>_<n>`, stable for the run's transcript and events.
 */
export function readTextToolCalls(
  content: string | null,
  offered: readonly { name: string }[],
  step: number,
): TextToolCalls | undefined {
  if (content === null || content.trim() === '' || offered.length === 0) return undefined;
  const names = new Set(offered.map((tool) => tool.name));
  const found = tagged(content) ?? prefixed(content) ?? fenced(content) ?? bare(content);
  if (found === undefined) return undefined;
  const calls: UnnamedCall[] = [];
  for (const block of found.blocks) {
    const read = readBlock(block, names);
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

/** A candidate's JSON, and whether it was written in a shape that only a call takes. */
interface Block {
  json: JsonParse;
  marked: boolean;
}

interface Candidates {
  blocks: Block[];
  prose: string;
}

const parseBlock = (text: string, marked: boolean): Block => ({ json: parseJson(unwrapFence(text)), marked });

function tagged(content: string): Candidates | undefined {
  const blocks = [...content.matchAll(TAGGED)];
  if (blocks.length === 0) return undefined;
  return {
    blocks: blocks.map((block) => parseBlock(block[1] ?? '', true)),
    prose: content.replace(TAGGED, ' '),
  };
}

function prefixed(content: string): Candidates | undefined {
  const found = mistralToolCalls(content);
  if (found === undefined) return undefined;
  return { blocks: found.segments.map((json) => ({ json, marked: true })), prose: found.prose };
}

function fenced(content: string): Candidates | undefined {
  const blocks = [...content.matchAll(FENCED)].filter((block) =>
    FENCE_LANGUAGES.has((block[1] ?? '').toLowerCase()),
  );
  if (blocks.length === 0) return undefined;
  let prose = content;
  for (const block of blocks) prose = prose.replace(block[0], ' ');
  return {
    blocks: blocks.map((block) => parseBlock(block[2] ?? '', (block[1] ?? '').toLowerCase() === CALL_FENCE)),
    prose,
  };
}

/** A bare call must be the whole reply: JSON inside prose without a tag or fence is the model talking about it. */
function bare(content: string): Candidates | undefined {
  const text = content.trim();
  if (!text.startsWith('{') && !text.startsWith('[')) return undefined;
  return { blocks: [parseBlock(text, false)], prose: '' };
}

/** One call, or an array of calls (a tagged block may hold a fence); undefined when the block is anything else. */
function readBlock(block: Block, names: ReadonlySet<string>): UnnamedCall[] | undefined {
  if (!block.json.ok) return undefined;
  const { value } = block.json;
  const items = Array.isArray(value) ? value : [value];
  const calls: UnnamedCall[] = [];
  for (const item of items) {
    const call = readCall(item, names, block.marked);
    if (call === undefined) return undefined;
    calls.push(call);
  }
  return calls;
}

function readCall(item: unknown, names: ReadonlySet<string>, marked: boolean): UnnamedCall | undefined {
  if (!isJsonObject(item)) return undefined;
  if (!Object.keys(item).every((key) => CALL_KEYS.has(key))) return undefined;
  if (item.type !== undefined && item.type !== 'function') return undefined;
  const { name } = item;
  if (typeof name !== 'string' || !(names.has(name) || (marked && TOOL_NAME.test(name)))) return undefined;
  // "parameters" is what Llama-style templates call the arguments; both at once is not a call we can read.
  if (Object.hasOwn(item, 'arguments') && Object.hasOwn(item, 'parameters')) return undefined;
  const given = Object.hasOwn(item, 'arguments') ? item.arguments : item.parameters;
  // A marked call of a tool that takes nothing may leave its arguments out.
  if (given === undefined) return marked ? { name, arguments: '{}' } : undefined;
  if (typeof given === 'string') return { name, arguments: given };
  if (isJsonObject(given)) return { name, arguments: JSON.stringify(given) };
  return undefined;
}
