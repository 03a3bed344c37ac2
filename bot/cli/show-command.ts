// `opsbot show <run>`: a run in full, from its record in the store: who asked what, where, each call with its
// arguments and its whole output as the model read it, and the whole answer; redacted, as everything printed is.
// Where a chat message was cut (the playground's 64 KB, Slack's and Discord's limits), this is the full text.
import { countWords } from '../../agent/count-words.js';
import type { Run } from '../../agent/run.js';
import { RunRepository } from '../../agent/run-repository.js';
import { openStore } from '../../agent/store/open-store.js';
import type { CliContext } from './cli-context.js';
import type { CliIo } from './cli-io.js';
import { EXIT } from './run-task.js';

export async function showCommand(context: CliContext, io: CliIo, runId: string): Promise<number> {
  const store = await openStore(context.environment.OPSBOT_STORE_URL, { logger: context.logger });
  try {
    const run = await new RunRepository(store).find(runId);
    if (!run) {
      io.stderr.write(
        `opsbot: there is no run ${runId} in ${context.environment.OPSBOT_STORE_URL} (runs are kept in the store, a patrol's for limits.patrol_history: is OPSBOT_STORE_URL the one the bot uses?)\n`,
      );
      return EXIT.failed;
    }
    io.stdout.write(`${context.redactor.redact(showRun(run))}\n`);
    return EXIT.ok;
  } finally {
    await store.close();
  }
}

/** The run as text: a header, then each call and its output in the order made, then the answer. */
export function showRun(run: Run): string {
  const where = run.conversation.channelName ?? `${run.conversation.platform}:${run.conversation.channelId}`;
  const { usage } = run;
  const lines = [
    `run ${run.id}: ${run.status.replaceAll('_', ' ')} · ${run.engine} engine · ${countWords(usage.modelCalls, 'model call')}, ${countWords(usage.toolCalls, 'tool call')}, ${countWords(usage.promptTokens + usage.completionTokens, 'token')}`,
    `asked by ${run.principal.displayName} in ${where} at ${new Date(run.createdAt).toISOString()}`,
    '',
    'Task:',
    run.task,
  ];
  const argsOf = new Map<string, string>();
  for (const message of run.messages) {
    if (message.role === 'assistant') {
      for (const call of message.toolCalls ?? []) argsOf.set(call.id, call.arguments);
    } else if (message.role === 'tool') {
      lines.push(
        '',
        `── ${message.name} ${argsOf.get(message.toolCallId) ?? ''}`.trimEnd(),
        outputText(message.content),
      );
    }
  }
  lines.push('', ending(run));
  return lines.join('\n');
}

function ending(run: Run): string {
  switch (run.status) {
    case 'finished':
      return `Answer${run.ok ? '' : ' (done, with a problem)'}:\n${run.answer}`;
    case 'failed':
      return `Failed (${run.error.code}):\n${run.error.message}`;
    case 'cancelled':
      return `Cancelled by ${run.cancelled.by} at ${new Date(run.cancelled.at).toISOString()}.`;
    case 'expired':
      return `Expired: ${run.expired.message}`;
    case 'outcome_unknown':
      return `Outcome unknown: ${run.unknownCall.name} was running when its process stopped; check it by hand.`;
    default:
      return `No answer yet: the run is ${run.status.replaceAll('_', ' ')}.`;
  }
}

/** A tool message is JSON; shown pretty, so a long output reads as it was, not as one line. */
function outputText(content: string): string {
  try {
    return JSON.stringify(JSON.parse(content), null, 2);
  } catch {
    return content;
  }
}
