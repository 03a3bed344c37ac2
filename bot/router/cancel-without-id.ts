// `/ops cancel` with no run id: in a thread, that thread's active run; at the top level, your only active run, or
// the list of them to pick from. Who may cancel is the kernel's to decide (the requester, or an admin).
import { personKey } from '../../agent/principal.js';
import { isTerminal, type Run } from '../../agent/run.js';
import { clip } from '../chat/split-text.js';
import type { CommandContext } from './command-context.js';

const LISTED = 10;

export async function cancelWithoutId(context: CommandContext): Promise<string> {
  const { kernel, principal, conversation, slashCommand } = context;
  const mayCancel = (run: Run) => kernel.policy.mayActOnRun(principal, run, { kind: 'cancel' }).allowed;
  if (conversation.threadId) {
    const ids = await kernel.runs.threadRunIds(conversation);
    const live = (await loadAll(context, ids)).filter((run) => !isTerminal(run.status));
    if (live.length === 0) return 'No run is active in this thread.';
    const yours = live.filter(mayCancel);
    if (yours.length === 0)
      return `Only ${live[0]!.principal.displayName} or an admin may cancel the run in this thread.`;
    if (yours.length === 1) return (await kernel.cancel(yours[0]!.id, principal)).message;
    return pickOne(yours, slashCommand, 'Runs active in this thread');
  }
  const active = await loadAll(context, await kernel.runs.activeRunIds());
  const own = active.filter(
    (run) => !isTerminal(run.status) && personKey(run.principal) === personKey(principal),
  );
  if (own.length === 0) return 'You have no active runs.';
  if (own.length === 1) return (await kernel.cancel(own[0]!.id, principal)).message;
  return pickOne(own, slashCommand, 'You have several active runs');
}

export async function loadAll(
  context: Pick<CommandContext, 'kernel'>,
  ids: readonly string[],
): Promise<Run[]> {
  const runs = await Promise.all(ids.map((id) => context.kernel.runs.find(id).catch(() => undefined)));
  return runs.filter((run): run is Run => run !== undefined);
}

function pickOne(runs: Run[], slashCommand: string, heading: string): string {
  const newest = [...runs].sort((a, b) => b.createdAt - a.createdAt);
  const lines = newest
    .slice(0, LISTED)
    .map(
      (run) =>
        `• \`${slashCommand} cancel ${run.id}\` — "${clip(run.task.replace(/\s+/g, ' ').trim(), 60)}", ${run.status.replaceAll('_', ' ')}`,
    );
  const more =
    newest.length > LISTED ? [`… and ${newest.length - LISTED} more (\`${slashCommand} status\`)`] : [];
  return [`${heading}; say which to cancel:`, ...lines, ...more].join('\n');
}
