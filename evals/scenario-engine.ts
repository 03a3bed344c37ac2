// Which engine a scenario's run starts on, and its script there: `--engine` wins over the scenario's own
// `engine:`; a scripted run needs a script for that engine (`model:` for its own, `scripts.<engine>` for another),
// and is skipped, saying so, without one. Its lock entry is its own per engine.
import type { EngineKind } from '../agent/run-engine-kind.js';
import type { ModelTurn, Scenario } from './schema.js';

/** The engine a task's run starts on; undefined leaves it to the kernel (react with a model). */
export function engineFor(scenario: Scenario, given: EngineKind | undefined): EngineKind | undefined {
  return given ?? scenario.engine;
}

/** The scenario's own engine: what its `model:` turns are written for. */
function ownEngine(scenario: Scenario): EngineKind {
  return scenario.engine ?? 'react';
}

/** The scripted turns for the run's engine, or undefined when the scenario has none for it. */
export function scriptFor(scenario: Scenario, engine: EngineKind | undefined): ModelTurn[] | undefined {
  const used = engine ?? ownEngine(scenario);
  if (used === ownEngine(scenario)) return scenario.model;
  const scripts = scenario.scripts as Partial<Record<EngineKind, ModelTurn[]>> | undefined;
  return scripts?.[used];
}

/** `group/name`, and `@plan` after it when the run is on an engine other than the scenario's own. */
export function lockKeyFor(
  scenario: Pick<Scenario, 'group' | 'name' | 'engine'>,
  engine: EngineKind | undefined,
): string {
  const used = engine ?? scenario.engine ?? 'react';
  const key = `${scenario.group}/${scenario.name}`;
  return used === (scenario.engine ?? 'react') ? key : `${key}@${used}`;
}
