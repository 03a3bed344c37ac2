// The identity of a call for duplicate detection: the tool and its arguments in a canonical order.
import { stableJson } from './stable-json.js';

export function callSignature(name: string, args: unknown): string {
  return `${name}:${stableJson(args)}`;
}
