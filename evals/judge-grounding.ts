// Ties an answer's checked terms to evidence: each `answer.contains` term must also be in something the run's
// tools returned (or in the task), so a check passes only on a fact the agent could know, never on wording that
// the scenario's own script put in the answer. Terms about the outcome the kernel states itself (a refusal, an
// approval) are listed under `answer.mentions_outcome` instead, and are only looked for in the answer.
import type { ScenarioOutcome } from './outcome.js';

/**
 * What the run's tools gave back: every tool message the model was sent, and every result the run recorded (the
 * last calls of a run that ended before asking the model again are in no request). The person's answers to the
 * bot's questions are tool results too (ask_user's), as what the person says is evidence like the task.
 */
export function evidenceOf(outcome: Pick<ScenarioOutcome, 'run' | 'modelRequests'>): string[] {
  const evidence: string[] = [];
  for (const raw of outcome.modelRequests) {
    for (const content of toolMessageContents(raw)) evidence.push(content);
  }
  for (const event of outcome.run.events) {
    if (event.type === 'tool_result') evidence.push(event.summary);
    if (event.type === 'answer_received') evidence.push(event.answer);
  }
  return evidence;
}

function toolMessageContents(rawBody: string): string[] {
  let body: unknown;
  try {
    body = JSON.parse(rawBody);
  } catch {
    return [];
  }
  const messages = (body as { messages?: unknown }).messages;
  if (!Array.isArray(messages)) return [];
  return messages.flatMap((message: { role?: unknown; content?: unknown }) =>
    message?.role === 'tool' && typeof message.content === 'string' ? [message.content] : [],
  );
}

/** "not grounded: <term>" for each checked answer term found neither in the evidence nor in the task. */
export function groundingProblems(
  terms: readonly string[],
  outcome: Pick<ScenarioOutcome, 'run' | 'modelRequests'>,
  task: string,
): string[] {
  if (terms.length === 0) return [];
  // Tool results are JSON: a quote or a newline in them arrives escaped, so they are read decoded as well.
  const sources = [task, ...evidenceOf(outcome).flatMap((text) => [text, decodedJson(text)])]
    .join('\n')
    .toLowerCase();
  return terms
    .filter((term) => !sources.includes(term.toLowerCase()))
    .map((term) => `not grounded: "${term}" is in no tool result of the run, nor in the task`);
}

/** The strings inside a JSON text, joined; the text itself when it is not JSON. */
function decodedJson(text: string): string {
  try {
    return stringsIn(JSON.parse(text)).join('\n');
  } catch {
    return text;
  }
}

function stringsIn(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (typeof value === 'number' || typeof value === 'boolean') return [String(value)];
  if (Array.isArray(value)) return value.flatMap(stringsIn);
  if (value !== null && typeof value === 'object') return Object.values(value).flatMap(stringsIn);
  return [];
}
