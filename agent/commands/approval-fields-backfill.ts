// Copies what the approval book held into the runs that were waiting for an approval when opsbot was upgraded to
// run schema v4, once per start: from then on the run alone holds what deciding its approval needs.
import type { CommandCore } from './command-core.js';
import { underLease } from './command-core.js';

/**
 * For each approval still pending in the book whose run waits for it without its binding, approvers, reason and
 * shown arguments: copies them in, under the run's lease, so no click or expiry is applied meanwhile. Returns how
 * many runs it filled.
 */
export async function backfillApprovalFields(core: CommandCore): Promise<number> {
  const book = core.approvals?.book;
  if (!book) return 0;
  let filled = 0;
  for (const approval of await book.listPending()) {
    const approvalId = approval.id;
    const needs = async () => {
      const run = await core.runs.find(approval.runId).catch(() => undefined);
      return run?.status === 'waiting_for_approval' &&
        run.approval.approvalId === approvalId &&
        run.approval.bindingHash === undefined
        ? run
        : undefined;
    };
    if (!(await needs())) continue;
    const done = await underLease(core, approval.runId, async () => {
      const run = await needs();
      if (!run) return false;
      await core.runs.save({
        ...run,
        approval: {
          ...run.approval,
          bindingHash: approval.bindingHash,
          approvers: approval.approvers,
          reason: approval.reason,
          displayArgs: approval.args,
        },
      });
      return true;
    });
    if (done) filled += 1;
  }
  return filled;
}
