// What the kernel asks of the permission layer: a decision for every call, and which tools to offer.
import type { Conversation } from './conversation.js';
import type { Decision } from './policy/decide-tool-call.js';
import type { Authority, RunAction, RunOwner } from './policy/run-authority.js';
import type { Principal } from './principal.js';
import type { Tool } from './tool.js';

/** allow, deny with a reason, or needs approval by an approver set (see policy/decide-tool-call.ts). */
export type { Decision } from './policy/decide-tool-call.js';

export interface ToolPolicy {
  /** Runs before every execution, including calls to tools the model was never offered. */
  decide(principal: Principal, conversation: Conversation, toolName: string): Decision;
  /** The tools the model may be offered for this person in this place. */
  visibleTools(principal: Principal, conversation: Conversation, tools: readonly Tool[]): Tool[];
  /** Admins may answer, cancel and inspect any run. */
  isAdmin(principal: Principal): boolean;
  /** The one rule for acting on a run: answer, cancel, status, or deciding its approval. */
  mayActOnRun(principal: Principal, run: RunOwner, action: RunAction): Authority;
  /**
   * Set when a write the requester did not ask for needs their own Confirm (`permissions.confirm_unrequested_writes`):
   * how long the Confirm waits. Absent, such calls run as the roles say.
   */
  confirmUnrequested?: { ttlMs: number };
}

/** Everything allowed without approval: for tests and the single-user CLI when no settings restrict it. */
export function allowAllPolicy(registry: { get(name: string): Tool | undefined }): ToolPolicy {
  return {
    decide(_principal, _conversation, toolName) {
      return registry.get(toolName)
        ? { outcome: 'allow' }
        : { outcome: 'deny', code: 'unknown_tool', reason: `There is no tool named "${toolName}".` };
    },
    visibleTools: (_principal, _conversation, tools) => [...tools],
    isAdmin: () => true,
    mayActOnRun: () => ({ allowed: true }),
  };
}
