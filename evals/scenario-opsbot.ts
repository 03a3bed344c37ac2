// The real opsbot for one scenario: its settings (base + scenario + world), the scripted fake model, a memory store.
// Shared by the task runner (run-scenario.ts) and the patrol runner (run-patrol-scenario.ts).
import type { ChatPort } from '../agent/chat-port.js';
import { silentLogger } from '../agent/logger.js';
import { MemoryStore } from '../agent/store/memory-store.js';
import { createOpsbot, type Opsbot } from '../bot/compose.js';
import { readEnvironment } from '../bot/config/environment.js';
import type { Settings } from '../bot/config/settings-schema.js';
import type { FakeOpenAIServer } from '../tests/fakes/openai-server.js';
import { scriptModel } from './model-script.js';
import type { Scenario } from './schema.js';
import { scenarioSettings } from './settings.js';
import { fillValue } from './template.js';
import type { RunningWorld } from './world.js';

export interface ScenarioOpsbot {
  opsbot: Opsbot;
  settings: Settings;
  /** How many model requests came after the script ran out. */
  model: { unscripted(): number };
}

export async function composeScenarioOpsbot(
  scenario: Scenario,
  setup: { world: RunningWorld; fake: FakeOpenAIServer; dataDir: string; chat: ChatPort },
): Promise<ScenarioOpsbot> {
  const { world, fake } = setup;
  const settings = scenarioSettings(scenario, fillValue(scenario.settings, world.values), world.logsDir);
  const model = scriptModel(fake, scenario.model, world.values);
  const environment = readEnvironment({
    OPSBOT_DATA_DIR: setup.dataDir,
    OPSBOT_PLAYGROUND: 'off',
    OPENAI_BASE_URL: fake.baseURL,
    OPENAI_API_KEY: 'sk-eval',
    OPENAI_MODEL: 'fake-model',
    LOG_LEVEL: 'silent',
  });
  const opsbot = await createOpsbot({
    environment,
    settings,
    chat: setup.chat,
    logger: silentLogger,
    store: new MemoryStore(),
  });
  return { opsbot, settings, model };
}
