// "cancel" or "stop" as a whole message means a run, never a task: it is not sent to the model as a request to
// "stop", nor queued behind the run it means. The person is asked which run, and how to cancel it; opsbot
// cancels nothing on a word alone, since the word may have been meant for someone else in the thread.
import { cancelTarget } from './cancel-without-id.js';
import type { CommandContext } from './command-context.js';

/** A whole message that means "stop the run". */
export const STOP_WORDS = /^\s*(cancel|stop)[.!]?\s*$/i;

/** What a "stop" that answers no question is told, privately: which run it could mean, and how to cancel it. */
export async function stopWordsReply(
  context: Pick<CommandContext, 'kernel' | 'principal' | 'conversation' | 'slashCommand'>,
  word: string,
): Promise<string> {
  const asTask = `"${word.trim()}" was not taken as a task; to ask opsbot for it as one, put it in quotes.`;
  const target = await cancelTarget(context);
  if (target.kind === 'none') return `${target.text}, so there is nothing to stop. ${asTask}`;
  if (target.kind === 'not_yours') return `${target.text} ${asTask}`;
  const { runs, inThread } = target;
  const which = runs.length === 1 ? `run ${runs[0]!.id}` : `one of ${runs.length} runs`;
  return `Cancel ${which}? Click *Cancel run* on its status line, or send \`${context.slashCommand} cancel\`${inThread ? ' in this thread' : ''}. ${asTask}`;
}
