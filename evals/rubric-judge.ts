// An optional LLM judge for free text (`--judge-model`): it grades a run's answer against the scenario's `rubric:`
// items, one binary verdict each, with the task and what the tools returned as the evidence. Its reply is checked
// with zod; a reply that is not a verdict for every item is an error, never a pass. The deterministic checks still
// decide whenever a scenario has them (see rubricDecides).
import OpenAI from 'openai';
import { z } from 'zod';
import type { ModelEndpoint } from './model-source.js';
import type { Expect } from './schema.js';

export interface RubricItemVerdict {
  item: string;
  pass: boolean;
  reason: string;
}

export type RubricResult = { model: string; items: RubricItemVerdict[] } | { model: string; error: string };

export const RUBRIC_JUDGE_PROMPT_START = 'You grade the answer an ops chat bot gave against a rubric.';

const RUBRIC_JUDGE_PROMPT = [
  RUBRIC_JUDGE_PROMPT_START,
  'You get the task, the evidence (what the bot’s tools returned) and the answer, and numbered rubric items.',
  'For each item decide pass (true) or fail (false) on the answer alone: a claim the evidence does not support',
  'fails. Reply with JSON only, no prose and no code fence, in this shape:',
  '{"items": [{"item": 1, "pass": true, "reason": "one short sentence"}]}',
  'with exactly one entry per rubric item, in order.',
].join('\n');

const VerdictSchema = z
  .object({
    items: z.array(
      z
        .object({
          item: z.number().int().positive(),
          pass: z.boolean(),
          reason: z.string().min(1),
        })
        .strict(),
    ),
  })
  .strict();

const ReplySchema = z.object({
  choices: z.array(z.object({ message: z.object({ content: z.string().nullish() }) })).min(1),
});

export interface RubricCase {
  task: string;
  evidence: string[];
  answer: string | undefined;
  rubric: readonly string[];
}

function judgeRequestText(judged: RubricCase): string {
  return [
    `Task: ${judged.task}`,
    'Evidence:',
    ...(judged.evidence.length > 0 ? judged.evidence.map((text) => `- ${text}`) : ['(none)']),
    `Answer: ${judged.answer ?? '(the run gave no answer)'}`,
    'Rubric:',
    ...judged.rubric.map((item, index) => `${index + 1}. ${item}`),
  ].join('\n');
}

/** The verdict, item by item, or why there is none (the judge failed, or replied with something else). */
export async function judgeRubric(endpoint: ModelEndpoint, judged: RubricCase): Promise<RubricResult> {
  const client = new OpenAI({ baseURL: endpoint.baseURL, apiKey: endpoint.apiKey, maxRetries: 1 });
  let content: string;
  try {
    const raw: unknown = await client.chat.completions.create({
      model: endpoint.model,
      messages: [
        { role: 'system', content: RUBRIC_JUDGE_PROMPT },
        { role: 'user', content: judgeRequestText(judged) },
      ],
    });
    content = ReplySchema.parse(raw).choices[0]!.message.content ?? '';
  } catch (error) {
    return { model: endpoint.model, error: `the judge could not be asked: ${messageOf(error)}` };
  }
  let parsed: z.infer<typeof VerdictSchema>;
  try {
    parsed = VerdictSchema.parse(JSON.parse(content.trim()));
  } catch (error) {
    return { model: endpoint.model, error: `the judge's reply is not a verdict: ${messageOf(error)}` };
  }
  const numbers = parsed.items.map((entry) => entry.item).join(',');
  const expected = judged.rubric.map((_item, index) => index + 1).join(',');
  if (numbers !== expected) {
    return {
      model: endpoint.model,
      error: `the judge's verdict covers items [${numbers}], expected [${expected}]`,
    };
  }
  return {
    model: endpoint.model,
    items: parsed.items.map((entry, index) => ({
      item: judged.rubric[index]!,
      pass: entry.pass,
      reason: entry.reason,
    })),
  };
}

function messageOf(error: unknown): string {
  if (error instanceof z.ZodError) return z.prettifyError(error).replace(/\n/g, ' ');
  return error instanceof Error ? error.message : String(error);
}

/**
 * Whether the scenario has deterministic checks: any expectation set (an empty list is none). When it has, they
 * decide pass or fail and the rubric is only reported; without them, the rubric decides.
 */
export function hasDeterministicChecks(expect: Expect): boolean {
  return Object.values(expect).some(
    (value) => value !== undefined && !(Array.isArray(value) && value.length === 0),
  );
}

/** Reasons the rubric fails the scenario: only when it decides, and then every failed item or the error. */
export function rubricProblems(expect: Expect, result: RubricResult | undefined): string[] {
  if (result === undefined || hasDeterministicChecks(expect)) return [];
  if ('error' in result) return [`rubric: ${result.error}`];
  return result.items
    .filter((entry) => !entry.pass)
    .map((entry) => `rubric: "${entry.item}" failed: ${entry.reason}`);
}
