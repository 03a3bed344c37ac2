// Finds and validates the scenario files under evals/scenarios/<group>/<name>.yaml; every problem is reported.
import { readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { z } from 'zod';
import { type Scenario, ScenarioSchema } from './schema.js';

export const SCENARIOS_DIR = fileURLToPath(new URL('./scenarios/', import.meta.url));

function yamlFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return yamlFiles(path);
    return /\.ya?ml$/.test(entry.name) ? [path] : [];
  });
}

export class ScenarioFileError extends Error {
  override readonly name = 'ScenarioFileError';
}

/** One scenario file, checked; its name and group must match where it lives. */
export function loadScenarioFile(path: string): Scenario {
  const where = relative(process.cwd(), path);
  let raw: unknown;
  try {
    raw = parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new ScenarioFileError(`${where}: ${error instanceof Error ? error.message : String(error)}`);
  }
  const parsed = ScenarioSchema.safeParse(raw);
  if (!parsed.success) throw new ScenarioFileError(`${where}:\n${z.prettifyError(parsed.error)}`);
  const scenario = parsed.data;
  const fileName = basename(path).replace(/\.ya?ml$/, '');
  const folder = basename(dirname(path));
  if (scenario.name !== fileName || scenario.group !== folder) {
    throw new ScenarioFileError(
      `${where}: name "${scenario.name}" and group "${scenario.group}" must match the file, <group>/<name>.yaml`,
    );
  }
  return scenario;
}

export function loadScenarios(dir: string = SCENARIOS_DIR): Scenario[] {
  const problems: string[] = [];
  const scenarios: Scenario[] = [];
  for (const path of yamlFiles(dir).sort()) {
    try {
      scenarios.push(loadScenarioFile(path));
    } catch (error) {
      problems.push(error instanceof Error ? error.message : String(error));
    }
  }
  if (problems.length > 0) throw new ScenarioFileError(problems.join('\n\n'));
  return scenarios;
}
