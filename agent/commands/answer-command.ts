// answer: a person's reply to the question a run waits on.
import { answerFromChoices, interpretAnswer } from '../answer-question.js';
import { CallerError, ErrorCode } from '../errors.js';
import type { Principal } from '../principal.js';
import type { Run } from '../run.js';
import { actorOf } from '../run-machine.js';
import { describeRunState } from '../run-state-words.js';
import { applyTransition, authorize, type CommandCore, PERSON_WAITS_MS, underLease } from './command-core.js';

/** A person's answer to the question a run waits on, from any process; the run then goes back to the queue. */
export async function answerRun(
  core: CommandCore,
  runId: string,
  text: string,
  principal: Principal,
): Promise<Run> {
  return underLease(
    core,
    runId,
    async (handOff) => {
      const run = await core.runs.load(runId);
      if (run.status !== 'waiting_for_user') {
        throw new CallerError(
          ErrorCode.RunNotWaiting,
          `There is no question to answer: ${describeRunState(run)}.`,
        );
      }
      authorize(core, principal, run, { kind: 'answer' });
      const now = core.clock.now();
      if (now >= run.question.expiresAt)
        return applyTransition(core, run, { type: 'question_expired', at: now });
      const answer = core.redactor.redact(answerFromChoices(run.question.choices, text));
      return applyTransition(
        core,
        run,
        {
          type: 'answer_received',
          at: now,
          answer,
          by: actorOf(principal),
          take: interpretAnswer(run, answer, principal, core.registry),
          expiresAt: now + core.limits.questionTtlMs,
        },
        handOff,
      );
    },
    { waitMs: PERSON_WAITS_MS },
  );
}
