// The patrol runs going on in this process: one at a time per patrol, taken synchronously so no await can race.

export interface RunningPatrol {
  /** The slot the run is for (the request time for a manual run). */
  readonly at: number;
  readonly manual: boolean;
  readonly startedAt: number;
}

/** Hands back the place; `finish` resolves whoever waits in `settled`. */
export interface PatrolReservation {
  finish(): void;
}

export class PatrolRuns {
  private readonly running = new Map<string, RunningPatrol & { done: Promise<void> }>();

  /** Takes the patrol's place, or says what holds it. Synchronous on purpose: check and take are one step. */
  reserve(name: string, run: RunningPatrol): PatrolReservation | RunningPatrol {
    const holder = this.running.get(name);
    if (holder) return holder;
    let finish = () => {};
    const done = new Promise<void>((resolve) => {
      finish = () => {
        if (this.running.get(name)?.done === done) this.running.delete(name);
        resolve();
      };
    });
    this.running.set(name, { ...run, done });
    return { finish };
  }

  get(name: string): RunningPatrol | undefined {
    return this.running.get(name);
  }

  /** Resolves when every run going now has finished. */
  async settled(): Promise<void> {
    await Promise.all([...this.running.values()].map((run) => run.done));
  }

  names(): string[] {
    return [...this.running.keys()];
  }
}

export function isReservation(value: PatrolReservation | RunningPatrol): value is PatrolReservation {
  return 'finish' in value;
}
