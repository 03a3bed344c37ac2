// What a call that needs an approver needs: the tool, its exact arguments, who may approve, how many of them, and
// for how long.
import type { ApproverSet } from './policy/approver-set.js';
import type { GrantOffer } from './policy/grant-offer.js';
import type { Tool } from './tool.js';

export interface ApprovalNeed {
  tool: Tool;
  args: Record<string, unknown>;
  approvers: ApproverSet;
  ttlMs: number;
  /** Distinct approvers it needs: 2 when the tool's `approvals` or a role's `two_person` says so. */
  approvals: 1 | 2;
  /** The requester's roles whose `two_person` names the tool here: such a call is never granted. */
  twoPersonRoles: readonly string[];
  /** What the card offers besides approving once; absent when the call takes no grants. */
  grantOffer?: GrantOffer;
  /** A Confirm: the requester did not ask for this write, and only they may decide it. */
  confirm?: true;
}
