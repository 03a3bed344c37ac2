// decide and expire: an Approve or Deny click, and a question or approval that waited too long.
import { approvalCard } from '../approval-gate.js';
import { CallerError, ErrorCode } from '../errors.js';
import type { ApprovalClickResult } from '../kernel-results.js';
import { verifyBinding } from '../policy/approval-record.js';
import { decideResultMessage } from '../policy/approvals.js';
import type { Principal } from '../principal.js';
import type { Run } from '../run.js';
import { actorOf, type RunMachineEvent, transition } from '../run-machine.js';
import { applyTransition, type CommandCore, PERSON_WAITS_MS, underLease } from './command-core.js';

/** Said to the clicker after "Approved by …"; the thread and the card say it too (run-machine/approvals.ts). */
const UNBOUND_REFUSAL = 'the approved call does not match the call waiting to run';

/** An Approve or Deny click, from any replica: checked, claimed once, and the run handed back to the queue. */
export async function decideApproval(
  core: CommandCore,
  approvalId: string,
  principal: Principal,
  decision: 'approve' | 'deny',
  reason?: string,
): Promise<ApprovalClickResult> {
  const approvals = core.approvals;
  if (!approvals) throw new CallerError(ErrorCode.NotAllowed, 'Approvals are not set up in this opsbot.');
  const result = await approvals.book.decide({
    approvalId,
    decider: principal,
    decision,
    settings: approvals.permissions,
    ...(reason ? { reason } : {}),
  });
  const message = decideResultMessage(result);
  if (result.kind === 'expired' && result.recorded) {
    await expireWait(core, result.approval.runId);
    return { message, settled: true, result };
  }
  if (result.kind !== 'decided') return { message, settled: false, result };
  const { approval } = result;
  const refusal = await underLease(
    core,
    approval.runId,
    async (handOff) => {
      const run = await core.runs.load(approval.runId);
      const bound =
        run.status === 'waiting_for_approval' &&
        verifyBinding(approval, {
          runId: run.id,
          step: approval.step,
          tool: run.approval.call.name,
          args: run.approval.call.args,
          requester: run.principal,
        });
      const decided = transition(run, {
        type: 'approval_decided',
        at: result.at,
        approvalId: approval.id,
        decision,
        by: actorOf(principal),
        ...(reason ? { reason } : {}),
        bound,
        stopOnDenial: approvals.permissions.on_denial === 'stop',
        card: approvalCard(approval),
      });
      if (!decided.ok) return decided.refusal.message;
      await core.effects.apply(decided.run, decided.effects, handOff);
      // The decision is recorded, but an approve that failed its binding ran nothing: the clicker hears why.
      return decision === 'approve' && !bound ? UNBOUND_REFUSAL : undefined;
    },
    { waitMs: PERSON_WAITS_MS },
  );
  if (refusal) return { message: `${message} Nothing was run: ${refusal}.`, settled: false, result };
  return { message, settled: true, result };
}

/** Expires the run's question or approval if it is due; false when there was nothing to expire. */
export async function expireWait(core: CommandCore, runId: string): Promise<boolean> {
  const due = (
    run: Run | undefined,
  ): run is Extract<Run, { status: 'waiting_for_user' | 'waiting_for_approval' }> =>
    (run?.status === 'waiting_for_user' && core.clock.now() >= run.question.expiresAt) ||
    (run?.status === 'waiting_for_approval' && core.clock.now() >= run.approval.expiresAt);
  if (!due(await core.runs.find(runId))) return false;
  return underLease(core, runId, async (handOff) => {
    const run = await core.runs.find(runId);
    if (!due(run)) return false;
    if (run.status === 'waiting_for_user') {
      await applyTransition(core, run, { type: 'question_expired', at: core.clock.now() });
      return true;
    }
    return expireApproval(core, run, handOff);
  });
}

export async function expireApproval(
  core: CommandCore,
  run: Extract<Run, { status: 'waiting_for_approval' }>,
  handOff: string[],
): Promise<boolean> {
  const approvals = core.approvals;
  if (!approvals) return false;
  const closed = await approvals.book.close(run.approval.approvalId, { kind: 'expired' });
  const approval = 'approval' in closed ? closed.approval : undefined;
  if (!approval) return false;
  const stopOnDenial = approvals.permissions.on_denial === 'stop';
  const card = approvalCard(approval);
  // A click may have won just before the expiry: then the run takes that decision instead.
  const event: RunMachineEvent =
    closed.kind === 'already_decided'
      ? {
          type: 'approval_decided',
          at: core.clock.now(),
          approvalId: approval.id,
          decision: closed.decision,
          by: closed.by,
          bound: true,
          stopOnDenial,
          card,
        }
      : { type: 'approval_expired', at: core.clock.now(), approvalId: approval.id, stopOnDenial, card };
  const result = transition(run, event);
  if (!result.ok) return false;
  await core.effects.apply(result.run, result.effects, handOff);
  return true;
}

/**
 * Closes approvals past their expiry whose run does not wait for them: a process that died between creating an
 * approval and saving its run left them pending, and nothing else would ever close them.
 */
export async function expireOrphanApprovals(core: CommandCore): Promise<number> {
  const book = core.approvals?.book;
  if (!book) return 0;
  let closed = 0;
  for (const approval of await book.listPending()) {
    if (core.clock.now() < approval.expiresAt) continue;
    const run = await core.runs.find(approval.runId).catch(() => undefined);
    if (run?.status === 'waiting_for_approval' && run.approval.approvalId === approval.id) continue;
    const result = await book.close(approval.id, { kind: 'expired' });
    if (result.kind === 'expired' && result.recorded) closed += 1;
  }
  return closed;
}
