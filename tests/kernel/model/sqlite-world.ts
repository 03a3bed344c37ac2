// For tests of one crash or race at a time: a scripted model shared by the file, and a fresh two-process world on
// one SQLite file per test, closed after it.
import { afterAll, afterEach, beforeAll } from 'vitest';
import { type FakeOpenAIServer, startFakeOpenAIServer } from '../../fakes/openai-server.js';
import { ModelWorld } from './model-world.js';
import { scriptedResponder } from './scripted-model.js';

/** Registers the hooks; the returned function makes the test's world. */
export function sqliteWorlds(): () => Promise<ModelWorld> {
  let fake: FakeOpenAIServer | undefined;
  let world: ModelWorld | undefined;
  beforeAll(async () => {
    fake = await startFakeOpenAIServer({ record: false });
    fake.respond(scriptedResponder());
  });
  afterAll(async () => fake?.close());
  afterEach(async () => {
    await world?.close();
    world = undefined;
  });
  return async () => {
    if (!fake) throw new Error('sqliteWorlds() must be called at the top of a test file');
    world = await ModelWorld.create('sqlite', fake, 'continue');
    return world;
  };
}
