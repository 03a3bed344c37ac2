// What a call that needs an approver needs: the tool, its exact arguments, who may approve, and for how long.
import type { ApproverSet } from './policy/approver-set.js';
import type { GrantOffer } from './policy/grant-offer.js';
import type { Tool } from './tool.js';

export interface ApprovalNeed {
  tool: Tool;
  args: Record<string, unknown>;
  approvers: ApproverSet;
  ttlMs: number;
  /** What the card offers besides approving once; absent when the call takes no grants. */
  grantOffer?: GrantOffer;
}
