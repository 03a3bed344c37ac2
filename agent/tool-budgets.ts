// Per-tool call budgets of a run: how many calls of one tool the model may make, counted from the run's own events,
// so a run carried on in another process after a crash counts what it spent before.
import type { RunBase } from './run.js';
import { isModelEngine } from './run-engine-kind.js';
import type { RunEvent } from './run-events.js';

/** `limits.tool_budgets` in the kernel's words. */
export interface ToolBudgets {
  defaultCalls: number;
  /** Per tool name; looked up as own properties only, as the model picks the name. */
  calls: Readonly<Record<string, number>>;
}

/** The budget that applies to one tool, and the setting a team raises to change it. */
export interface ToolBudget {
  tool: string;
  calls: number;
  setting: string;
}

type ToolResultEvent = Extract<RunEvent, { type: 'tool_result' }>;

// Results saved before `ran` was recorded: these classes never ran the tool, and neither did a repeat.
const NEVER_RAN = new Set(['invalid_argument', 'refused_by_policy', 'permission_denied']);

/** Whether the tool really ran for this result: a repeat answered from the run's memory, or a refusal, did not. */
export function resultRan(event: ToolResultEvent): boolean {
  if (event.ran !== undefined) return event.ran;
  return !event.repeated && (event.errorClass === undefined || !NEVER_RAN.has(event.errorClass));
}

/** Calls of `tool` that ran in this run, from its events. */
export function callsSpent(run: Pick<RunBase, 'events'>, tool: string): number {
  let spent = 0;
  for (const event of run.events) {
    if (event.type === 'tool_result' && event.tool === tool && resultRan(event)) spent += 1;
  }
  return spent;
}

export function toolBudget(budgets: ToolBudgets, tool: string): ToolBudget {
  if (Object.hasOwn(budgets.calls, tool)) {
    return { tool, calls: budgets.calls[tool]!, setting: `limits.tool_budgets.calls.${tool}` };
  }
  return { tool, calls: budgets.defaultCalls, setting: 'limits.tool_budgets.default_calls' };
}

/**
 * How many more calls of `tool` may run, or undefined when the run has no per-tool budgets: only the model's
 * runs do, as patrol checks and typed commands are planned by people, who chose each call.
 */
export function callsLeft(
  run: Pick<RunBase, 'engine' | 'events'>,
  budgets: ToolBudgets,
  tool: string,
): { left: number; budget: ToolBudget } | undefined {
  if (!isModelEngine(run.engine)) return undefined;
  const budget = toolBudget(budgets, tool);
  return { left: Math.max(0, budget.calls - callsSpent(run, tool)), budget };
}

/** What the model reads when it calls a tool whose budget is spent; it names the setting for the team. */
export function budgetSpentMessage(budget: ToolBudget): string {
  const calls = `${budget.calls} ${budget.calls === 1 ? 'call' : 'calls'}`;
  return `${budget.tool} has used its ${calls} in this run (${budget.setting}); use another tool or answer with what you know.`;
}
