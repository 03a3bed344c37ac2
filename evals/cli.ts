// `npm run eval [-- --filter <glob>] [--repeat N]`: runs the scenarios in scripted mode and reports them.
import { parseArgs } from 'node:util';
import { loadScenarios } from './load-scenarios.js';
import { formatTable, writeResults } from './report.js';
import { runScenarios } from './runner.js';

const USAGE =
  'usage: npm run eval -- [--filter <glob>] [--repeat N]   (globs match <group>/<name> or <name>)';

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      filter: { type: 'string' },
      repeat: { type: 'string', default: '1' },
      live: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  if (values.live) {
    console.error(
      '--live is not built yet: scenarios run against their scripted model only (see evals/README.md).',
    );
    return 2;
  }
  const repeat = Number(values.repeat);
  if (!Number.isInteger(repeat) || repeat < 1) {
    console.error(`--repeat must be a whole number of at least 1, not "${values.repeat}"\n${USAGE}`);
    return 2;
  }
  const scenarios = loadScenarios();
  const results = await runScenarios(scenarios, {
    filter: values.filter,
    repeat,
    onResult: (result) => process.stderr.write(result.passed ? '.' : 'F'),
  });
  process.stderr.write('\n');
  if (results.length === 0) {
    console.error(`no scenario matches --filter ${values.filter}`);
    return 2;
  }
  console.log(formatTable(results));
  console.log(`\nresults: ${writeResults(results, 'scripted')}`);
  return results.every((result) => result.passed) ? 0 : 1;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 2;
  },
);
