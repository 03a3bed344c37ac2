// Reads the arguments a model wrote for a tool call, forgiving the small slips models make in JSON.
import { stableJson } from '../stable-json.js';
import { findJsonObjects, isJsonObject, parseJson, unwrapFence } from './json-text.js';

export type ToolArgumentsResult = { ok: true; args: Record<string, unknown> } | { ok: false; error: string };

const ASK = 'Send the arguments again as one valid JSON object, for example {"name": "value"}.';

export function parseToolArguments(raw: string): ToolArgumentsResult {
  const text = unwrapFence(raw);
  if (text === '') return { ok: true, args: {} };

  const parsed = parseJson(text);
  if (!parsed.ok) return fromProse(text, parsed.reason);
  const value = parsed.value;
  if (!isJsonObject(value)) {
    return {
      ok: false,
      error: `The tool arguments must be a JSON object, but they are ${describe(value)}. ${ASK}`,
    };
  }
  return { ok: true, args: value };
}

/** Arguments written as prose around one JSON object ("Here are the args: {…}"): that object, if it is the only one. */
function fromProse(text: string, reason: string): ToolArgumentsResult {
  const distinct = new Map<string, Record<string, unknown>>();
  for (const object of findJsonObjects(text)) distinct.set(stableJson(object), object);
  const [only] = distinct.values();
  if (distinct.size === 1 && only) return { ok: true, args: only };
  if (distinct.size > 1) {
    return {
      ok: false,
      error: `The tool arguments hold ${distinct.size} different JSON objects, so it is not clear which is meant. ${ASK}`,
    };
  }
  return { ok: false, error: `The tool arguments are not valid JSON (${reason}). ${ASK}` };
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return 'a string';
  if (typeof value === 'number') return 'a number';
  if (typeof value === 'boolean') return 'a boolean';
  return typeof value;
}
