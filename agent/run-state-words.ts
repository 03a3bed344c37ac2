// A run's state in words a person can read: "this run was cancelled by Alice at 12:03 UTC".
import type { Run, RunIn } from './run.js';

/** The status line of a run at work. */
export const WORKING_WORDS = 'Working on it…';

/** The status line a gateway shows when it queues a run and no worker was heard from in the last 30 s. */
export const NO_WORKER_WORDS =
  'Queued: no worker is running right now. It starts as soon as one does; tell whoever runs opsbot if this stays';

/** The one wording of a finished run, on every surface: its status line, the playground's badge, the CLI. */
export const FINISHED_WORDS = { ok: 'Done', problem: 'Done, with a problem' } as const;

export function finishedWords(run: RunIn<'finished'>): string {
  return run.ok ? FINISHED_WORDS.ok : FINISHED_WORDS.problem;
}

/** A name in the possessive, for text everyone in a thread reads: "Alice's", "James's". */
export function possessive(name: string): string {
  // The playground's own person is called "You": "Waiting for your answer", not "You's".
  if (name === 'You') return 'your';
  return `${name}'s`;
}

/** The shared status of a run waiting for its requester: "Waiting for Alice's answer". */
export function waitingForAnswerWords(run: Run): string {
  return `Waiting for ${possessive(run.principal.displayName)} answer`;
}

/** True for a run that finished, but not cleanly: a failed check, or a write or danger action that failed. */
export function finishedWithProblem(run: Run): boolean {
  return run.status === 'finished' && (!run.ok || run.failedActions.length > 0);
}

export function formatClock(at: number): string {
  return `${new Date(at).toISOString().slice(11, 16)} UTC`;
}

/** Describes where the run is now, to explain why something cannot happen to it. */
export function describeRunState(run: Run): string {
  switch (run.status) {
    case 'queued':
      return `run ${run.id} is queued and has not started yet`;
    case 'running':
      return `run ${run.id} is working`;
    case 'executing':
      return `run ${run.id} is running ${run.executing.call.name} right now`;
    case 'waiting_for_user':
      return `run ${run.id} is waiting for ${possessive(run.principal.displayName)} answer`;
    case 'waiting_for_approval':
      return `run ${run.id} is waiting for an approval of ${run.approval.call.name}`;
    case 'finished': {
      const failed = run.failedActions.map((action) => action.tool);
      const problem = failed.length > 0 ? `, with a problem (${failed.join(', ')} failed)` : '';
      return `run ${run.id} already finished at ${formatClock(run.updatedAt)}${problem}`;
    }
    case 'failed':
      return `run ${run.id} already failed at ${formatClock(run.updatedAt)}: ${run.error.message}`;
    case 'cancelled':
      return `run ${run.id} was cancelled by ${run.cancelled.by} at ${formatClock(run.cancelled.at)}`;
    case 'expired':
      return `run ${run.id} expired at ${formatClock(run.expired.at)}`;
    case 'outcome_unknown':
      return `run ${run.id} stopped mid-action (${run.unknownCall.name}) and its outcome is unknown`;
  }
}
