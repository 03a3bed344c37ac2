// recover: after a restart and on a timer, runs nobody holds are taken up again from the Store alone.

import { cancelPutOff } from './cancel-command.js';
import { applyTransition, type CommandCore } from './command-core.js';

/** After a restart and on a timer: a run caught mid-action becomes outcome_unknown; the rest go on. */
export async function recoverRuns(core: CommandCore): Promise<{ continued: number; outcomeUnknown: number }> {
  const counts = { continued: 0, outcomeUnknown: 0 };
  for (const runId of await core.runs.activeRunIds()) {
    if (core.leases.heldHere(runId) || (await core.leases.heldElsewhere(runId))) continue;
    const run = await core.runs.find(runId).catch((error) => {
      core.logger.error({ runId, err: String(error) }, 'a stored run could not be loaded');
      return undefined;
    });
    if (!run) continue;
    if (run.status === 'executing') {
      const marked = await core.leases
        .hold(runId, async () => {
          const current = await core.runs.load(runId);
          if (current.status !== 'executing') return false;
          await applyTransition(core, current, { type: 'action_interrupted', at: core.clock.now() });
          return true;
        })
        .catch(() => false);
      if (marked) counts.outcomeUnknown += 1;
    } else if (run.status === 'running') {
      await core.queue.enqueue(runId);
      counts.continued += 1;
    } else if (run.status === 'queued') {
      // A run alongside its thread's active run never waits in the thread's line.
      if (run.alongside || (await core.scheduler.holds(run.conversation, runId)))
        await core.queue.enqueue(runId);
      else await core.scheduler.admit(run.conversation, runId);
      counts.continued += 1;
    } else if (run.status === 'waiting_for_user' || run.status === 'waiting_for_approval') {
      // A cancel put off because another command (or a process that died) held the run: nobody steps a
      // waiting run, so recovery carries it out.
      await cancelPutOff(core, runId).catch((error) =>
        core.logger.warn({ runId, err: String(error) }, 'could not carry out a cancel put off'),
      );
    }
  }
  return counts;
}
