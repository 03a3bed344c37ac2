// Prompts are versioned files beside this module; this loads them once and fills their {{placeholders}}.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const folder = join(dirname(fileURLToPath(import.meta.url)), 'prompts');
const cache = new Map<string, string>();

export const PROMPTS = {
  system: 'system.v1.md',
  summarize: 'summarize.v1.md',
  threadSummary: 'thread-summary.v1.md',
  teamNotes: 'team-notes.v1.md',
  wrapUp: 'wrap-up.v1.md',
  callReview: 'call-review.v1.md',
  plan: 'plan.v1.md',
  planFix: 'plan-fix.v1.md',
  planReplan: 'plan-replan.v1.md',
  planAnswer: 'plan-answer.v1.md',
} as const;
export type PromptName = keyof typeof PROMPTS;

export function renderPrompt(name: PromptName, values: Record<string, string> = {}): string {
  const file = PROMPTS[name];
  let text = cache.get(file);
  if (text === undefined) {
    text = readFileSync(join(folder, file), 'utf8').trim();
    cache.set(file, text);
  }
  return text.replace(/\{\{(\w+)\}\}/g, (whole, key: string) =>
    Object.hasOwn(values, key) ? values[key]! : whole,
  );
}
