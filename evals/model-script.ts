// Scripts the fake OpenAI server from a scenario's `model` turns; a request past the end gets a clear error.
import { type FakeAnswer, status, text, toolCalls } from '../tests/fakes/openai-answers.js';
import type { FakeOpenAIServer } from '../tests/fakes/openai-server.js';
import type { ModelTurn } from './schema.js';
import { fillValue } from './template.js';

function usageOf(turn: { usage?: { prompt: number; completion: number } | undefined }) {
  return turn.usage
    ? { usage: { promptTokens: turn.usage.prompt, completionTokens: turn.usage.completion } }
    : {};
}

export function fakeAnswer(turn: ModelTurn, values: Record<string, string>): FakeAnswer {
  if ('error_status' in turn) return status(turn.error_status);
  if ('text' in turn) return text(fillValue(turn.text, values), usageOf(turn));
  return toolCalls(
    turn.tool_calls.map((call) => ({ name: call.name, arguments: fillValue(call.args, values) })),
    { ...usageOf(turn), ...(turn.content === undefined ? {} : { content: turn.content }) },
  );
}

/** Queues the turns; returns how many requests came after the script ran out. */
export function scriptModel(
  fake: FakeOpenAIServer,
  turns: ModelTurn[],
  values: Record<string, string>,
): { unscripted(): number } {
  fake.reply(...turns.map((turn) => fakeAnswer(turn, values)));
  let unscripted = 0;
  fake.respond(() => {
    unscripted += 1;
    return status(500, { message: `the scenario's model script has only ${turns.length} turn(s)` });
  });
  return { unscripted: () => unscripted };
}
