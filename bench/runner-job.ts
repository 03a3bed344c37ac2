// What the bench and a runner process say to each other: the job on the command line, the figures over IPC.
import { z } from 'zod';
import { RUNNER_NAMES } from './runners/runner.js';

const count = z.number().int().nonnegative();
const amount = z.number().nonnegative();

export const RunnerJob = z.object({
  runner: z.enum(RUNNER_NAMES),
  baseURL: z.string().min(1),
  warmup: count,
  runs: count.min(1),
  concurrency: count.min(1),
});
export type RunnerJob = z.infer<typeof RunnerJob>;

// Mirrors measure.ts's Measurement; the bench checks the reply instead of trusting a child's JSON.
const MeasurementShape = z.object({
  runs: count,
  modelTurns: count,
  cpuUserMs: amount,
  cpuSystemMs: amount,
  wallMs: amount,
  processPeakRssBytes: count,
  windowPeakRssBytes: count,
  endRssBytes: count,
});

export const RunnerReply = z.discriminatedUnion('ok', [
  z.object({ ok: z.literal(true), measurement: MeasurementShape }),
  z.object({ ok: z.literal(false), error: z.string() }),
]);
export type RunnerReply = z.infer<typeof RunnerReply>;
