// A step's progress on the run's status line while it waits, said as it happens: a model call being retried, or
// held back by the rate limit.
import type { MessageTone } from './chat-port.js';
import type { PlanProgress } from './engines/engine.js';
import type { ModelWait } from './model/model-port.js';
import { type ModelRetry, modelRetryWords } from './model/model-retry.js';
import { modelWaitWords } from './model/model-wait.js';
import type { Run } from './run.js';
import type { RunEffects } from './run-effects.js';
import { WORKING_WORDS } from './run-state-words.js';

export class StepProgress implements PlanProgress {
  private writes: Promise<void> = Promise.resolve();
  private shown = false;

  /** `run` is the step's working copy: it keeps the id of a status line posted here. */
  constructor(
    private readonly effects: Pick<RunEffects, 'progress'>,
    private readonly run: Run,
  ) {}

  modelRetrying(retry: ModelRetry): void {
    this.shown = true;
    this.show(modelRetryWords(retry), 'warning');
  }

  modelWaiting(wait: ModelWait): void {
    this.shown = true;
    this.show(modelWaitWords(wait), 'working');
  }

  /** The call is sent: the line says the run works on, and needs no second saying so at the end. */
  modelAdmitted(): void {
    if (!this.shown) return;
    this.shown = false;
    this.show(WORKING_WORDS, 'working');
  }

  /**
   * Waits until every update is shown, so none lands after the step's own status. After a retry that worked,
   * the line says the run is working again; after a failure, the failure's status follows.
   */
  async done(succeeded = true): Promise<void> {
    if (succeeded && this.shown) this.show(WORKING_WORDS, 'working');
    this.shown = false;
    await this.writes;
  }

  private show(text: string, tone: MessageTone): void {
    this.writes = this.writes.then(async () => {
      const after = await this.effects.progress(this.run, text, tone);
      if (after.statusMessageId) this.run.statusMessageId = after.statusMessageId;
      if (after.statusShown) this.run.statusShown = after.statusShown;
    });
  }
}
