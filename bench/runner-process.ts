// One runner in a fresh node process: builds it, warms it up, measures it, and sends its figures to the bench.
// The bench starts it (fresh-process.ts) with the job as JSON in argv[2]; run by hand, it prints the reply.

import { measureSegment, warmUp } from './measure.js';
import { RunnerJob, type RunnerReply } from './runner-job.js';
import { createRunner } from './runners/create-runner.js';
import { BrokenRunError } from './runners/runner.js';
import { TOOL_STEPS, TURNS_PER_RUN } from './scripted-run.js';
import { sendToBench } from './send-to-bench.js';

async function main(): Promise<void> {
  const job = RunnerJob.parse(JSON.parse(process.argv[2] ?? 'null'));
  const runner = createRunner(job.runner, job.baseURL, job.concurrency);
  let reply: RunnerReply;
  try {
    await warmUp(runner, job);
    const toolsBefore = runner.tools.executions;
    const measurement = await measureSegment(runner, job);
    const executed = runner.tools.executions - toolsBefore;
    if (measurement.modelTurns !== job.runs * TURNS_PER_RUN || executed !== job.runs * TOOL_STEPS) {
      throw new BrokenRunError(
        `${job.runner}: counted ${measurement.modelTurns} model turns (expected ${job.runs * TURNS_PER_RUN}) and ${executed} tool runs (expected ${job.runs * TOOL_STEPS})`,
      );
    }
    reply = { ok: true, measurement };
  } catch (error) {
    reply = { ok: false, error: error instanceof Error ? error.message : String(error) };
  } finally {
    await runner.close();
  }
  if (!reply.ok) process.exitCode = 1;
  await sendToBench(reply);
}

// A function, not top-level await: the bundled runner is CommonJS, as the shipped bundle is.
void main();
