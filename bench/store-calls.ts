// Counts the Store calls one bench run makes, by method and key kind, over a SQLite or memory store.
// Usage: npx tsx bench/store-calls.ts [--store sqlite|memory] [--runs N]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Kernel } from '../agent/kernel.js';
import { createOpenAIModelClient } from '../agent/model/model-client.js';
import { MemoryStore } from '../agent/store/memory-store.js';
import { SqliteStore } from '../agent/store/sqlite-store.js';
import type { Store, StoreWrite } from '../agent/store/store.js';
import { startFakeOpenAIServer } from '../tests/fakes/openai-server.js';
import { readStatusTool, ToolCounter } from './bench-tool.js';
import { API_KEY, MODEL } from './runners/runner.js';
import { BENCH_PRINCIPAL, scriptedAnswer, TASK } from './scripted-run.js';

const { values } = parseArgs({
  options: { store: { type: 'string', default: 'sqlite' }, runs: { type: 'string', default: '20' } },
});
const runs = Number(values.runs);

/**
 * A Store that counts each call as "method key-kind" (the key up to its first colon, or a set's name); a
 * writeAll call counts once, named by the writes it holds.
 */
function counting(store: Store, counts: Map<string, number>): Store {
  const kind = (method: string, key: string) =>
    // Set and index names are whole keys; other keys end in an id.
    `${method} ${/(Set|Index)$/.test(method) || method === 'members' || method === 'due' ? key : key.split(':')[0]}`;
  const nameOf = (method: string, first: unknown) => {
    if (method !== 'writeAll') return kind(method, String(first ?? ''));
    const writes = first as StoreWrite[];
    return `writeAll [${writes.map((write) => kind(write.kind, writeTarget(write))).join(', ')}]`;
  };
  const count = (method: string, first: unknown) => {
    const name = nameOf(method, first);
    counts.set(name, (counts.get(name) ?? 0) + 1);
  };
  return new Proxy(store, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== 'function' || property === 'close') return value;
      return (...args: unknown[]) => {
        count(String(property), args[0]);
        return value.apply(target, args);
      };
    },
  });
}

function writeTarget(write: StoreWrite): string {
  if ('key' in write) return write.key;
  if ('log' in write) return write.log;
  return 'set' in write ? write.set : write.index;
}

const fake = await startFakeOpenAIServer({ record: false });
fake.respond(scriptedAnswer);
const dir = mkdtempSync(join(tmpdir(), 'opsbot-store-calls-'));
const inner: Store =
  values.store === 'memory' ? new MemoryStore() : new SqliteStore(join(dir, 'opsbot.sqlite'));
const counts = new Map<string, number>();
const kernel = new Kernel({
  store: counting(inner, counts),
  tools: [readStatusTool(new ToolCounter())],
  model: createOpenAIModelClient({
    baseURL: fake.baseURL,
    apiKey: API_KEY,
    model: MODEL,
    timeoutMs: 30_000,
    maxRetries: 2,
  }),
});
for (let index = 0; index < runs; index++) {
  const runId = await kernel.start({
    text: TASK,
    principal: BENCH_PRINCIPAL,
    conversation: { platform: 'cli', channelId: 'bench', threadId: `thread-${index}` },
  });
  const run = await kernel.settled(runId);
  if (run.status !== 'finished') throw new Error(`run ${index} ended ${run.status}`);
}
await kernel.shutdown();
await inner.close();
await fake.close();
rmSync(dir, { recursive: true, force: true });

const rows = [...counts.entries()].sort((a, b) => b[1] - a[1]);
let total = 0;
for (const [name, count] of rows) {
  total += count;
  console.log(`${(count / runs).toFixed(2).padStart(6)}  ${name}`);
}
console.log(`${(total / runs).toFixed(2).padStart(6)}  store calls per run (${values.store}, ${runs} runs)`);
