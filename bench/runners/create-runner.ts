// Builds a runner by name: the one place that knows which module implements which runner.
import { bareRunner } from './bare-runner.js';
import { kernelRunner } from './kernel-runner.js';
import type { Runner, RunnerName } from './runner.js';

export function createRunner(name: RunnerName, baseURL: string): Runner {
  return name === 'bare' ? bareRunner(baseURL) : kernelRunner(name, baseURL);
}
