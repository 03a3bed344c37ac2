// One sweep-bench configuration in a fresh node process: writes the waiting runs, warms up, times each pass,
// and sends the times to the bench. The bench starts it with the job as JSON in argv[2].
import { performance } from 'node:perf_hooks';
import { Kernel } from '../../agent/kernel.js';
import { RedisStore } from '../../agent/store/redis-store.js';
import { SqliteStore } from '../../agent/store/sqlite-store.js';
import type { Store } from '../../agent/store/store.js';
import { sendToBench } from '../send-to-bench.js';
import { OldSweepPass } from './old-sweep-pass.js';
import type { SweepJob, SweepReply } from './sweep-job.js';
import { createWaiting, makeDueAgain } from './waiting-runs.js';

const DAY_MS = 86_400_000;

const job = JSON.parse(process.argv[2] ?? 'null') as SweepJob;
const store: Store =
  job.backend === 'sqlite'
    ? new SqliteStore(job.location)
    : await RedisStore.connect(job.location, { prefix: job.prefix, commandTimeoutMs: 30_000 });
let reply: SweepReply;
try {
  reply = { ok: true, measurement: await measure(store) };
} catch (error) {
  reply = { ok: false, error: error instanceof Error ? error.message : String(error) };
} finally {
  await store.close();
}
if (!reply.ok) process.exitCode = 1;
await sendToBench(reply);

async function measure(store: Store) {
  const kernel = new Kernel({ store, tools: [] });
  const now = Date.now();
  const laterIds = Array.from({ length: job.waiting }, (_, index) => `run_later_${index}`);
  const dueIds = Array.from({ length: job.due }, (_, index) => `run_due_${index}`);
  const seedStarted = performance.now();
  await createWaiting(kernel.runs, laterIds, now + DAY_MS, now);
  const seedMs = performance.now() - seedStarted;

  const sweep = kernel.expirySweep();
  const old = new OldSweepPass(kernel);
  // What the old sweep learned on its first pass; the due runs are new waits it has not seen yet.
  if (job.method === 'old-later') await old.pass(Date.now());
  const pass = (): Promise<number> => {
    if (job.method === 'index') return sweep.sweep();
    if (job.method === 'old-first') old.forget();
    return old.pass(Date.now());
  };
  const passMs: number[] = [];
  for (let index = 0; index < job.warmup + job.passes; index++) {
    await makeDueAgain(kernel.runs, dueIds, Date.now());
    global.gc?.();
    const started = performance.now();
    const expired = await pass();
    const elapsed = performance.now() - started;
    if (expired !== job.due) {
      throw new Error(`${job.backend}/${job.method}: a pass expired ${expired} runs, not the ${job.due} due`);
    }
    if (index >= job.warmup) passMs.push(elapsed);
  }
  return { configuration: `${job.backend}/${job.method}` as const, passMs, seedMs };
}
