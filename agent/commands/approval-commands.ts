// decide and expire: an Approve or Deny click, and a question or approval that waited too long. Each is a
// transition of the run, under its lease: the run holds the approval, so there is nothing else to keep in step.
import { CallerError, ErrorCode } from '../errors.js';
import type { ApprovalClickResult, DecideOptions } from '../kernel-results.js';
import {
  type DecideResult,
  decideResultMessage,
  refusalReason,
  settled,
} from '../policy/approval-outcomes.js';
import { approvalOfRun, runIdOfApproval, verifyBinding } from '../policy/approval-record.js';
import { auditActor } from '../policy/audit-log.js';
import { clickPlaceRefusal } from '../policy/click-place.js';
import { countRefusal } from '../policy/two-person-rule.js';
import type { Principal } from '../principal.js';
import type { Run } from '../run.js';
import { actorOf, type RunMachineEvent, transition } from '../run-machine.js';
import { applyTransition, type CommandCore, PERSON_WAITS_MS, underLease } from './command-core.js';
import { createGrant, type GrantAsk, grantedLine, grantFor, grantProblem } from './grant-commands.js';

/** Said to the clicker after "Approved by …"; the thread and the card say it too (run-machine/approvals.ts). */
const UNBOUND_REFUSAL = 'the approved call does not match the call waiting to run';

/**
 * An Approve or Deny click, from any replica: the approval's id names its run, whose lease is taken; the run holds
 * who may decide and what was asked, and its events what was decided before, so a late click is told by whom.
 */
