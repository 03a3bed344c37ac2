// Where a click may decide a card: only in the conversation the card was posted in, never from another place.
import type { Conversation } from '../conversation.js';

/**
 * Why a click from `clickedIn` may not decide a card posted in `card`, or undefined when it may. The platform,
 * the workspace (Slack team, Discord guild) when the card's is recorded, and the channel must be the card's; a
 * click from inside the card's thread counts as its channel (on Discord a thread is a channel of its own).
 */
export function clickPlaceRefusal(card: Conversation, clickedIn: Conversation): string | undefined {
  const refused = (where: string) =>
    `Your click was not counted: this card was posted in ${where}, and only a click there can decide it.`;
  if (clickedIn.platform !== card.platform) return refused(`a ${card.platform} conversation`);
  if (card.workspaceId !== undefined && clickedIn.workspaceId !== card.workspaceId)
    return refused(`another ${card.platform === 'discord' ? 'server' : 'workspace'}`);
  const inChannel =
    clickedIn.channelId === card.channelId ||
    (card.threadId !== undefined && clickedIn.channelId === card.threadId);
  if (!inChannel) return refused(card.channelName ? `#${card.channelName}` : 'another channel');
  return undefined;
}
