// `/ops cancel` with no run id: in a thread, that thread's active run; at the top level, your only active run, or
// the list of them to pick from. Who may cancel is the kernel's to decide (the requester, or an admin).
import { personKey } from '../../agent/principal.js';
import { isTerminal, type Run } from '../../agent/run.js';
import { clip } from '../chat/split-text.js';
import type { CommandContext } from './command-context.js';

const LISTED = 10;

export async function cancelWithoutId(context: CommandContext): Promise<string> {
  const { kernel, principal, slashCommand } = context;
  const target = await cancelTarget(context);
  if (target.kind === 'none') return `${target.text}.`;
  if (target.kind === 'not_yours') return target.text;
  const { runs, inThread } = target;
  if (runs.length === 1) return (await kernel.cancel(runs[0]!.id, principal)).message;
  return pickOne(
    runs,
    slashCommand,
    inThread ? 'Runs active in this thread' : 'You have several active runs',
  );
}

/** What a cancel with no run id means here: nothing, someone else's run, or the runs this person may cancel. */
export type CancelTarget =
  | { kind: 'none'; text: string }
  | { kind: 'not_yours'; text: string }
  | { kind: 'runs'; runs: Run[]; inThread: boolean };

/** In a thread, its active runs; at the top level, the person's own active runs. */
export async function cancelTarget(
  context: Pick<CommandContext, 'kernel' | 'principal' | 'conversation'>,
): Promise<CancelTarget> {
  const { kernel, principal, conversation } = context;
  const inThread = conversation.threadId !== undefined;
  const ids = inThread ? await kernel.runs.threadRunIds(conversation) : await kernel.runs.activeRunIds();
  const live = (await loadAll(context, ids)).filter(
    (run) => !isTerminal(run.status) && (inThread || personKey(run.principal) === personKey(principal)),
  );
  if (live.length === 0)
    return { kind: 'none', text: inThread ? 'No run is active in this thread' : 'You have no active runs' };
  const runs = live.filter((run) => kernel.policy.mayActOnRun(principal, run, { kind: 'cancel' }).allowed);
  if (runs.length === 0)
    return {
      kind: 'not_yours',
      text: `Only ${live[0]!.principal.displayName} or an admin may cancel the run in this thread.`,
    };
  return { kind: 'runs', runs, inThread };
}

async function loadAll(context: Pick<CommandContext, 'kernel'>, ids: readonly string[]): Promise<Run[]> {
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
