// `config check` reports every problem in one pass: a schema error elsewhere in the file does not hide what the
// checks that need the tools find in the valid parts (a patrol's arguments, an alert route's checks, a budget).
import type { Logger } from '../../agent/logger.js';
import { settingsProblemsError, sortByLine } from '../config/load-settings.js';
import { InvalidSettingsError } from '../config/settings-problem.js';
import type { Settings } from '../config/settings-schema.js';
import { partialSettingsToolProblems } from '../settings-tool-checks.js';

export async function withToolProblems(
  error: InvalidSettingsError,
  logger: Logger,
): Promise<InvalidSettingsError> {
  if (error.partial === undefined) return error;
  const settings = error.partial as Settings;
  const found = await partialSettingsToolProblems(settings, logger);
  if (found.length === 0) return error;
  const seen = new Set(error.problems.map((problem) => `${problem.key}\n${problem.message}`));
  const more = settingsProblemsError(settings, found).problems.filter(
    (problem) => !seen.has(`${problem.key}\n${problem.message}`),
  );
  return new InvalidSettingsError(error.source, sortByLine([...error.problems, ...more]));
}
