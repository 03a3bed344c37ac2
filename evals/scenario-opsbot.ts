// The real opsbot for one scenario: its settings (base + world + mode + scenario), the given model source and a
// memory store. Shared by the task runner (run-scenario.ts) and the patrol runner (run-patrol-scenario.ts).
import type { ChatPort } from '../agent/chat-port.js';
import type { Clock } from '../agent/clock.js';
import { silentLogger } from '../agent/logger.js';
import { MemoryStore } from '../agent/store/memory-store.js';
import { createOpsbot, type Opsbot } from '../bot/compose.js';
import { readEnvironment } from '../bot/config/environment.js';
import type { Settings } from '../bot/config/settings-schema.js';
import { pinTrustedTools } from './mcp-trusted-pins.js';
import type { ModelSource } from './model-source.js';
import type { Scenario } from './schema.js';
import { mergeSettings, scenarioSettings } from './settings.js';
import { fillValue } from './template.js';
import { type WeakenedSafety, weakenedRedactor, weakenedSettings } from './weakened-safety.js';
import type { RunningWorld } from './world.js';
import { worldNotes } from './world-notes.js';

export interface ScenarioOpsbot {
  opsbot: Opsbot;
  settings: Settings;
}

export async function composeScenarioOpsbot(
  scenario: Scenario,
  setup: {
    world: RunningWorld;
    model: ModelSource;
    dataDir: string;
    chat: ChatPort;
    /** What opsbot reads as now; the system clock when absent. */
    clock?: Clock;
    /** Settings the mode needs, applied before the scenario's own. */
    modeSettings?: Record<string, unknown>;
    /** Tests only: a safety rule switched off (weakened-safety.ts). */
    weakened?: WeakenedSafety | undefined;
  },
): Promise<ScenarioOpsbot> {
  const { world, model } = setup;
  const overrides = mergeSettings(
    fillValue(scenario.settings, world.values),
    weakenedSettings(setup.weakened),
  );
  const settings = scenarioSettings(scenario, overrides, {
    logsDir: world.logsDir,
    notes: worldNotes(scenario.world, world.values),
    mcpServers: world.mcp.servers,
    ...(setup.modeSettings ? { mode: setup.modeSettings } : {}),
  });
  const environment = readEnvironment({
    OPSBOT_DATA_DIR: setup.dataDir,
    OPSBOT_PLAYGROUND: 'off',
    OPENAI_BASE_URL: model.endpoint.baseURL,
    OPENAI_API_KEY: model.endpoint.apiKey,
    OPENAI_MODEL: model.endpoint.model,
    LOG_LEVEL: 'silent',
  });
  const store = new MemoryStore();
  if (world.mcp.hasTrusted) await pinTrustedTools(settings, world.mcp, store);
  const redactor = weakenedRedactor(setup.weakened);
  const opsbot = await createOpsbot({
    environment,
    settings,
    ...(redactor ? { redactor } : {}),
    chat: setup.chat,
    logger: silentLogger,
    store,
    ...(setup.clock ? { clock: setup.clock } : {}),
  });
  return { opsbot, settings };
}
