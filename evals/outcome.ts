// What a scenario's run did, read from its events, the model requests and the chat: what the judge looks at.

import type { Run } from '../agent/run.js';
import type { ApprovalCard } from '../agent/run-machine/events.js';
import type { WorldRequest } from './world.js';
import type { McpWorldCall } from './world-mcp.js';

export interface ToolCallRecord {
  tool: string;
  args: unknown;
  ok: boolean | undefined;
  errorClass: string | undefined;
  summary: string | undefined;
}

export interface ScenarioOutcome {
  run: Run;
  toolCalls: ToolCallRecord[];
  questions: string[];
  approvalsRequested: string[];
  /** The raw body of every request the model server received. */
  modelRequests: string[];
  /** Every chat message and update, as JSON. */
  chatMessages: string[];
  /** What went wrong on the model's side: a script too short or too long, a stale cassette. */
  modelProblems: string[];
  /** Why the person left the run waiting, when they did. */
  personNotes: string[];
  /** Every request the world's HTTP targets received. */
  worldRequests: readonly WorldRequest[];
  /** Every call the world's MCP servers received, by their own record. */
  mcpCalls: readonly McpWorldCall[];
  /** Every approval card the bot posted, as last updated. */
  approvalCards: readonly ApprovalCard[];
}

/** Calls refused before they could run; every other recorded call ran (and may have failed). */
const REFUSED = new Set(['permission_denied', 'refused_by_policy', 'invalid_argument']);

export function ran(call: ToolCallRecord): boolean {
  return call.errorClass === undefined || !REFUSED.has(call.errorClass);
}

export function toolCallsOf(run: Run): ToolCallRecord[] {
  const calls: ToolCallRecord[] = [];
  for (const event of run.events) {
    if (event.type !== 'tool_call') continue;
    const result = run.events.find((other) => other.type === 'tool_result' && other.callId === event.callId);
    const outcome = result?.type === 'tool_result' ? result : undefined;
    calls.push({
      tool: event.tool,
      args: event.args,
      ok: outcome?.ok,
      errorClass: outcome?.errorClass,
      summary: outcome?.summary,
    });
  }
  return calls;
}

export function questionsOf(run: Run): string[] {
  return run.events.flatMap((event) => (event.type === 'question_asked' ? [event.question] : []));
}

export function approvalsOf(run: Run): string[] {
  return run.events.flatMap((event) => (event.type === 'approval_requested' ? [event.tool] : []));
}

export function answerOf(run: Run): string | undefined {
  if (run.status === 'finished') return run.answer;
  if (run.status === 'failed') return run.error.message;
  return undefined;
}