export async function decideApproval(
  core: CommandCore,
  approvalId: string,
  principal: Principal,
  decision: 'approve' | 'deny',
  reason?: string,
  options: DecideOptions = {},
): Promise<ApprovalClickResult> {
  const approvals = core.approvals;
  if (!approvals) throw new CallerError(ErrorCode.NotAllowed, 'Approvals are not set up in this opsbot.');
  const notFound: DecideResult = { kind: 'not_found', approvalId };
  const answer = (result: DecideResult, settledIt = false): ApprovalClickResult => ({
    message: decideResultMessage(result),
    settled: settledIt,
    result,
  });
  const runId = runIdOfApproval(approvalId) ?? (await waitingRunOf(core, approvalId));
  if (!runId || !(await core.runs.find(runId).catch(() => undefined))) return answer(notFound);
  return underLease(
    core,
    runId,
    async (handOff) => {
      const run = await core.runs.find(runId);
      const approval = run ? approvalOfRun(run, approvalId) : undefined;
      if (!run || !approval) return answer(notFound);
      if (approval.status !== 'pending' || run.status !== 'waiting_for_approval')
        return answer(settled(approval));
      const now = core.clock.now();
      const stopOnDenial = approvals.permissions.on_denial === 'stop';
      if (now >= approval.expiresAt) {
        await applyHeld(core, run, { type: 'approval_expired', at: now, approvalId, stopOnDenial }, handOff);
        return answer(
          { kind: 'expired', approval: { ...approval, status: 'expired' }, recorded: true },
          true,
        );
      }
      const pending = run.approval;
      // Under the two-person rule the requester never counts, nor does the same approver twice.
      const ask: GrantAsk | undefined =
        decision === 'approve' && options.grantForMs !== undefined
          ? {
              forMs: options.grantForMs,
              ...(options.grantPattern !== undefined ? { pattern: options.grantPattern } : {}),
            }
          : undefined;
      const refusal =
        (options.clickedIn ? clickPlaceRefusal(approval.conversation, options.clickedIn) : undefined) ??
        (decision === 'approve' ? countRefusal(pending, run.principal, principal) : undefined) ??
        refusalReason(approval, principal, decision, approvals.permissions) ??
        (ask ? grantProblem(core, run, ask) : undefined);
      if (refusal) {
        await approvals.audit.record({
          kind: 'approval_refused',
          actor: auditActor(principal),
          runId,
          approvalId,
          tool: approval.tool,
          args: approval.args,
          conversation: run.conversation,
          ...(approval.channelName ? { channelName: approval.channelName } : {}),
          outcome: decision,
          reason: refusal,
        });
        return answer({ kind: 'refused', reason: refusal });
      }
      const bound = verifyBinding(pending, {
        runId: run.id,
        step: run.step,
        tool: pending.call.name,
        args: pending.call.args,
        requester: run.principal,
      });
      const by = auditActor(principal);
      const count = pending.approvedBy.length + 1;
      // Short of the approvals it needs, a bound approve is counted and the run keeps waiting; an unbound one is
      // decided at once below, so the card and the thread say why nothing will run.
      if (decision === 'approve' && bound && count < pending.approvals) {
        const result: DecideResult = {
          kind: 'counted',
          approvalId,
          by,
          count,
          needed: pending.approvals,
          at: now,
        };
        const refused = await applyHeld(
          core,
          run,
          { type: 'approval_counted', at: now, approvalId, by: actorOf(principal) },
          handOff,
        );
        if (refused) return { message: `Your approval was not counted: ${refused}.`, settled: false, result };
        // A grant is made by the approval that lets the call run, so a first of two approvals makes none.
        const noGrant = ask ? ' No grant was made: the approval that lets it run may make one.' : '';
        return { message: `${decideResultMessage(result)}${noGrant}`, settled: true, result };
      }
      // The grant is named on the card as the approval is applied, and written after it: a crash between the two
      // loses the grant, never makes one for a call that was not approved.
      const grant = ask && bound ? grantFor(core, run, pending, principal, ask) : undefined;
      const refused = await applyHeld(
        core,
        run,
        {
          type: 'approval_decided',
          at: now,
          approvalId,
          decision,
          by: actorOf(principal),
          ...(reason ? { reason } : {}),
          ...(grant ? { granted: grantedLine(grant) } : {}),
          bound,
          stopOnDenial,
        },
        handOff,
      );
      const earlier =
        decision === 'approve' ? pending.approvedBy.map((approval) => approval.displayName) : [];
      const result: DecideResult = {
        kind: 'decided',
        approval: {
          ...approval,
          status: decision === 'approve' ? 'approved' : 'denied',
          decidedBy: by,
          decidedAt: now,
        },
        decision,
        by,
        at: now,
        ...(earlier.length > 0 ? { approvedBy: [...earlier, by.displayName] } : {}),
      };
      const message = decideResultMessage(result);
      if (refused) return { message: `${message} Nothing was run: ${refused}.`, settled: false, result };
      // The decision is recorded, but an approve that failed its binding ran nothing: the clicker hears why.
      if (decision === 'approve' && !bound)
        return { message: `${message} Nothing was run: ${UNBOUND_REFUSAL}.`, settled: false, result };
      if (!grant) return { message, settled: true, result };
      const granted = await createGrant(core, run, grant, principal);
      return { message: `${message} ${granted.message}`, settled: true, result, grant: granted.grant };
    },
    { waitMs: PERSON_WAITS_MS },
  );
}

/** Applies a transition to a run this process holds the lease of; the refusal's words when it does not apply. */
async function applyHeld(
  core: CommandCore,
  run: Run,
  event: RunMachineEvent,
  handOff: string[],
): Promise<string | undefined> {
  const next = transition(run, event);
  if (!next.ok) return next.refusal.message;
  await core.effects.apply(next.run, next.effects, handOff);
  return undefined;
}

/** An approval made before its id named its run: the run is found among those waiting. */
async function waitingRunOf(core: CommandCore, approvalId: string): Promise<string | undefined> {
  if (!/^apv_[A-Za-z0-9_-]{1,90}$/.test(approvalId)) return undefined;
  for (const runId of await core.runs.waitingRunIds()) {
    const run = await core.runs.find(runId).catch(() => undefined);
    if (run?.status === 'waiting_for_approval' && run.approval.approvalId === approvalId) return runId;
  }
  return undefined;
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
  const refused = await applyHeld(
    core,
    run,
    {
      type: 'approval_expired',
      at: core.clock.now(),
      approvalId: run.approval.approvalId,
      stopOnDenial: approvals.permissions.on_denial === 'stop',
    },
    handOff,
  );
  return refused === undefined;
}
