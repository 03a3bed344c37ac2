// What every kernel command works with, and the one sequence each follows: take the run's lease, apply the
// run machine, apply its effects, and hand the run to the queue once the lease is free again.
import type { ApprovalSettings } from '../approval-settings.js';
import type { Clock } from '../clock.js';
import type { ConversationScheduler } from '../conversation-scheduler.js';
import { CallerError, ErrorCode } from '../errors.js';
import type { KernelLimits } from '../kernel-options.js';
import type { Logger } from '../logger.js';
import type { ApprovalGrants } from '../policy/approval-grants.js';
import type { Principal } from '../principal.js';
import type { Redactor } from '../redaction.js';
import type { Run } from '../run.js';
import type { RunCancels } from '../run-cancels.js';
import type { RunEffects } from '../run-effects.js';
import type { RunLeases } from '../run-leases.js';
import { type RunMachineEvent, transition } from '../run-machine.js';
import type { RunQueue } from '../run-queue.js';
import type { RunRepository } from '../run-repository.js';
import type { RunWorker } from '../run-worker.js';
import type { ToolPolicy } from '../tool-policy.js';
import type { ToolRegistry } from '../tool-registry.js';

export interface CommandCore {
  runs: RunRepository;
  leases: RunLeases;
  effects: RunEffects;
  queue: RunQueue;
  scheduler: ConversationScheduler;
  cancels: RunCancels;
  worker: RunWorker;
  policy: ToolPolicy;
  registry: ToolRegistry;
  redactor: Redactor;
  clock: Clock;
  logger: Logger;
  limits: KernelLimits;
  approvals: ApprovalSettings | undefined;
  grants: ApprovalGrants;
}

/** An answer or a click waits this long for a step in progress on the same run to reach its boundary. */
export const PERSON_WAITS_MS = 5_000;

export function authorize(
  core: CommandCore,
  principal: Principal,
  run: Run,
  action: Parameters<ToolPolicy['mayActOnRun']>[2],
): void {
  const authority = core.policy.mayActOnRun(principal, run, action);
  if (!authority.allowed) throw new CallerError(ErrorCode.NotAllowed, authority.reason);
}

/** One transition and its effects; a refused one is the caller's mistake, told in the run's own words. */
export async function applyTransition(
  core: CommandCore,
  run: Run,
  event: RunMachineEvent,
  handOff?: string[],
): Promise<Run> {
  const result = transition(run, event);
  if (!result.ok)
    throw new CallerError(ErrorCode.RunWrongState, `Cannot do that: ${result.refusal.message}.`);
  return core.effects.apply(result.run, result.effects, handOff);
}

/**
 * A command on one run: under its lease (waiting briefly for a step in progress), and the run handed to the
 * queue only once the lease is free again, so the worker that takes it can take the lease too.
 */
export async function underLease<T>(
  core: CommandCore,
  runId: string,
  work: (handOff: string[]) => Promise<T>,
  options: { waitMs?: number } = {},
): Promise<T> {
  const handOff: string[] = [];
  const result = await core.leases.hold(runId, () => work(handOff), options);
  for (const queued of handOff) await core.queue.enqueue(queued);
  return result;
}
