// Reads the arguments a model wrote for a tool call, forgiving the small slips models make in JSON.

export type ToolArgumentsResult = { ok: true; args: Record<string, unknown> } | { ok: false; error: string };

const ASK = 'Send the arguments again as one valid JSON object, for example {"name": "value"}.';
const CODE_FENCE = /^```[\w-]*[ \t]*\r?\n?([\s\S]*?)\r?\n?[ \t]*```$/;

export function parseToolArguments(raw: string): ToolArgumentsResult {
  let text = raw.trim();
  const fenced = CODE_FENCE.exec(text);
  if (fenced) text = (fenced[1] ?? '').trim();
  if (text === '') return { ok: true, args: {} };

  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const repaired = removeTrailingCommas(text);
    try {
      value = JSON.parse(repaired);
    } catch {
      // Report the first parse error: it points at what the model actually wrote.
      const reason = error instanceof Error ? error.message : String(error);
      return { ok: false, error: `The tool arguments are not valid JSON (${reason}). ${ASK}` };
    }
  }

  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return {
      ok: false,
      error: `The tool arguments must be a JSON object, but they are ${describe(value)}. ${ASK}`,
    };
  }
  return { ok: true, args: value as Record<string, unknown> };
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

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return 'a string';
  if (typeof value === 'number') return 'a number';
  if (typeof value === 'boolean') return 'a boolean';
  return typeof value;
}
