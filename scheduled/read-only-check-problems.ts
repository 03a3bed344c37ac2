// What is wrong with one check that must only read: a patrol's, or an alert route's. The tool must exist, be
// read-only, be allowed to the principal the check runs as, and take the check's arguments.
import type { Conversation } from '../agent/conversation.js';
import { didYouMean } from '../agent/did-you-mean.js';
import type { Principal } from '../agent/principal.js';
import { type Tool, toolParametersSchema } from '../agent/tool.js';
import type { ToolPolicy } from '../agent/tool-policy.js';
import { withSampleSelfUrl } from './self-address.js';

export interface CheckProblem {
  path: (string | number)[];
  message: string;
}

export interface CheckToolLookup {
  get(name: string): Tool | undefined;
  names(): string[];
  /**
   * Whether a tool not known yet may still come (an MCP server down at start lists it once it answers): its check
   * is then not refused at start, and fails at its run for as long as the tool is missing.
   */
  awaited?(name: string): boolean;
}

/** Who owns a check, in the words its problems use. */
export interface CheckOwner {
  /** After the check's id: " of patrol disk", or "" when the path says enough. */
  of: string;
  /** What may only run read-only checks: "a patrol", "an alert route". */
  kind: string;
  /** Who runs the check, before "which may not run …". */
  runsAs: string;
}

export interface ReadOnlyCheck {
  id: string;
  tool: string;
  args?: unknown;
}

export function readOnlyCheckProblems(
  check: ReadOnlyCheck,
  where: { at: (...rest: (string | number)[]) => (string | number)[]; owner: CheckOwner },
  runs: {
    tools: CheckToolLookup;
    policy: Pick<ToolPolicy, 'decide'>;
    principal: Principal;
    conversation: Conversation;
  },
): CheckProblem[] {
  const { at, owner } = where;
  const tool = runs.tools.get(check.tool);
  if (!tool) {
    if (runs.tools.awaited?.(check.tool)) return [];
    return [
      {
        path: at('tool'),
        message: `check "${check.id}"${owner.of} names the tool "${check.tool}", which does not exist (tools: ${runs.tools.names().join(', ')})`,
      },
    ];
  }
  if (tool.risk !== 'read') {
    return [
      {
        path: at('tool'),
        message: `check "${check.id}"${owner.of} names ${check.tool}, a ${tool.risk} tool; ${owner.kind} may only run read-only checks`,
      },
    ];
  }
  const decision = runs.policy.decide(runs.principal, runs.conversation, check.tool);
  if (decision.outcome !== 'allow') {
    const why = decision.outcome === 'deny' ? decision.reason : 'it would need an approval';
    return [{ path: at('tool'), message: `${owner.runsAs}, which may not run ${check.tool}: ${why}` }];
  }
  const parsed = tool.input.safeParse(withSampleSelfUrl(check.args));
  if (parsed.success) return [];
  const takes = Object.keys((toolParametersSchema(tool.input).properties ?? {}) as Record<string, unknown>);
  const named = `check "${check.id}"${owner.of}`;
  return parsed.error.issues.flatMap((issue) => {
    const path = issue.path.map((part) => (typeof part === 'symbol' ? String(part) : part));
    // A misspelt argument is said as one, with the nearest name and what the tool takes; not in zod's words.
    if (issue.code === 'unrecognized_keys' && path.length === 0) {
      return issue.keys.map((key) => ({
        path: at('args', key),
        message: `${named}: ${check.tool} takes no argument "${key}"${didYouMean(key, takes)}; it takes ${takes.join(', ') || 'none'}`,
      }));
    }
    return [
      {
        path: at('args', ...path),
        message: `${named}: invalid argument for ${check.tool}: ${issue.message}`,
      },
    ];
  });
}
