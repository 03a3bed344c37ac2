// `grants` and `revoke <grant>` in chat: the approval grants in force, this channel's first, and ending one early.
import type { Conversation } from '../../agent/conversation.js';
import { countWords } from '../../agent/count-words.js';
import type { Grant } from '../../agent/kernel.js';
import { revokeRefusal } from '../../agent/policy/grant-rules.js';
import { grantEndedText, grantScopeText } from '../../agent/policy/grant-text.js';
import { formatClock } from '../../agent/run-state-words.js';
import { relativeFuture } from '../chat/view-time.js';
import type { CommandContext } from './command-context.js';

/** A private reply stays readable: past this many grants it says how many more there are. */
export const GRANT_LIST_LIMIT = 20;

export type GrantReplyContext = Omit<CommandContext, 'patrols'>;

/** Arguments as inline code, so JSON's `*` and `_` are not read as formatting; a backtick would end the code. */
const asCode = (json: string) => `\`${json.replaceAll('`', "'")}\``;

function grantLine(grant: Grant, now: number): string {
  return (
    `• \`${grant.id}\` ${grantScopeText(grant, asCode)}, granted by ${grant.grantedBy.displayName}, ` +
    `until ${formatClock(grant.until)} (${relativeFuture(grant.until, now)})`
  );
}

function isHere(grant: Grant, conversation: Conversation): boolean {
  return (
    grant.channel.platform === conversation.platform && grant.channel.channelId === conversation.channelId
  );
}

/**
 * Anyone may list this channel's grants: what runs here without a card is no secret from the people here.
 * Grants in other channels are listed to those who could end them (admins, the tool's approvers there), since
 * other channels may be private; everyone else gets only their number.
 */
export async function listGrantsReply(context: GrantReplyContext): Promise<string> {
  const { kernel, settings, principal, conversation, now } = context;
  const live = await kernel.listGrants();
  const here = live.filter((grant) => isHere(grant, conversation));
  const elsewhere = live.filter((grant) => !isHere(grant, conversation));
  const shownElsewhere = elsewhere.filter(
    (grant) => revokeRefusal(settings.permissions, principal, grant) === undefined,
  );
  const hidden = elsewhere.length - shownElsewhere.length;
  if (here.length === 0 && shownElsewhere.length === 0 && hidden === 0) return 'No approval grants in force.';

  const hereShown = here.slice(0, GRANT_LIST_LIMIT);
  const elsewhereShown = shownElsewhere.slice(0, GRANT_LIST_LIMIT - hereShown.length);
  const line = (grant: Grant) => grantLine(grant, now);
  const lines = [
    hereShown.length > 0 ? 'Grants in force here, the soonest to end first:' : 'No grants in force here.',
    ...hereShown.map(line),
    ...(elsewhereShown.length > 0 ? ['In other channels:', ...elsewhereShown.map(line)] : []),
  ];
  const more = [
    [here.length - hereShown.length, 'here'] as const,
    [shownElsewhere.length - elsewhereShown.length, 'in other channels'] as const,
  ].filter(([count]) => count > 0);
  if (more.length > 0) {
    const total = more.reduce((sum, [count]) => sum + count, 0);
    const parts = more.map(([count, where]) => `${count} ${where}`).join(', ');
    lines.push(`…and ${total} more, ending later: ${parts}. \`opsbot grants\` lists every grant.`);
  }
  if (hidden > 0)
    lines.push(
      `Not listed: ${countWords(hidden, 'grant')} in other channels, which only admins and those who may approve their tools there see.`,
    );
  if (hereShown.length + elsewhereShown.length > 0)
    lines.push(
      `\`${commandText(context, 'revoke <grant>')}\` ends one; admins and the tool's approvers may.`,
    );
  return lines.join('\n');
}

/** `/ops revoke`, or `revoke` where there is no slash command (the terminal). */
function commandText(context: Pick<GrantReplyContext, 'slashCommand'>, words: string): string {
  return `${context.slashCommand} ${words}`.trimStart();
}

/** Ends one grant; the kernel decides who may. Says what ended and what now waits for an approver again. */
export async function revokeGrantReply(context: GrantReplyContext, grantId: string): Promise<string> {
  const result = await context.kernel.revokeGrant(grantId, context.principal);
  return result.ok && result.grant
    ? `${result.message} ${grantEndedText(result.grant, asCode)}`
    : result.message;
}

/** `revoke` with no grant id, or one word that is not an id: how to use it, rather than a task for the model. */
export function revokeUsage(
  context: Pick<GrantReplyContext, 'slashCommand'>,
  given: string | undefined,
): string {
  const what = given
    ? `\`${given.replaceAll('`', "'")}\` is not a grant id: ids are \`grt_\` and 16 hex digits.`
    : `\`${commandText(context, 'revoke')}\` needs a grant id.`;
  return (
    `${what} \`${commandText(context, 'revoke grt_…')}\` ends that grant, and \`${commandText(context, 'grants')}\` ` +
    'lists them. To ask me for something else, say it in more words.'
  );
}
