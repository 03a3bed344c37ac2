// Scripts the fake OpenAI server from a scenario's `model` turns; a request past the end gets a clear error.
import {
  type FakeAnswer,
  type FakeRequestBody,
  hang,
  malformed,
  status,
  text,
  toolCalls,
} from '../tests/fakes/openai-answers.js';
import { type FakeOpenAIServer, startFakeOpenAIServer } from '../tests/fakes/openai-server.js';
import type { ModelSource, SentModelRequest } from './model-source.js';
import type { ModelTurn } from './schema.js';
import { fillValue } from './template.js';

function usageOf(turn: { usage?: { prompt: number; completion: number } | undefined }) {
  return turn.usage
    ? { usage: { promptTokens: turn.usage.prompt, completionTokens: turn.usage.completion } }
    : {};
}

export function fakeAnswer(turn: ModelTurn, values: Record<string, string>): FakeAnswer {
  if ('error_status' in turn) return status(turn.error_status);
  if ('malformed_body' in turn) return malformed(turn.malformed_body);
  if ('no_reply' in turn) return hang();
  if ('text' in turn) return text(fillValue(turn.text, values), usageOf(turn));
  return toolCalls(
    turn.tool_calls.map((call) => ({ name: call.name, arguments: fillValue(call.args, values) })),
    { ...usageOf(turn), ...(turn.content === undefined ? {} : { content: turn.content }) },
  );
}

/** The chat completion requests the fake received (not its model list). */
export function completionRequests(fake: FakeOpenAIServer): SentModelRequest[] {
  return fake.requests
    .filter((request) => request.path.split('?')[0]!.endsWith('/chat/completions'))
    .map((request) => ({ body: request.body, rawBody: request.rawBody }));
}

/** The scenario's own script: every turn must be asked for, and nothing more. */
export async function scriptedModel(
  turns: ModelTurn[],
  values: Record<string, string>,
  options: {
    rewriteRequest?: (body: FakeRequestBody) => FakeRequestBody;
    /** Each answer this late, as a slow model's would be (`--model-delay`). */
    delayMs?: number;
  } = {},
): Promise<ModelSource> {
  const { rewriteRequest, delayMs } = options;
  const fake = await startFakeOpenAIServer(rewriteRequest ? { rewriteRequest } : {});
  const late = (answer: FakeAnswer): FakeAnswer =>
    delayMs && (answer.kind === 'completion' || answer.kind === 'status') ? { ...answer, delayMs } : answer;
  fake.reply(...turns.map((turn) => late(fakeAnswer(turn, values))));
  let unscripted = 0;
  fake.respond(() => {
    unscripted += 1;
    return status(500, { message: `the scenario's model script has only ${turns.length} turn(s)` });
  });
  return {
    endpoint: { baseURL: fake.baseURL, apiKey: 'sk-eval', model: 'fake-model' },
    requests: () => completionRequests(fake),
    problems() {
      const problems: string[] = [];
      if (unscripted > 0)
        problems.push(`the run asked the model ${unscripted} more time(s) than the script has turns`);
      if (fake.pending() > 0) {
        problems.push(`${fake.pending()} scripted model turn(s) were never requested; the run stopped early`);
      }
      return problems;
    },
    close: () => fake.close(),
  };
}
