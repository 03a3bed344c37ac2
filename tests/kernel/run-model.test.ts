// The model-based test of the kernel (issue 9): random sequences of start, answer, approve, deny, cancel, expire,
// crash, recover and time passing, over two kernels on one store, then the invariants. See tests/kernel/model/.
//
// Environment, to replay or widen a run:
//   OPSBOT_MODEL_SEED=<n>      the fast-check seed (default 9009); a failure prints the seed and the path
//   OPSBOT_MODEL_PATH=<path>   replays one counterexample: the `path` a failure printed, with its seed
//   OPSBOT_MODEL_RUNS=<n>      sequences per backend (default 50)
//   OPSBOT_MODEL_COMMANDS=<n>  the most commands in one sequence (default 15)
//   OPSBOT_MODEL_VERBOSE=1     prints every sequence's story, passing or not
import fc from 'fast-check';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { type FakeOpenAIServer, startFakeOpenAIServer } from '../fakes/openai-server.js';
import { type Command, describeCommand, sequenceArbitrary } from './model/model-commands.js';
import { settle, violations } from './model/model-invariants.js';
import { type Backend, ModelWorld, REDIS_URL, redisAnswers } from './model/model-world.js';
import { runCommand, storedRuns } from './model/run-commands.js';
import { scriptedResponder } from './model/scripted-model.js';

const seed = Number(process.env.OPSBOT_MODEL_SEED ?? 9009);
const numRuns = Number(process.env.OPSBOT_MODEL_RUNS ?? 50);
const maxCommands = Number(process.env.OPSBOT_MODEL_COMMANDS ?? 15);
const path = process.env.OPSBOT_MODEL_PATH;
const verbose = process.env.OPSBOT_MODEL_VERBOSE === '1';

const hasRedis = await redisAnswers();

let fake: FakeOpenAIServer;
beforeAll(async () => {
  fake = await startFakeOpenAIServer({ record: false });
  fake.respond(scriptedResponder());
});
afterAll(async () => fake?.close());

/** Runs one sequence in a fresh world and throws, with the whole story, if any invariant breaks. */
async function runSequence(backend: Backend, onDenial: 'continue' | 'stop', commands: Command[]) {
  const began = performance.now();
  const world = await ModelWorld.create(backend, fake, onDenial);
  try {
    for (const [index, command] of commands.entries()) await runCommand(world, command, index + 1);
    await settle(world);
    const broken = await violations(world);
    if (verbose) {
      const took = `took ${Math.round(performance.now() - began)} ms`;
      console.log([`on_denial: ${onDenial}`, ...world.story, await outcomes(world), took].join('\n'));
    }
    if (broken.length > 0) {
      throw new Error(
        [
          `${broken.length} invariant(s) broken (on_denial: ${onDenial}):`,
          ...broken.map((line) => `  - ${line}`),
          'What happened:',
          ...world.story.map((line) => `  ${line}`),
        ].join('\n'),
      );
    }
  } finally {
    await world.close();
  }
}

/** How the runs ended and what ran, for the verbose story. */
async function outcomes(world: ModelWorld): Promise<string> {
  const runs = (await storedRuns(world)).map((run) => `${run.id} ${run.status}`);
  const ran = world.executions.executions.map((execution) => `${execution.tool} in ${execution.runId}`);
  return `ended: ${runs.join(', ')}\nexecuted: ${ran.join(', ') || 'nothing'}`;
}

const sequences = fc.record({
  onDenial: fc.constantFrom('continue' as const, 'stop' as const),
  commands: sequenceArbitrary(maxCommands),
});

function checkBackend(backend: Backend) {
  return async () => {
    await fc.assert(
      fc.asyncProperty(sequences, ({ onDenial, commands }) => runSequence(backend, onDenial, commands)),
      {
        seed,
        numRuns,
        ...(path ? { path } : {}),
        // Shows the counterexample as one command a line instead of one long object.
        reporter: (details) => {
          if (!details.failed) return;
          const example = details.counterexample?.[0];
          const lines = example
            ? [`on_denial: ${example.onDenial}`, ...example.commands.map(describeCommand)]
            : [];
          throw new Error(
            [
              `The model test failed on ${backend} after ${details.numRuns} sequence(s), shrunk ${details.numShrinks} time(s).`,
              `Replay: OPSBOT_MODEL_SEED=${details.seed} OPSBOT_MODEL_PATH="${details.counterexamplePath}" npx vitest run tests/kernel/run-model.test.ts`,
              'Commands:',
              ...lines.map((line, index) => `  ${index === 0 ? '' : `${index}. `}${line}`),
              details.errorInstance instanceof Error
                ? details.errorInstance.message
                : String(details.errorInstance),
            ].join('\n'),
          );
        },
      },
    );
  };
}

describe('the kernel under random commands, crashes and time (model-based)', () => {
  it('holds its invariants on one SQLite file shared by two kernels', checkBackend('sqlite'), 180_000);
  it.skipIf(!hasRedis)(
    `holds its invariants on one Redis shared by two kernels${hasRedis ? '' : ` (skipped: no Redis answered at ${REDIS_URL})`}`,
    checkBackend('redis'),
    180_000,
  );
});
