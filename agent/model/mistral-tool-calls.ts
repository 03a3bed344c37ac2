// Reads the calls Mistral models write after a [TOOL_CALLS] token: a JSON array, or name[ARGS]{…} per call.
import { type JsonParse, parseJson } from './json-text.js';

const PREFIX = '[TOOL_CALLS]';
/** v11+ templates: `name[ARGS]{…}`, some with a `[CALL_ID]id` before the arguments, some with neither tag. */
const NAMED = /^([^\s[\]{}"]+)\s*(?:\[CALL_ID\]\s*[A-Za-z0-9]*\s*)?(?:\[ARGS\])?\s*([\s\S]*)$/;

export interface PrefixedCalls {
  /** Each segment after a [TOOL_CALLS] token, parsed: a call, an array of calls, or whatever else it holds. */
  segments: JsonParse[];
  /** The text before the first [TOOL_CALLS] token. */
  prose: string;
}

/** The segments after each [TOOL_CALLS] token, or undefined when there is none. */
export function mistralToolCalls(content: string): PrefixedCalls | undefined {
  const [prose = '', ...rest] = content.split(PREFIX);
  if (rest.length === 0) return undefined;
  return { segments: rest.map(readSegment), prose };
}

function readSegment(segment: string): JsonParse {
  const text = segment.trim();
  // The older template writes `[{"name": …, "arguments": …}]`, or one object, after the token.
  if (text.startsWith('[') || text.startsWith('{')) return parseJson(text);
  const named = NAMED.exec(text);
  if (!named) return { ok: false, reason: 'not a Mistral tool call' };
  const args = parseJson((named[2] ?? '').trim());
  return args.ok ? { ok: true, value: { name: named[1], arguments: args.value } } : args;
}
