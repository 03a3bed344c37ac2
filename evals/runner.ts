// Runs the chosen scenarios one after another (each with its own world and model server), repeated if asked.
import picomatch from 'picomatch';
import { runScenario, type ScenarioResult } from './run-scenario.js';
import type { Scenario } from './schema.js';

export interface RunnerOptions {
  /** A glob matched against `<group>/<name>` and against `<name>`. */
  filter?: string | undefined;
  repeat?: number;
  onResult?: (result: ScenarioResult) => void;
}

export function selectScenarios(scenarios: Scenario[], filter: string | undefined): Scenario[] {
  if (filter === undefined) return scenarios;
  const matches = picomatch(filter);
  return scenarios.filter(
    (scenario) => matches(`${scenario.group}/${scenario.name}`) || matches(scenario.name),
  );
}

export async function runScenarios(
  scenarios: Scenario[],
  options: RunnerOptions = {},
): Promise<ScenarioResult[]> {
  const results: ScenarioResult[] = [];
  const repeat = options.repeat ?? 1;
  for (const scenario of selectScenarios(scenarios, options.filter)) {
    for (let round = 0; round < repeat; round++) {
      const result = await runScenario(scenario);
      results.push(result);
      options.onResult?.(result);
    }
  }
  return results;
}
