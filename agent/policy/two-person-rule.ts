// The two-person rule: a call that needs two approvers runs only once two different people, neither of them the
// requester, have approved it. What a click counts for, and how the approvers are named.
import { type Principal, personKey, samePerson } from '../principal.js';
import type { ApprovedBy } from '../run.js';

export const SELF_NEVER_COUNTS =
  'You asked for this, and it needs two approvers other than you: under the two-person rule the requester never counts, even where self-approval is allowed.';

/** Why this approve click does not count toward the approvals a call needs, or undefined when it counts. */
export function countRefusal(
  pending: { approvals: number; approvedBy: readonly ApprovedBy[] },
  requester: Principal,
  decider: Principal,
): string | undefined {
  if (pending.approvals < 2) return undefined;
  if (samePerson(decider, requester)) return SELF_NEVER_COUNTS;
  if (pending.approvedBy.some((approval) => approval.key === personKey(decider))) {
    return `You have approved this already; it needs ${moreApprovers(pending.approvals - pending.approvedBy.length)}.`;
  }
  return undefined;
}

/** "one more approver", "2 more approvers". */
export function moreApprovers(left: number): string {
  return left === 1 ? 'one more approver' : `${left} more approvers`;
}

/** "Bob", "Bob and Dave", "Ana, Bob and Dave". */
export function namesOf(names: readonly string[]): string {
  if (names.length <= 1) return names[0] ?? '';
  return `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
}
