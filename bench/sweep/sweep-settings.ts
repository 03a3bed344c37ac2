// Flags of `npm run bench -- sweep`.
import { fileURLToPath } from 'node:url';
import { CONFIGURATIONS, type Configuration } from './sweep-job.js';

export interface SweepSettings {
  rounds: number;
  waiting: number;
  due: number;
  warmup: number;
  passes: number;
  configurations: Configuration[];
  resultsPath: string | null;
}

export const SWEEP_USAGE = `npm run bench -- sweep [flags]
  --rounds N    rounds, order rotating, a fresh process (and a fresh SQLite file or Redis) each time (default 3)
  --waiting N   runs waiting far in the future (default 10000)
  --due N       runs due at each pass, which the pass must expire (default 10)
  --warmup N    unmeasured passes first, in the same process (default 3)
  --passes N    measured passes per process; its figure is their median (default 10)
  --only a,b    configurations, of ${CONFIGURATIONS.join(', ')}
  --out FILE    write the JSON there (default bench/results/sweep.json)
  --no-write    write no file`;

const NUMBERS = {
  '--rounds': 'rounds',
  '--waiting': 'waiting',
  '--due': 'due',
  '--warmup': 'warmup',
  '--passes': 'passes',
} as const;

export function readSweepSettings(args: string[]): SweepSettings | { problem: string } | 'help' {
  const settings: SweepSettings = {
    rounds: 3,
    waiting: 10_000,
    due: 10,
    warmup: 3,
    passes: 10,
    configurations: [...CONFIGURATIONS],
    resultsPath: fileURLToPath(new URL('../results/sweep.json', import.meta.url)),
  };
  for (let index = 0; index < args.length; index++) {
    const flag = args[index]!;
    if (flag === '--help' || flag === '-h') return 'help';
    if (flag === '--no-write') {
      settings.resultsPath = null;
      continue;
    }
    const value = args[++index];
    if (value === undefined) return { problem: `${flag} needs a value` };
    if (Object.hasOwn(NUMBERS, flag)) {
      const number = Number(value);
      const minimum = flag === '--waiting' || flag === '--warmup' || flag === '--due' ? 0 : 1;
      if (!Number.isInteger(number) || number < minimum) {
        return { problem: `${flag} must be a whole number of at least ${minimum}, not "${value}"` };
      }
      settings[NUMBERS[flag as keyof typeof NUMBERS]] = number;
    } else if (flag === '--only') {
      const names = value.split(',');
      const unknown = names.filter((name) => !(CONFIGURATIONS as string[]).includes(name));
      if (unknown.length > 0) return { problem: `unknown configuration ${unknown.join(', ')}` };
      settings.configurations = names as Configuration[];
    } else if (flag === '--out') {
      settings.resultsPath = value;
    } else {
      return { problem: `unknown flag ${flag}` };
    }
  }
  return settings;
}
