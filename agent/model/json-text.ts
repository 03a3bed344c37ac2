// Reads JSON as models write it in text: inside code fences, with trailing commas, or as objects inside prose.

export type JsonParse = { ok: true; value: unknown } | { ok: false; reason: string };

const WHOLE_FENCE = /^```[\w-]*[ \t]*\r?\n?([\s\S]*?)\r?\n?[ \t]*```$/;
/** Past this many characters scanned, the search for objects in prose gives up: model output is not that big. */
const SCAN_BUDGET = 2_000_000;

/** The text inside a code fence that is the whole (trimmed) text, or the trimmed text itself. */
export function unwrapFence(text: string): string {
  const trimmed = text.trim();
  const fenced = WHOLE_FENCE.exec(trimmed);
  return fenced ? (fenced[1] ?? '').trim() : trimmed;
}

/** JSON.parse, then once more without trailing commas; the reason is the first parse error's. */
export function parseJson(text: string): JsonParse {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    try {
      return { ok: true, value: JSON.parse(removeTrailingCommas(text)) };
    } catch {
      // Report the first parse error: it points at what the model actually wrote.
      return { ok: false, reason: error instanceof Error ? error.message : String(error) };
    }
  }
}

export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The JSON objects that appear in prose, outermost first, each once per appearance: a balanced `{…}` (braces
 * inside strings do not count) that parses as an object. A span that does not parse is searched for objects inside.
 */
export function findJsonObjects(text: string): Record<string, unknown>[] {
  const found: Record<string, unknown>[] = [];
  let budget = SCAN_BUDGET;
  let start = text.indexOf('{');
  while (start !== -1 && budget > 0) {
    const end = matchingBrace(text, start, budget);
    budget -= (end === -1 ? text.length : end) - start + 1;
    if (end !== -1) {
      const parsed = parseJson(text.slice(start, end + 1));
      if (parsed.ok && isJsonObject(parsed.value)) {
        found.push(parsed.value);
        start = text.indexOf('{', end + 1);
        continue;
      }
    }
    start = text.indexOf('{', start + 1);
  }
  return found;
}

/** The index of the `}` that closes the `{` at `start`, or -1. */
function matchingBrace(text: string, start: number, budget: number): number {
  let depth = 0;
  let inString = false;
  const last = Math.min(text.length, start + budget);
  for (let index = start; index < last; index++) {
    const char = text[index];
    if (inString) {
      if (char === '\\') index++;
      else if (char === '"') inString = false;
    } else if (char === '"') {
      inString = true;
    } else if (char === '{') {
      depth++;
    } else if (char === '}') {
      depth--;
      if (depth === 0) return index;
    }
  }
  return -1;
}

/** Drops a comma followed only by whitespace and a closing bracket, leaving commas inside strings alone. */
function removeTrailingCommas(text: string): string {
  let result = '';
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const char = text[index];
    if (inString) {
      result += char;
      if (char === '\\') {
        result += text[index + 1] ?? '';
        index++;
      } else if (char === '"') {
        inString = false;
      }
      continue;
    }
    if (char === '"') inString = true;
    if (char === ',' && closesNext(text, index + 1)) continue;
    result += char;
  }
  return result;
}

function closesNext(text: string, from: number): boolean {
  let index = from;
  while (index < text.length && /\s/.test(text[index] ?? '')) index++;
  return text[index] === '}' || text[index] === ']';
}
