// One MCP bench runner in a fresh node process: starts its caller (and so the test server), warms it up, measures
// sequential then concurrent calls, and sends its figures to the bench (over IPC; printed when run by hand).
import { sendToBench } from '../send-to-bench.js';
import { startCaller } from './mcp-caller.js';
import { McpJob, type McpReply } from './mcp-job.js';
import { measurePhase, warmCalls } from './mcp-measure.js';

async function main(): Promise<void> {
  const job = McpJob.parse(JSON.parse(process.argv[2] ?? 'null'));
  let reply: McpReply;
  const startedAt = performance.now();
  const caller = await startCaller(job.runner, job.concurrency).catch((error: unknown) => error as Error);
  if (caller instanceof Error) {
    reply = { ok: false, error: `${job.runner} did not start: ${caller.message}` };
  } else {
    try {
      const startMs = performance.now() - startedAt;
      await warmCalls(caller, job.warmup, job.concurrency);
      const sequential = await measurePhase(caller, { label: 'seq', calls: job.calls, concurrency: 1 });
      const concurrent = await measurePhase(caller, {
        label: 'par',
        calls: job.calls,
        concurrency: job.concurrency,
      });
      const rssMb = process.memoryUsage.rss() / 2 ** 20;
      reply = { ok: true, figures: { startMs, sequential, concurrent, rssMb } };
    } catch (error) {
      reply = { ok: false, error: error instanceof Error ? error.message : String(error) };
    } finally {
      await caller.close();
    }
  }
  if (!reply.ok) process.exitCode = 1;
  await sendToBench(reply);
}

// A function, not top-level await, as the kernel bench's runner process is written.
void main();
