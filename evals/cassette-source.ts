// Replays a cassette through the fake OpenAI server. Each request must send what the recorded one sent (tools
// offered, system prompt and tool descriptions); if not, the recorded replies no longer mean anything, and
// the scenario fails asking for the cassette to be recorded again.
import { status } from '../tests/fakes/openai-answers.js';
import { startFakeOpenAIServer } from '../tests/fakes/openai-server.js';
import type { Cassette } from './cassette.js';
import { completionRequests, fakeAnswer } from './model-script.js';
import type { ModelSource } from './model-source.js';
import { fingerprintChanges, fingerprintOf } from './sent-fingerprint.js';

export async function cassetteModel(
  cassette: Cassette,
  values: Record<string, string>,
  where: string,
): Promise<ModelSource> {
  const fake = await startFakeOpenAIServer();
  const mismatches: string[] = [];
  let extra = 0;
  let answered = 0;
  fake.respond((request, index) => {
    const turn = cassette.turns[index];
    if (!turn) {
      extra += 1;
      return status(500, { message: `the cassette has only ${cassette.turns.length} recorded turn(s)` });
    }
    answered += 1;
    const changes = fingerprintChanges(turn.sent, fingerprintOf(request.body, values));
    if (changes.length > 0) mismatches.push(`request ${index + 1}: ${changes.join('; ')}`);
    return fakeAnswer(turn.reply, values);
  });
  const rerecord = `record it again: npm run eval -- --live --record --filter ${cassette.scenario}`;
  return {
    endpoint: { baseURL: fake.baseURL, apiKey: 'sk-eval', model: cassette.model },
    requests: () => completionRequests(fake),
    problems() {
      const problems: string[] = [];
      if (mismatches.length > 0) {
        problems.push(`${where} no longer matches what the model is sent (${mismatches[0]}); ${rerecord}`);
      }
      if (extra > 0) {
        problems.push(
          `the run asked the model ${extra} more time(s) than ${where} recorded; the run changed, ${rerecord}`,
        );
      }
      if (answered < cassette.turns.length) {
        problems.push(
          `${cassette.turns.length - answered} recorded turn(s) in ${where} were never requested; ${rerecord}`,
        );
      }
      return problems;
    },
    close: () => fake.close(),
  };
}
