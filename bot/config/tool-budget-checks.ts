// Checks that every tool `limits.tool_budgets.calls` names is a tool opsbot has: known only once the tools are built
// (commands, plugins), so it runs at start-up next to the patrol checks, before anything opens or runs.
import { didYouMean } from '../../agent/did-you-mean.js';
import type { PathProblem } from './settings-issues.js';
import type { Settings } from './settings-schema.js';

export interface ToolNames {
  names(): string[];
  /** A tool not known yet that may still come (an MCP server's, before it answers): not refused now. */
  awaited?(name: string): boolean;
}

export function toolBudgetProblems(limits: Settings['limits'], tools: ToolNames): PathProblem[] {
  const known = tools.names();
  return Object.keys(limits.tool_budgets.calls)
    .filter((name) => !known.includes(name) && !tools.awaited?.(name))
    .map((name) => ({
      path: ['limits', 'tool_budgets', 'calls', name],
      message: `a budget for the tool "${name}", which does not exist${didYouMean(name, known)}; tools: ${known.join(', ') || 'none'}`,
    }));
}
