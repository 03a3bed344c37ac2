// Runs the chosen scenarios one after another (each with its own world and model), repeated if asked: in
// scripted mode each scenario's script and then its cassette, if one was recorded; in live mode against the
// live model, saving a passing run's replies as the scenario's cassette when recording.
import picomatch from 'picomatch';
import type { EngineKind } from '../agent/run-engine-kind.js';
import { type CassetteTurn, cassettePath, loadCassette, saveCassette, scenarioKey } from './cassette.js';
import type { ModelEndpoint } from './model-source.js';
import { runScenario } from './run-scenario.js';
import type { ModelMode, ScenarioResult } from './scenario-result.js';
import type { Scenario } from './schema.js';
import type { SentLock } from './sent-lock.js';

export interface RunnerOptions {
  /** A glob matched against `<group>/<name>` and against `<name>`. */
  filter?: string | undefined;
  repeat?: number;
  onResult?: (result: ScenarioResult) => void;
  /** Where cassettes are replayed from (scripted) and recorded to (live with `record`). */
  cassettesDir: string;
  /** Scripted mode: the lock to check against, or 'skip' while updating it. */
  lock?: SentLock | 'skip';
  /** Live mode: the model to judge, instead of the scenarios' scripts. */
  live?: ModelEndpoint | undefined;
  /** Live mode: the model that plays the person answering questions; the live model when absent. */
  userModel?: ModelEndpoint | undefined;
  record?: boolean;
  /** The LLM judge for scenarios' rubrics (--judge-model), in any mode. */
  judge?: ModelEndpoint | undefined;
  /** The engine tasks start with (--engine); the kernel's own choice when absent. */
  engine?: EngineKind | undefined;
  /** Scripted mode: each model answer this late (--model-delay), as a slow model's would be. */
  modelDelayMs?: number | undefined;
  /** Called once per scenario recorded in live mode: the cassette's path, or why none was written. */
  onRecorded?: (scenario: Scenario, outcome: { path: string } | { notRecorded: string }) => void;
}

export function selectScenarios(scenarios: Scenario[], filter: string | undefined): Scenario[] {
  if (filter === undefined) return scenarios;
  const matches = picomatch(filter);
  return scenarios.filter(
    (scenario) =>
      matches(`${scenario.group}/${scenario.name}`) || matches(scenario.name) || matches(scenario.group),
  );
}

async function repeated(
  scenario: Scenario,
  mode: ModelMode,
  options: RunnerOptions,
  results: ScenarioResult[],
): Promise<void> {
  for (let round = 0; round < (options.repeat ?? 1); round++) {
    const result = await runScenario(scenario, mode, { judge: options.judge, engine: options.engine });
    results.push(result);
    options.onResult?.(result);
  }
}

async function runLive(
  scenario: Scenario,
  live: ModelEndpoint,
  options: RunnerOptions,
  results: ScenarioResult[],
) {
  let kept: CassetteTurn[] | undefined;
  const onRecording = (turns: CassetteTurn[], passed: boolean) => {
    if (passed) kept = turns;
  };
  const user = options.userModel ? { user: options.userModel } : {};
  await repeated(scenario, { kind: 'live', target: live, ...user, onRecording }, options, results);
  if (!options.record || scenario.scripted_only !== undefined) return;
  if (!kept) {
    options.onRecorded?.(scenario, {
      notRecorded: 'no run passed, and a cassette must replay a passing run',
    });
    return;
  }
  const path = cassettePath(options.cassettesDir, scenario);
  saveCassette(path, {
    scenario: scenarioKey(scenario),
    model: live.model,
    recorded_at: new Date().toISOString(),
    turns: kept,
  });
  options.onRecorded?.(scenario, { path });
}

export async function runScenarios(scenarios: Scenario[], options: RunnerOptions): Promise<ScenarioResult[]> {
  const results: ScenarioResult[] = [];
  for (const scenario of selectScenarios(scenarios, options.filter)) {
    if (options.live) {
      await runLive(scenario, options.live, options, results);
      continue;
    }
    await repeated(
      scenario,
      {
        kind: 'scripted',
        ...(options.lock ? { lock: options.lock } : {}),
        ...(options.modelDelayMs ? { delayMs: options.modelDelayMs } : {}),
      },
      options,
      results,
    );
    const where = cassettePath(options.cassettesDir, scenario);
    const cassette = loadCassette(where);
    if (cassette) await repeated(scenario, { kind: 'cassette', cassette, where }, options, results);
  }
  return results;
}
