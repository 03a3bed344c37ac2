// The cheap read tool every runner calls: validates nothing heavy, touches no I/O, and returns at once.
import { z } from 'zod';
import { defineTool, type Tool, type ToolResult } from '../agent/tool.js';
import { TOOL_NAME } from './scripted-run.js';

export const TOOL_DESCRIPTION =
  'Read the health status of one service. Use when asked whether a service is healthy. Do not use to restart it.';

export const ReadStatusInput = z.object({ service: z.string().describe('The service whose status to read') });

/** Counts executions, so the bench can prove every tool step really ran. */
export class ToolCounter {
  executions = 0;
}

export async function readStatus(counter: ToolCounter, input: { service: string }): Promise<ToolResult> {
  counter.executions += 1;
  return {
    ok: true,
    summary: `${input.service} is healthy`,
    data: { service: input.service, status: 'healthy', replicas: 3 },
  };
}

export function readStatusTool(counter: ToolCounter): Tool {
  return defineTool({
    name: TOOL_NAME,
    description: TOOL_DESCRIPTION,
    input: ReadStatusInput,
    risk: 'read',
    execute: (_ctx, input) => readStatus(counter, input),
  });
}
