// The kernel's own CPU per model turn, with no SDK and no HTTP: a model stub that answers the bench's script at
// once (after one event-loop turn), 50 runs in flight, on MemoryStore or SQLite. For profiling where the kernel
// spends its time: `node --import tsx --cpu-prof --cpu-prof-dir=DIR bench/kernel-only.ts sqlite`, then
// `npx tsx bench/profile-summary.ts DIR/<file>`. Prints one line; writes no results file.
// Usage: npx tsx bench/kernel-only.ts [memory|sqlite] [--runs N]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Kernel } from '../agent/kernel.js';
import type { ModelClient, ModelReply } from '../agent/model/model-port.js';
import { MemoryStore } from '../agent/store/memory-store.js';
import { SqliteStore } from '../agent/store/sqlite-store.js';
import { readStatusTool, ToolCounter } from './bench-tool.js';
import { BENCH_PRINCIPAL, FINAL_ANSWER, SERVICES, TASK, TOOL_NAME, TURNS_PER_RUN } from './scripted-run.js';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { runs: { type: 'string', default: '3000' } },
});
const backend = positionals[0] === 'sqlite' ? 'sqlite' : 'memory';
const runs = Number(values.runs);
const IN_FLIGHT = 50;

let calls = 0;
const usage = { promptTokens: 100, completionTokens: 10 };
const model: ModelClient = {
  model: 'stub',
  async complete(request): Promise<ModelReply> {
    await new Promise((resolve) => setImmediate(resolve));
    calls += 1;
    const service = SERVICES[request.messages.filter((message) => message.role === 'assistant').length];
    if (service === undefined) return { content: FINAL_ANSWER, toolCalls: [], finishReason: 'stop', usage };
    const call = { id: `call_${calls}`, name: TOOL_NAME, arguments: JSON.stringify({ service }) };
    return { content: null, toolCalls: [call], finishReason: 'tool_calls', usage };
  },
};

const dir = mkdtempSync(join(tmpdir(), 'opsbot-kernel-only-'));
const store = backend === 'sqlite' ? new SqliteStore(join(dir, 'opsbot.sqlite')) : new MemoryStore();
const kernel = new Kernel({
  store,
  tools: [readStatusTool(new ToolCounter())],
  model,
  concurrency: IN_FLIGHT,
});

async function batch(count: number, tag: string): Promise<void> {
  let next = 0;
  const one = async () => {
    while (next < count) {
      const index = next++;
      const conversation = { platform: 'cli' as const, channelId: 'bench', threadId: `${tag}-${index}` };
      const run = await kernel.settled(
        await kernel.start({ text: TASK, principal: BENCH_PRINCIPAL, conversation }),
      );
      if (run.status !== 'finished') throw new Error(`run ${run.id} ended ${run.status}`);
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, one));
}

await batch(Math.min(500, runs), 'warmup');
const cpu = process.cpuUsage();
const started = performance.now();
await batch(runs, 'measured');
const used = process.cpuUsage(cpu);
const turns = runs * TURNS_PER_RUN;
console.log(
  `kernel-only (${backend}): ${((used.user + used.system) / turns).toFixed(1)} µs CPU per model turn, ${(((performance.now() - started) * 1000) / turns).toFixed(1)} µs wall, ${runs} runs × ${TURNS_PER_RUN} turns, ${IN_FLIGHT} in flight, no SDK or HTTP`,
);
await kernel.shutdown();
await store.close();
rmSync(dir, { recursive: true, force: true });
