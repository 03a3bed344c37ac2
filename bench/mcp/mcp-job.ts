// What the MCP bench and a runner process say to each other: the job on the command line, the figures over IPC.
import { z } from 'zod';
import { MCP_RUNNER_NAMES } from './mcp-caller.js';

const count = z.number().int().nonnegative();
const amount = z.number().nonnegative();

export const McpJob = z.object({
  runner: z.enum(MCP_RUNNER_NAMES),
  warmup: count,
  calls: count.min(1),
  /** Calls in flight in the concurrent phase; the sequential phase has one. */
  concurrency: count.min(1),
});
export type McpJob = z.infer<typeof McpJob>;

// Mirrors mcp-measure.ts's PhaseFigures; the bench checks a child's JSON instead of trusting it.
const Phase = z.object({
  calls: count,
  concurrency: count,
  p50Ms: amount,
  p99Ms: amount,
  cpuMsPerCall: amount,
  callsPerS: amount,
});

export const McpProcessFigures = z.object({
  /** From creating the caller to its first call possible: the server's start (through tsx) and the handshake. */
  startMs: amount,
  sequential: Phase,
  concurrent: Phase,
  /** RSS after the measured calls. */
  rssMb: amount,
});
export type McpProcessFigures = z.infer<typeof McpProcessFigures>;

export const McpReply = z.discriminatedUnion('ok', [
  z.object({ ok: z.literal(true), figures: McpProcessFigures }),
  z.object({ ok: z.literal(false), error: z.string() }),
]);
export type McpReply = z.infer<typeof McpReply>;
