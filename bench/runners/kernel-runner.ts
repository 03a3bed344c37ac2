// The Kernel over a memory or SQLite store: the only bench file that knows the kernel's API.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kernel } from '../../agent/kernel.js';
import { createOpenAIModelClient } from '../../agent/model/model-client.js';
import { MemoryStore } from '../../agent/store/memory-store.js';
import { SqliteStore } from '../../agent/store/sqlite-store.js';
import type { Store } from '../../agent/store/store.js';
import { readStatusTool, ToolCounter } from '../bench-tool.js';
import { BENCH_PRINCIPAL, FINAL_ANSWER, TASK, TOOL_STEPS, TURNS_PER_RUN } from '../scripted-run.js';
import { API_KEY, BrokenRunError, MODEL, type Runner, type RunnerName } from './runner.js';

export type KernelRunnerName = Exclude<RunnerName, 'bare' | 'bare-transport' | 'agents-sdk'>;

export function kernelRunner(name: KernelRunnerName, baseURL: string, concurrency: number): Runner {
  const { store, removeFiles } = openStore(name);
  const counter = new ToolCounter();
  const model = createOpenAIModelClient({
    baseURL,
    apiKey: API_KEY,
    model: MODEL,
    timeoutMs: 30_000,
    maxRetries: 2,
    // No proxy, whatever the shell has set: the fake model is on 127.0.0.1, and bare-transport has none either.
    proxyEnv: {},
  });
  // As an operator sets limits.worker_concurrency for the load it expects: every run in flight is stepped.
  const kernel = new Kernel({ store, tools: [readStatusTool(counter)], model, concurrency });
  return {
    name,
    tools: counter,
    async runOnce(label) {
      // A thread per run: thread-summary lookups happen as in production, but stay small.
      const runId = await kernel.start({
        text: TASK,
        principal: BENCH_PRINCIPAL,
        conversation: { platform: 'cli', channelId: 'bench', threadId: `${name}-${label}` },
      });
      const run = await kernel.settled(runId);
      const toolResults = run.events.filter((event) => event.type === 'tool_result' && event.ok).length;
      if (
        run.status !== 'finished' ||
        run.usage.modelCalls !== TURNS_PER_RUN ||
        toolResults !== TOOL_STEPS ||
        run.answer !== FINAL_ANSWER
      ) {
        const error = run.status === 'failed' ? `, error ${run.error.code}: ${run.error.message}` : '';
        throw new BrokenRunError(
          `${name} run ${label} (${run.id}): status ${run.status}, ${run.usage.modelCalls} model turns (expected ${TURNS_PER_RUN}), ${toolResults} ok tool results (expected ${TOOL_STEPS}), answer ${JSON.stringify(run.status === 'finished' ? run.answer : undefined)}${error}`,
        );
      }
      return run.usage.modelCalls;
    },
    async close() {
      await kernel.shutdown();
      await store.close();
      removeFiles();
    },
  };
}

function openStore(name: KernelRunnerName): { store: Store; removeFiles: () => void } {
  if (name === 'kernel-memory') return { store: new MemoryStore(), removeFiles: () => {} };
  // A fresh file per process, so no runner reads pages another one left warm.
  const dir = mkdtempSync(join(tmpdir(), 'opsbot-bench-'));
  return {
    store: new SqliteStore(join(dir, 'opsbot.sqlite')),
    removeFiles: () => rmSync(dir, { recursive: true, force: true }),
  };
}
