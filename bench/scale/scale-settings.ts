// Flags of `npm run bench -- scale`.
import { fileURLToPath } from 'node:url';
import { CONFIGURATIONS, type Configuration } from './cluster.js';

export interface ScaleSettings {
  runs: number;
  warmup: number;
  rounds: number;
  inFlight: number;
  channels: number;
  workerConcurrency: number;
  delayMs: number;
  configurations: Configuration[];
  resultsPath: string | null;
}

export const SCALE_USAGE = `npm run bench -- scale [flags]
  --runs N                measured runs per configuration and round (default 2000)
  --warmup N              unmeasured runs first, in the same processes (default 100)
  --rounds N              rounds, order rotating, fresh processes each time (default 2, at least 2 for min and median)
  --in-flight N           tasks sent and not yet answered at once (default 128)
  --channels N            Slack channels the tasks are spread over (default 200)
  --worker-concurrency N  limits.worker_concurrency of every bot process (default 32, the product default)
  --delay-ms N            the fake model's answer time per turn (default 200)
  --only a,b              configurations, of ${CONFIGURATIONS.join(', ')}
  --out FILE              write the JSON there (default bench/results/scale.json)
  --no-write              write no file`;

const NUMBERS = {
  '--runs': 'runs',
  '--warmup': 'warmup',
  '--rounds': 'rounds',
  '--in-flight': 'inFlight',
  '--channels': 'channels',
  '--worker-concurrency': 'workerConcurrency',
  '--delay-ms': 'delayMs',
} as const;

export function readScaleSettings(args: string[]): ScaleSettings | { problem: string } | 'help' {
  const settings: ScaleSettings = {
    runs: 2_000,
    warmup: 100,
    rounds: 2,
    inFlight: 128,
    channels: 200,
    workerConcurrency: 32,
    delayMs: 200,
    configurations: [...CONFIGURATIONS],
    resultsPath: fileURLToPath(new URL('../results/scale.json', import.meta.url)),
  };
  for (let index = 0; index < args.length; index++) {
    const flag = args[index]!;
    const value = args[index + 1];
    if (flag === '--help' || flag === '-h') return 'help';
    if (flag === '--no-write') {
      settings.resultsPath = null;
    } else if (flag in NUMBERS) {
      const number = Number(value);
      const least = flag === '--warmup' || flag === '--delay-ms' ? 0 : 1;
      if (!Number.isInteger(number) || number < least)
        return { problem: `${flag} needs a whole number ≥ ${least}, not ${value}` };
      settings[NUMBERS[flag as keyof typeof NUMBERS]] = number;
      index += 1;
    } else if (flag === '--only') {
      const names = (value ?? '').split(',');
      const unknown = names.filter((name) => !(CONFIGURATIONS as readonly string[]).includes(name));
      if (unknown.length > 0) return { problem: `--only: unknown ${unknown.join(', ')}` };
      settings.configurations = names as Configuration[];
      index += 1;
    } else if (flag === '--out') {
      if (!value) return { problem: '--out needs a file' };
      settings.resultsPath = value;
      index += 1;
    } else {
      return { problem: `unknown flag ${flag}` };
    }
  }
  return settings;
}
