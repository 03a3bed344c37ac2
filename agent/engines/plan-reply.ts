// What a planning reply is: a plan (JSON in the text, fenced or not, or inside a little prose), an answer (plain
// text with no plan in it), or a plan that could not be read (JSON that names steps but does not parse).
import { findJsonObjects, isJsonObject, parseJson, unwrapFence } from '../model/json-text.js';

export type PlanReply =
  | { kind: 'plan'; raw: unknown }
  | { kind: 'answer'; text: string }
  | { kind: 'unreadable'; reason: string };

/** Text that means to be a plan: a `steps` key, written as JSON writes keys. */
const PLAN_MARK = /["']steps["']\s*:/;

export function readPlanReply(text: string): PlanReply {
  const whole = parseJson(unwrapFence(text));
  if (whole.ok && (Array.isArray(whole.value) || isPlanObject(whole.value)))
    return { kind: 'plan', raw: whole.value };
  const inProse = findJsonObjects(text).find(isPlanObject);
  if (inProse) return { kind: 'plan', raw: inProse };
  if (PLAN_MARK.test(text)) {
    const reason = whole.ok ? 'it has no "steps" list' : `it is not valid JSON (${whole.reason})`;
    return { kind: 'unreadable', reason: `the plan could not be read: ${reason}` };
  }
  return { kind: 'answer', text: text.trim() };
}

function isPlanObject(value: unknown): value is Record<string, unknown> {
  return isJsonObject(value) && (Array.isArray(value.steps) || Array.isArray(value.plan));
}
