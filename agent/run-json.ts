// A run's JSON for the Store, made without serializing its whole history on every save. A run's messages,
// events and completed calls are never changed once made (transitions add new ones, or whole new lists), so each
// is serialized once, when first saved, and later saves join the JSON they already have: a save costs what is new
// since the last one, not the whole record. Tests check every save against JSON.stringify (`checkRunJson`).
import { isDeepStrictEqual } from 'node:util';
import type { Run } from './run.js';

const serialized = new WeakMap<object, string>();

function cached(item: object): string {
  let json = serialized.get(item);
  if (json === undefined) {
    json = JSON.stringify(item);
    serialized.set(item, json);
  }
  return json;
}

function list(items: readonly object[]): string {
  let json = '[';
  for (let index = 0; index < items.length; index++) json += (index > 0 ? ',' : '') + cached(items[index]!);
  return `${json}]`;
}

function record(entries: Readonly<Record<string, object>>): string {
  let json = '{';
  let first = true;
  for (const key in entries) {
    json += `${first ? '' : ','}${JSON.stringify(key)}:${cached(entries[key]!)}`;
    first = false;
  }
  return `${json}}`;
}

/** The same value as JSON.stringify(run), with the fields in another order. */
export function runJson(run: Run): string {
  const { messages, events, completedCalls, ...header } = run;
  const head = JSON.stringify(header);
  const rest = `"messages":${list(messages)},"completedCalls":${record(completedCalls)},"events":${list(events)}}`;
  return head === '{}' ? `{${rest}` : `${head.slice(0, -1)},${rest}`;
}

/**
 * For tests (OPSBOT_CHECK_RUN_JSON=1): throws when the JSON differs from JSON.stringify's, which means a message
 * or event was changed in place after it was first saved, and the cache would have kept the old one.
 */
export function checkRunJson(run: Run, json: string): void {
  const expected: unknown = JSON.parse(JSON.stringify(run));
  if (!isDeepStrictEqual(JSON.parse(json), expected)) {
    throw new Error(
      `run ${run.id}: its saved JSON differs from the run; a message, event or completed call was changed in place after it was saved`,
    );
  }
}
