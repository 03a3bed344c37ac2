// A tool result within the run's output cap, still JSON: the summary and the shape of the data are kept, and the
// data's longest lists are cut from their end first (saying how many items were left out), so the model, the
// command engine's answer and its tables all still read it. Only a result whose cut lists still do not fit is cut
// as text.
import { capContent } from './call-outcome.js';

interface ResultJson {
  tool: string;
  ok: boolean;
  summary: string;
  data?: unknown;
}

export function cappedResultJson(limit: number, result: ResultJson): string {
  const full = JSON.stringify(result);
  if (full.length <= limit || result.data === undefined) return capContent(limit, full);
  let data: unknown = result.data;
  const leftOut: Record<string, number> = {};
  for (let round = 0; round < 40; round++) {
    const longest = longestList(data);
    if (!longest || longest.items.length <= 1) break;
    const keep = Math.floor(longest.items.length / 2);
    leftOut[longest.key] = (leftOut[longest.key] ?? 0) + (longest.items.length - keep);
    data = longest.replace(longest.items.slice(0, keep));
    const text = JSON.stringify({ ...result, data, items_left_out: leftOut });
    if (text.length <= limit) return text;
  }
  return capContent(limit, JSON.stringify({ ...result, data, items_left_out: leftOut }));
}

interface FoundList {
  key: string;
  items: unknown[];
  replace(items: unknown[]): unknown;
}

/** The data itself when it is a list, or its longest list-valued key (one level down). */
function longestList(data: unknown): FoundList | undefined {
  if (Array.isArray(data)) return { key: 'data', items: data, replace: (items) => items };
  if (data === null || typeof data !== 'object') return undefined;
  let found: FoundList | undefined;
  let longestChars = 0;
  for (const [key, value] of Object.entries(data)) {
    if (!Array.isArray(value)) continue;
    const chars = JSON.stringify(value).length;
    if (chars > longestChars) {
      longestChars = chars;
      found = { key, items: value, replace: (items) => ({ ...data, [key]: items }) };
    }
  }
  return found;
}
