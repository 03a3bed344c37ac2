// Copies what the approval book of opsbot before run schema v4 held into the runs that were waiting for an
// approval at the upgrade, once per start: from then on the run alone holds what deciding its approval needs.
import { z } from 'zod';
import { ApproverSetSchema } from '../policy/approver-set.js';
import type { Store } from '../store/store.js';
import { storeKeys } from '../store/store-keys.js';
import type { CommandCore } from './command-core.js';
import { underLease } from './command-core.js';

/** The parts of a book record the run needs; the rest of the record is not read. */
const LegacyApprovalSchema = z.object({
  id: z.string(),
  runId: z.string(),
  status: z.string(),
  bindingHash: z.string().regex(/^[0-9a-f]{64}$/),
  approvers: ApproverSetSchema,
  reason: z.string(),
  args: z.unknown(),
});

/**
 * For each approval still pending in the old book whose run waits for it without its binding, approvers, reason and
 * shown arguments: copies them in, under the run's lease, so no click or expiry is applied meanwhile; then forgets
 * the book's pending set and sets a marker, so that no process reads it again. Returns how many runs it filled.
 */
export async function backfillApprovalFields(core: CommandCore, store: Store): Promise<number> {
  if ((await store.get(storeKeys.legacyApprovalsCopied)) !== undefined) return 0;
  const ids = await store.members(storeKeys.legacyPendingApprovals);
  let filled = 0;
  for (const approvalId of ids) {
    const parsed = LegacyApprovalSchema.safeParse(await store.get(storeKeys.legacyApproval(approvalId)));
    if (parsed.success && parsed.data.status === 'pending' && (await fill(core, parsed.data))) filled += 1;
    // Handled: a failure above leaves it in the set, for the next pass to try again.
    await store.removeFromSet(storeKeys.legacyPendingApprovals, approvalId);
  }
  await store.set(storeKeys.legacyApprovalsCopied, { filled });
  return filled;
}

async function fill(core: CommandCore, approval: z.infer<typeof LegacyApprovalSchema>): Promise<boolean> {
  const needs = async () => {
    const run = await core.runs.find(approval.runId).catch(() => undefined);
    return run?.status === 'waiting_for_approval' &&
      run.approval.approvalId === approval.id &&
      run.approval.bindingHash === undefined
      ? run
      : undefined;
  };
  if (!(await needs())) return false;
  return underLease(core, approval.runId, async () => {
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
}
