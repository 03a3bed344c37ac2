// The MCP bench's flags: rounds, warm-up and measured calls per process, calls in flight, which runners.
import { parseArgs } from 'node:util';
import { MCP_RUNNER_NAMES, type McpRunnerName } from './mcp-caller.js';

export interface McpBenchSettings {
  rounds: number;
  warmup: number;
  calls: number;
  concurrency: number;
  runners: McpRunnerName[];
  quick: boolean;
  /** Run the runner processes from the TypeScript sources through tsx instead of bundled. */
  source: boolean;
  write: boolean;
}

export const MCP_USAGE = `npm run bench -- mcp [--quick] [--rounds N] [--warmup N] [--calls N] [--concurrency N] [--only a,b] [--source] [--no-write]
  runners: ${MCP_RUNNER_NAMES.join(', ')}
  full: 5 rounds, 300 warm-up calls, then 2,000 sequential and 2,000 at 10 in flight per process; --quick: 2 rounds, 30, 200 (writes no file)`;

const FULL = { rounds: 5, warmup: 300, calls: 2000 };
const QUICK = { rounds: 2, warmup: 30, calls: 200 };

/** The settings, or the problems with them, all at once. */
export function readMcpBenchSettings(
  argv: string[],
): { ok: true; settings: McpBenchSettings } | { ok: false; problems: string[] } | { ok: 'help' } {
  let values: ReturnType<typeof parse>['values'];
  try {
    values = parse(argv).values;
  } catch (error) {
    return { ok: false, problems: [error instanceof Error ? error.message : String(error)] };
  }
  if (values.help) return { ok: 'help' };
  const preset = values.quick ? QUICK : FULL;
  const problems: string[] = [];
  const number = (flag: string, given: string | undefined, fallback: number, least: number) => {
    const value = given === undefined ? fallback : Number(given);
    if (!Number.isInteger(value) || value < least) problems.push(`--${flag} must be an integer ≥ ${least}`);
    return value;
  };
  const runners = (values.only?.split(',') ?? [...MCP_RUNNER_NAMES]) as McpRunnerName[];
  for (const name of runners) {
    if (!MCP_RUNNER_NAMES.includes(name)) problems.push(`--only: no runner ${name}`);
  }
  const settings: McpBenchSettings = {
    rounds: number('rounds', values.rounds, preset.rounds, 1),
    warmup: number('warmup', values.warmup, preset.warmup, 0),
    calls: number('calls', values.calls, preset.calls, 1),
    concurrency: number('concurrency', values.concurrency, 10, 1),
    runners,
    quick: values.quick ?? false,
    source: values.source ?? false,
    // Only a full session of every runner replaces the results file.
    write: !values['no-write'] && !values.quick && values.only === undefined,
  };
  return problems.length > 0 ? { ok: false, problems } : { ok: true, settings };
}

function parse(argv: string[]) {
  return parseArgs({
    args: argv,
    strict: true,
    options: {
      rounds: { type: 'string' },
      warmup: { type: 'string' },
      calls: { type: 'string' },
      concurrency: { type: 'string' },
      only: { type: 'string' },
      quick: { type: 'boolean' },
      source: { type: 'boolean' },
      'no-write': { type: 'boolean' },
      help: { type: 'boolean' },
    },
  });
}
