// What the bench asks of every runner it compares: one whole scripted run at a time, and a count of tool runs.
import type { ToolCounter } from '../bench-tool.js';

/**
 * `agents-sdk` is the peer: the OpenAI Agents SDK's Runner on the same task. `bare-transport` is the bare loop
 * on the kernel's own fetch (undici through its proxy agent, reading the whole answer under a deadline and a
 * cap: model-fetch.ts) in place of the SDK's: against it, the ratio is the kernel's own work.
 */
export const RUNNER_NAMES = [
  'bare',
  'bare-transport',
  'kernel-memory',
  'kernel-sqlite',
  'agents-sdk',
] as const;
export type RunnerName = (typeof RUNNER_NAMES)[number];

/** The runner every ratio is taken against. */
export const BASELINE_RUNNER: RunnerName = 'bare';

/** The bare loop on the kernel's fetch: the baseline for the kernel's own work. */
export const SAME_TRANSPORT_RUNNER: RunnerName = 'bare-transport';

export interface Runner {
  readonly name: RunnerName;
  readonly tools: ToolCounter;
  /** Does one whole run and returns its model turns; throws a BrokenRunError unless it finished as scripted. */
  runOnce(label: string): Promise<number>;
  close(): Promise<void>;
}

/** A run that did not go as scripted: the bench reports no figures rather than figures for broken work. */
export class BrokenRunError extends Error {
  override readonly name = 'BrokenRunError';
}

// The fake model accepts any model name and key; these only make the SDK's requests well-formed.
export const MODEL = 'fake-model';
export const API_KEY = 'sk-bench-not-a-real-key';
