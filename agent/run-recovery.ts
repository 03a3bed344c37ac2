// After a restart, and on a timer: runs caught mid-action, runs caught between steps, and questions that expired.
import type { Clock } from './clock.js';
import { errorMessage } from './errors.js';
import type { Logger } from './logger.js';
import { isTerminal, type Run } from './run.js';
import type { RunLeases } from './run-leases.js';
import type { RunRepository } from './run-repository.js';
import { questionExpired, type RunTransitions } from './run-transitions.js';

export interface RunRecoveryDeps {
  runs: RunRepository;
  leases: RunLeases;
  transitions: RunTransitions;
  clock: Clock;
  logger: Logger;
  continueRun(run: Run): Promise<void>;
}

export class RunRecovery {
  constructor(private readonly deps: RunRecoveryDeps) {}

  /** Expires runs whose question waited too long. Safe to call from every replica. */
  async expireWaiting(): Promise<number> {
    let expired = 0;
    for (const runId of await this.deps.runs.waitingRunIds()) {
      const run = await this.deps.runs.find(runId);
      if (run?.pending?.kind !== 'question' || this.deps.clock.now() < run.pending.expiresAt) continue;
      await this.deps.leases
        .withRun(runId, async (current) => {
          if (current.pending?.kind !== 'question' || this.deps.clock.now() < current.pending.expiresAt)
            return;
          await this.deps.transitions.expire(
            current,
            questionExpired(current.pending.expiresAt - current.pending.askedAt),
          );
          expired += 1;
        })
        .catch((error) =>
          this.deps.logger.warn({ runId, err: errorMessage(error) }, 'could not expire a run'),
        );
    }
    return expired;
  }

  /**
   * After a restart: a run caught mid-action becomes outcome_unknown (never replayed), and a run caught
   * between steps continues. Runs another live process holds are left alone.
   */
  async recover(): Promise<{ continued: number; outcomeUnknown: number }> {
    const counts = { continued: 0, outcomeUnknown: 0 };
    for (const runId of await this.deps.runs.activeRunIds()) {
      if (this.deps.leases.heldHere(runId) || (await this.deps.leases.heldElsewhere(runId))) continue;
      const run = await this.deps.runs.find(runId).catch((error) => {
        this.deps.logger.error({ runId, err: errorMessage(error) }, 'a stored run could not be loaded');
        return undefined;
      });
      if (!run || isTerminal(run.status)) continue;
      if (run.pending?.kind === 'executing') {
        await this.deps.leases.withRun(runId, async (current) => {
          if (current.pending?.kind !== 'executing') return;
          await this.deps.transitions.outcomeUnknown(current);
          counts.outcomeUnknown += 1;
        });
      } else if (run.status === 'running') {
        counts.continued += 1;
        await this.deps.continueRun(run);
      }
    }
    return counts;
  }
}
