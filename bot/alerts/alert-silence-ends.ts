// Hears Silence button runs end, in whichever process ends them, and shows a silence that was made on its group's
// root, under the group's claim: who asked and until when, and no Silence buttons while it lasts. A run that made
// no silence (denied, expired, refused, cancelled, failed) leaves the root as it was.
import type { ChatPort } from '../../agent/chat-port.js';
import type { Clock } from '../../agent/clock.js';
import { errorMessage, isStoreUnavailable } from '../../agent/errors.js';
import type { Logger } from '../../agent/logger.js';
import { isTerminal, type Run } from '../../agent/run.js';
import type { RunListener } from '../../agent/run-listeners.js';
import { rootMessage } from './alert-group-messages.js';
import type { AlertGroupRepository } from './alert-group-repository.js';
import { recordSilenced, withRootEdit } from './alert-group-state.js';
import type { SilenceRunLinks } from './alert-silence-links.js';
import { silenceOutcome } from './alert-silence-outcome.js';
import { SILENCE_TOOL } from './alert-silences.js';

export interface AlertSilenceEndsOptions {
  links: SilenceRunLinks;
  repository: AlertGroupRepository;
  chat: ChatPort;
  clock: Clock;
  logger: Logger;
  /** Whether a firing root offers Investigate here: whenever a model is configured. */
  modelConfigured: boolean;
}

export class AlertSilenceEnds {
  constructor(private readonly options: AlertSilenceEndsOptions) {}

  /** For `kernel.onRunChange`: a run's change is heard by the process that made it. */
  readonly listener: RunListener = (run) => {
    if (!isTerminal(run.status) || !isSilenceRun(run)) return;
    // Off the run's own path: an edit of the root that fails is logged, and the run has ended all the same.
    void this.ended(run).catch((error) =>
      this.options.logger.warn(
        { runId: run.id, err: errorMessage(error) },
        "could not show a silence on its alert group's root",
      ),
    );
  };

  private async ended(run: Run): Promise<void> {
    const { links, repository, chat, clock } = this.options;
    const link = await links.find(run.id);
    if (!link) return;
    const silenced = silenceOutcome(run, SILENCE_TOOL, link.duration);
    if (!silenced) {
      await links.forget(run.id);
      return;
    }
    await repository.exclusively(link.groupId, link.groupId, async () => {
      // Under the claim, the link is read again: a run's end heard twice edits the root once.
      if (!(await links.find(run.id))) return;
      const record = await repository.find(link.groupId);
      if (record?.status === 'firing') {
        const next = recordSilenced(record, silenced);
        await repository.save(next);
        try {
          await chat.update(
            record.root,
            rootMessage(next, {
              investigateButton: this.options.modelConfigured,
              silenceButtons: true,
              now: clock.now(),
            }),
          );
        } catch (error) {
          if (isStoreUnavailable(error)) throw error;
          // The edit is left to the receiver's delivery, which retries it until the chat platform takes it.
          this.options.logger.warn(
            { err: errorMessage(error), groupId: link.groupId },
            'the root could not be edited to show its silence; it is saved and tried again',
          );
          await repository.save(withRootEdit(next));
        }
      }
      await links.forget(run.id);
    });
  }
}

/** A Silence button's run: alongside its thread, its one planned call alertmanager_silence. */
function isSilenceRun(run: Run): boolean {
  return run.alongside === true && run.plan?.calls.length === 1 && run.plan.calls[0]?.name === SILENCE_TOOL;
}
