// The model test's tools: a read, a write and a danger tool that record every execution with the call id the
// scripted model put in the arguments, which process ran it, and how many crashes had happened by then. A trap
// kills the process inside its next write or danger action.
import { z } from 'zod';
import { defineTool, type Tool } from '../../../agent/tool.js';
import type { ProcessLife } from './process-life.js';

export interface Execution {
  tool: string;
  /** The id the scripted model gave the call (in `ref`, `change` or `text`). */
  callId: string;
  runId: string;
  args: Record<string, unknown>;
  process: string;
  /** Crashes so far: a read may run again after a crash, and never without one. */
  epoch: number;
}

export class ExecutionLog {
  readonly executions: Execution[] = [];
  epoch = 0;
  /** The process that runs the next write or danger action dies: before the action takes effect, or after. */
  actionTrap: 'before' | 'after' | undefined;
}

const service = z.enum(['api', 'worker']).describe('Which service');

export function recordingTools(log: ExecutionLog, life: ProcessLife): Tool[] {
  const run = (tool: string, callId: string, runId: string, args: Record<string, unknown>) => {
    const record = () =>
      log.executions.push({ tool, callId, runId, args, process: life.name, epoch: log.epoch });
    return life.act(async () => {
      const trap = tool === 'read_logs' ? undefined : log.actionTrap;
      if (trap) log.actionTrap = undefined;
      if (trap === 'before') life.kill();
      else record();
      if (trap === 'after') life.kill();
      return { ok: true, summary: `${tool} done (${callId})` };
    });
  };
  return [
    defineTool({
      name: 'read_logs',
      description: 'Read log lines. Use when asked about errors. Do not use for metrics.',
      input: z.object({ service, ref: z.string().describe('Reference for this read') }),
      risk: 'read',
      execute: (ctx, input) => run('read_logs', input.ref, ctx.runId, input),
    }),
    defineTool({
      name: 'write_note',
      description: 'Write a note. Use when asked to record something. Do not use for secrets.',
      input: z.object({ text: z.string().describe('The note') }),
      risk: 'write',
      execute: (ctx, input) => run('write_note', input.text, ctx.runId, input),
    }),
    defineTool({
      name: 'restart_service',
      description: 'Restart a service. Use when a service is stuck. Do not use to deploy.',
      input: z.object({ service, change: z.string().describe('Change ticket for the restart') }),
      risk: 'danger',
      execute: (ctx, input) => run('restart_service', input.change, ctx.runId, input),
    }),
  ];
}
