// What the sweep bench asks one fresh process to measure, and what it sends back.

export const BACKENDS = ['sqlite', 'redis'] as const;
export type Backend = (typeof BACKENDS)[number];

/**
 * `index`: a pass of today's ExpirySweep, which asks the wait-expiry index what is due.
 * `old-later`: the sweep before the index, on a later pass: read the waiting set, load only runs it has not seen.
 * `old-first`: the sweep before the index, on its first pass: read every waiting id and load each run.
 */
export const METHODS = ['index', 'old-later', 'old-first'] as const;
export type Method = (typeof METHODS)[number];

export type Configuration = `${Backend}/${Method}`;
export const CONFIGURATIONS: Configuration[] = BACKENDS.flatMap((backend) =>
  METHODS.map((method): Configuration => `${backend}/${method}`),
);

export interface SweepJob {
  backend: Backend;
  method: Method;
  /** Runs waiting far in the future. */
  waiting: number;
  /** Runs made due again before each pass; the pass must expire exactly these. */
  due: number;
  warmup: number;
  passes: number;
  /** SQLite: the file to create. Redis: the server's URL. */
  location: string;
  /** Redis: the key prefix this process owns. */
  prefix: string;
}

export interface SweepMeasurement {
  configuration: Configuration;
  /** Each measured pass's wall time, in the order run. */
  passMs: number[];
  /** How long writing the waiting runs took before warm-up (not part of any figure). */
  seedMs: number;
}

export type SweepReply = { ok: true; measurement: SweepMeasurement } | { ok: false; error: string };

export function splitConfiguration(configuration: Configuration): { backend: Backend; method: Method } {
  const [backend, method] = configuration.split('/') as [Backend, Method];
  return { backend, method };
}
