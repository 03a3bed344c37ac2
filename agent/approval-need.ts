// What a call that needs an approver needs: the tool, its exact arguments, who may approve, and for how long.
import type { ApproverSet } from './policy/approver-set.js';
import type { Tool } from './tool.js';

export interface ApprovalNeed {
  tool: Tool;
  args: Record<string, unknown>;
  approvers: ApproverSet;
  ttlMs: number;
}
