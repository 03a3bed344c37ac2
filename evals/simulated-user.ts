// The person on call answering the bot's questions. Scripted: the scenario's `person.answers` rules, then its
// `who.knows` facts by a fixed rule. Live: a second model plays the person from their persona and facts, so a
// live model that words its question its own way still gets an answer, and one it could not know gets "I don't
// know" instead of an invented fact.
import OpenAI from 'openai';
import { z } from 'zod';
import type { ModelEndpoint } from './model-source.js';
import type { Scenario } from './schema.js';
import { fillText } from './template.js';

export const I_DO_NOT_KNOW = "I don't know.";

/** An answer to type, or why the person leaves the question unanswered. */
export type PersonAnswer = { answer: string } | { note: string };

export interface QuestionToAnswer {
  question: string;
  choices: string[];
}

export interface SimulatedUser {
  answer(question: QuestionToAnswer): Promise<PersonAnswer>;
}

/** Words that say nothing about what a question is about. */
const FILLER = new Set(
  'the a an is are was were be to of in on at for and or it its this that which what who how should i you me we my your do does did can could would will with from please'.split(
    ' ',
  ),
);

const wordsOf = (text: string): Set<string> =>
  new Set(
    text
      .toLowerCase()
      .split(/[^a-z0-9_.:/-]+/)
      .filter((word) => word.length > 1 && !FILLER.has(word)),
  );

/**
 * The fixed rule: facts ranked by the words they share with the question (the first of equals first). With
 * choices, the first choice the best-ranked fact naming any choice names; without, the best fact that shares a
 * word. A question no fact touches gets "I don't know".
 */
export function answerFromFacts(question: QuestionToAnswer, facts: readonly string[]): string {
  const asked = wordsOf(question.question);
  const ranked = facts
    .map((fact, index) => ({
      fact,
      index,
      shared: [...wordsOf(fact)].filter((word) => asked.has(word)).length,
    }))
    .sort((a, b) => b.shared - a.shared || a.index - b.index);
  if (question.choices.length > 0) {
    for (const { fact } of ranked) {
      const words = wordsOf(fact);
      const named = question.choices.find((choice) => words.has(choice.toLowerCase()));
      if (named !== undefined) return named;
    }
    return I_DO_NOT_KNOW;
  }
  const best = ranked[0];
  return best !== undefined && best.shared > 0 ? best.fact : I_DO_NOT_KNOW;
}

/** Scripted: `person.answers` first (a rule whose `match` is in the question), then `who.knows`. */
export function scriptedUser(scenario: Scenario, values: Record<string, string>): SimulatedUser {
  const facts = scenario.who.knows.map((fact) => fillText(fact, values));
  return {
    async answer({ question, choices }) {
      const lower = question.toLowerCase();
      const rule = scenario.person.answers.find(
        (candidate) => candidate.match === undefined || lower.includes(candidate.match.toLowerCase()),
      );
      if (rule) {
        if (!rule.first_choice) return { answer: fillText(rule.answer ?? '', values) };
        const first = choices[0];
        return first === undefined
          ? { note: 'first_choice, but the question offered no choices' }
          : { answer: first };
      }
      if (facts.length > 0) return { answer: answerFromFacts({ question, choices }, facts) };
      return { note: `no person.answers rule matches the question "${question}", and who.knows is empty` };
    },
  };
}

/** The start of the simulated user's system prompt, by which a fake model tells its requests from opsbot's. */
export const SIMULATED_USER_PROMPT_START = 'You are playing the person who asked an ops chat bot for help.';

export function simulatedUserPrompt(scenario: Scenario, facts: readonly string[], task: string): string {
  return [
    SIMULATED_USER_PROMPT_START,
    `You asked it: "${task}"`,
    scenario.who.persona ? `How you come across: ${scenario.who.persona}` : '',
    'What you know, and all you know:',
    ...facts.map((fact) => `- ${fact}`),
    'The bot now asks you a question. Answer it in one short chat message, as that person would, using only the',
    `facts above. If they do not answer it, reply exactly "${I_DO_NOT_KNOW}" Never invent a fact, and do not`,
    'ask anything back. When the bot offers choices, reply with one of them, word for word.',
  ]
    .filter(Boolean)
    .join('\n');
}

const ReplySchema = z.object({
  choices: z.array(z.object({ message: z.object({ content: z.string().nullish() }) })).min(1),
});

/**
 * Live: the user model plays the person from `who.knows` and `who.persona`. A scenario without facts keeps its
 * scripted rules, as a person who was only told to say "worker" to a question about a service.
 */
export function liveUser(
  scenario: Scenario,
  values: Record<string, string>,
  endpoint: ModelEndpoint,
  task: string,
): SimulatedUser {
  const facts = scenario.who.knows.map((fact) => fillText(fact, values));
  if (facts.length === 0) return scriptedUser(scenario, values);
  const client = new OpenAI({ baseURL: endpoint.baseURL, apiKey: endpoint.apiKey, maxRetries: 1 });
  const system = simulatedUserPrompt(scenario, facts, task);
  return {
    async answer({ question, choices }) {
      const asked = choices.length > 0 ? `${question}\nChoices: ${choices.join(' | ')}` : question;
      try {
        const raw: unknown = await client.chat.completions.create({
          model: endpoint.model,
          messages: [
            { role: 'system', content: system },
            { role: 'user', content: asked },
          ],
        });
        const content = ReplySchema.parse(raw).choices[0]!.message.content?.trim();
        return content ? { answer: content } : { note: 'the simulated user’s model replied with no text' };
      } catch (error) {
        const why = error instanceof Error ? error.message : String(error);
        return { note: `the simulated user’s model (${endpoint.model}) failed: ${why}` };
      }
    },
  };
}
