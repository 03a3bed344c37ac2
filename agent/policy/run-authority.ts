// Who may act on a run someone else started: answer its question, cancel it, see its status, or decide its
// approval. One rule for every platform, the CLI and the kernel.
import { type Principal, samePerson } from '../principal.js';
import type { Approval, ApprovalDecision } from './approval-record.js';

export type RunAction =
  | { kind: 'answer' }
  | { kind: 'cancel' }
  | { kind: 'status' }
  | { kind: 'decide'; approval: Approval; decision: ApprovalDecision };

export type Authority = { allowed: true } | { allowed: false; reason: string };

export interface RunOwner {
  id: string;
  principal: Principal;
}

const verbs = { answer: 'answer this question', cancel: 'cancel', status: 'see' } as const;

/** The requester or an admin may answer, cancel or look at a run. Deciding approvals has its own rules. */
export function requesterOrAdmin(
  isAdmin: boolean,
  principal: Principal,
  run: RunOwner,
  action: Exclude<RunAction['kind'], 'decide'>,
): Authority {
  if (samePerson(principal, run.principal) || isAdmin) return { allowed: true };
  const what = action === 'answer' ? verbs.answer : `${verbs[action]} run ${run.id}`;
  return {
    allowed: false,
    reason: `Only ${run.principal.displayName} (who asked) or an admin can ${what}.`,
  };
}
