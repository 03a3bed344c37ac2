// cancel: final for a run nobody is stepping; a request, heard at once, for a run a worker is stepping.
import { CallerError, ErrorCode } from '../errors.js';
import type { CancelResult } from '../kernel-results.js';
import type { Principal } from '../principal.js';
import { isTerminal, type Run } from '../run.js';
import { actorOf } from '../run-machine.js';
import { describeRunState } from '../run-state-words.js';
import { applyTransition, authorize, type CommandCore, PERSON_WAITS_MS } from './command-core.js';

/** A cancel of a run stepped in this process waits this long for the worker to stop it. */
const CANCEL_WAITS_MS = 3_000;

/**
 * Cancels a run. A waiting or queued run is cancelled at once, its card or question closed. A run a worker
 * is stepping stops at its next step boundary; in this process that is at once, unless it is mid-action.
 */
export async function cancelRun(
  core: CommandCore,
  runId: string,
  principal: Principal,
): Promise<CancelResult> {
  const run = await core.runs.load(runId);
  authorize(core, principal, run, { kind: 'cancel' });
  if (isTerminal(run.status)) {
    throw new CallerError(ErrorCode.RunWrongState, `Nothing to cancel: ${describeRunState(run)}.`);
  }
  const by = actorOf(principal);
  // A click or an answer holds a waiting run only for a moment: wait for it rather than leave a request
  // that no worker would read while the run waits.
  const waiting = run.status === 'waiting_for_user' || run.status === 'waiting_for_approval';
  if (!(await core.leases.claimWithin(runId, waiting ? PERSON_WAITS_MS : 0))) {
    await core.cancels.request(runId, by);
    if (core.worker.isStepping(runId)) await within(CANCEL_WAITS_MS, core.worker.stopped(runId));
    const now = await core.runs.load(runId);
    if (now.status === 'cancelled') return { run: now, message: `Cancelled ${runId}.` };
    // A worker holds it: a queued run is saved as running only at the end of its first step.
    const state = now.status === 'queued' ? `run ${runId} is working` : describeRunState(now);
    return { run: now, message: `${runId} will stop at its next step (${state}).` };
  }
  try {
    const current = await core.runs.load(runId);
    if (isTerminal(current.status)) {
      throw new CallerError(ErrorCode.RunWrongState, `Nothing to cancel: ${describeRunState(current)}.`);
    }
    if (current.status === 'executing') {
      // Nobody holds a run that is mid-action: its process died, and the action may or may not have happened.
      const interrupted = await applyTransition(core, current, {
        type: 'action_interrupted',
        at: core.clock.now(),
      });
      return { run: interrupted, message: `Nothing to cancel: ${describeRunState(interrupted)}.` };
    }
    return { run: await cancelHeld(core, current, by), message: `Cancelled ${runId}.` };
  } finally {
    await core.leases.release(runId);
  }
}

/** Cancels a run this process holds the lease of; an approval it waits for is withdrawn with it. */
export async function cancelHeld(
  core: CommandCore,
  current: Run,
  by: ReturnType<typeof actorOf>,
): Promise<Run> {
  return applyTransition(core, current, { type: 'cancelled', at: core.clock.now(), by });
}

/** Carries out a cancel request stored for a waiting run, if there is one. */
export async function cancelPutOff(core: CommandCore, runId: string): Promise<void> {
  const request = await core.cancels.pending(runId);
  if (!request) return;
  await core.leases.hold(runId, async () => {
    const current = await core.runs.load(runId);
    if (current.status !== 'waiting_for_user' && current.status !== 'waiting_for_approval') return;
    await cancelHeld(core, current, { key: request.key, displayName: request.displayName });
  });
}

/** Waits for `work`, or `ms`, whichever comes first. */
export function within(ms: number, work: Promise<void>): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    timer.unref();
    void work.finally(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}
