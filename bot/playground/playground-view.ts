// What the page gets for each message: the stored message, and for the bot's, its neutral view as of now.
import { messageView } from '../chat/message-view.js';
import type { MessageView } from '../chat/message-view-types.js';
import { VIEW_LIMITS } from '../chat/view-limits.js';
import type { PlaygroundMessage } from './playground-store.js';

export type PresentedMessage = PlaygroundMessage & { view?: MessageView };

/**
 * The view is made when the message is sent to a browser, not when it is stored: a reload then shows an approval
 * that has expired meanwhile as expired, and older stored messages get the current rendering.
 */
export function presentMessage(message: PlaygroundMessage, now: number): PresentedMessage {
  if (message.content.kind === 'user_text') return message;
  return { ...message, view: messageView(message.content, { now, limits: VIEW_LIMITS.playground }) };
}
