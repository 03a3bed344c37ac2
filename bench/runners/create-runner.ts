// Builds a runner by name: the one place that knows which module implements which runner.
import { createModelDispatcher, createModelFetch } from '../../agent/model/model-fetch.js';
import { agentsRunner } from './agents-runner.js';
import { bareRunner } from './bare-runner.js';
import { kernelRunner } from './kernel-runner.js';
import type { Runner, RunnerName } from './runner.js';

/** `concurrency` is how many runs the bench keeps in flight: the kernel's worker steps as many at once. */
export function createRunner(name: RunnerName, baseURL: string, concurrency: number): Runner {
  switch (name) {
    case 'bare':
      return bareRunner(baseURL);
    case 'bare-transport':
      return bareRunner(baseURL, { name: 'bare-transport', fetch: modelFetch() });
    case 'agents-sdk':
      return agentsRunner(baseURL);
    default:
      return kernelRunner(name, baseURL, concurrency);
  }
}

/**
 * The fetch the kernel's model client sends with (model-client.ts), with the kernel runner's timeout, and as
 * there no proxy, whatever the shell has set: the fake model is on 127.0.0.1.
 */
function modelFetch(): typeof fetch {
  const timeoutMs = 30_000;
  return createModelFetch({
    dispatcher: createModelDispatcher({}, { connectTimeoutMs: timeoutMs }),
    timeoutMs,
  });
}
