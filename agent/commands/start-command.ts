// start: a new request becomes a saved run, handed to the queue or put in line behind its thread's earlier one
// (a run `alongside` its thread's active run goes to the queue at once).
import type { ModelFallback } from '../model-fallback.js';
import { newRun, type TaskInput, taskProblem } from '../new-run.js';
import { type AuditLog, auditActor } from '../policy/audit-log.js';
import { applyTransition, type CommandCore } from './command-core.js';

export interface StartOptions {
  /** Whether the model's engine is there; without it every request runs on the command engine. */
  modelEngine: boolean;
  fallback: ModelFallback;
  newId: () => string;
  audit?: AuditLog;
  /**
   * On a gateway, which steps no runs: whether a worker was heard from lately. The gateway then posts the run's
   * status itself as it hands it to the queue.
   */
  workersSeen?: () => Promise<boolean>;
}

/**
 * Saves a new run and hands it to the queue, or, when its thread is busy (and it does not run alongside), puts it
 * in line there, and returns its id at once. Bad input ends in a failed run with a clear message. A typed command runs without the model while
 * the model cannot be reached, and says so.
 */
export async function startRun(core: CommandCore, task: TaskInput, options: StartOptions): Promise<string> {
  const { clock, limits } = core;
  const unreachable =
    !task.engine && options.modelEngine ? options.fallback.engineAtStart(task.text) : undefined;
  const engine =
    task.engine ?? (options.modelEngine && !unreachable ? (task.modelEngine ?? 'react') : 'command');
  const run = newRun({
    ...task,
    id: task.runId ?? options.newId(),
    now: clock.now(),
    engine,
    maxTaskChars: limits.maxTaskChars,
    redactor: core.redactor,
  });
  const problem = taskProblem(task.text, engine, limits.maxTaskChars);
  if (problem) {
    await applyTransition(core, run, {
      type: 'failed',
      at: clock.now(),
      code: 'invalid_task',
      message: problem,
    });
    return run.id;
  }
  run.messages.push({ role: 'user', content: run.task });
  if (unreachable) {
    run.events.push({
      type: 'engine_switched',
      at: clock.now(),
      step: 0,
      engine,
      reason: unreachable.reason,
    });
  }
  await options.audit?.record({
    kind: 'request',
    actor: auditActor(run.principal),
    runId: run.id,
    conversation: run.conversation,
    reason: run.task.slice(0, 500),
  });
  // The thread's context is built when the run starts (run-worker.ts), so a queued follow-up sees what came before.
  const saved = await core.effects.create(run);
  if (saved.alongside) {
    // Beside the thread's active run: a click's one call is not made to wait for an investigation to end.
    await core.queue.enqueue(saved.id);
    return saved.id;
  }
  const workersSeen = options.workersSeen;
  // A gateway shows the run at once, before a worker can take it: nobody is left without a reaction.
  const shown = workersSeen
    ? async () => {
        const seen = await workersSeen().catch(() => true);
        await applyTransition(core, saved, {
          type: 'handed_to_queue',
          at: clock.now(),
          workers: seen ? 'seen' : 'none',
        });
      }
    : undefined;
  const position = await core.scheduler.admit(saved.conversation, saved.id, shown);
  if (position > 0) {
    const behind = await waitingRunOf(core, await core.runs.threadRunIds(saved.conversation));
    await applyTransition(core, saved, {
      type: 'thread_busy',
      at: clock.now(),
      position,
      ...(behind ? { behind } : {}),
    });
  }
  return saved.id;
}

/** The thread's run that waits for a person, newest first, as the queued run's line names it. */
async function waitingRunOf(core: CommandCore, runIds: readonly string[]) {
  for (const runId of [...runIds].reverse()) {
    const run = await core.runs.find(runId).catch(() => undefined);
    if (run?.status === 'waiting_for_user') {
      const asked = run.principal.displayName;
      return { requester: asked, waitsFor: { kind: 'answer' as const, who: asked } };
    }
    if (run?.status === 'waiting_for_approval')
      return {
        requester: run.principal.displayName,
        waitsFor: { kind: 'approval' as const, tool: run.approval.call.name },
      };
  }
  return undefined;
}
