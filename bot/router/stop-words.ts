// "cancel" or "stop" as a whole message means a run, never a task: it is not sent to the model as a request to
// "stop", nor queued behind the run it means. The person is asked which run, and how to cancel it; opsbot
// cancels nothing on a word alone, since the word may have been meant for someone else in the thread.
import { personKey } from '../../agent/principal.js';
import { isTerminal, type Run } from '../../agent/run.js';
import { loadAll } from './cancel-without-id.js';
import type { CommandContext } from './command-context.js';

/** A whole message that means "stop the run". */
export const STOP_WORDS = /^\s*(cancel|stop)[.!]?\s*$/i;

/** What a "stop" that answers no question is told, privately: which run it could mean, and how to cancel it. */
export async function stopWordsReply(
  context: Pick<CommandContext, 'kernel' | 'principal' | 'conversation' | 'slashCommand'>,
  word: string,
): Promise<string> {
  const { kernel, principal, conversation, slashCommand } = context;
  const asTask = `"${word.trim()}" was not taken as a task; to ask opsbot for it as one, put it in quotes.`;
  const mayCancel = (run: Run) => kernel.policy.mayActOnRun(principal, run, { kind: 'cancel' }).allowed;
  const inThread = conversation.threadId !== undefined;
  const ids = inThread ? await kernel.runs.threadRunIds(conversation) : await kernel.runs.activeRunIds();
  const live = (await loadAll({ kernel }, ids)).filter(
    (run) => !isTerminal(run.status) && (inThread || personKey(run.principal) === personKey(principal)),
  );
  if (live.length === 0)
    return `${inThread ? 'No run is active in this thread' : 'You have no active runs'}, so there is nothing to stop. ${asTask}`;
  const yours = live.filter(mayCancel);
  if (yours.length === 0)
    return `Only ${live[0]!.principal.displayName} or an admin may cancel the run in this thread. ${asTask}`;
  const where = inThread ? ' in this thread' : '';
  const which = yours.length === 1 ? `run ${yours[0]!.id}` : `one of ${yours.length} runs`;
  return `Cancel ${which}? Click *Cancel run* on its status line, or send \`${slashCommand} cancel\`${where}. ${asTask}`;
}
