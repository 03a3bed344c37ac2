// The expiry sweep as it was before the wait-expiry index (agent/expiry-sweep.ts before issue 16), kept here
// only as the bench's baseline: every pass reads the whole waiting set, and loads each run it has not seen.
import type { Kernel } from '../../agent/kernel.js';
import { waitingUntil } from '../../agent/run.js';

export class OldSweepPass {
  /** When each waiting run's wait ends, as last read: a run is loaded once, not at every pass. */
  private readonly dueAt = new Map<string, number>();

  constructor(private readonly kernel: Kernel) {}

  /** Forgets what it learned, as a process that just started knows nothing: the next pass is a first pass. */
  forget(): void {
    this.dueAt.clear();
  }

  async pass(now: number): Promise<number> {
    const { runs } = this.kernel;
    const waiting = new Set(await runs.waitingRunIds());
    for (const runId of this.dueAt.keys()) if (!waiting.has(runId)) this.dueAt.delete(runId);
    for (const runId of waiting) {
      if (this.dueAt.has(runId)) continue;
      const run = await runs.find(runId).catch(() => undefined);
      const due = run ? waitingUntil(run) : undefined;
      if (due !== undefined) this.dueAt.set(runId, due);
    }
    let expired = 0;
    for (const [runId, due] of this.dueAt) {
      if (now < due) continue;
      this.dueAt.delete(runId);
      if (await this.kernel.expire(runId)) expired += 1;
    }
    return expired;
  }
}
