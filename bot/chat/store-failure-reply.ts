// What a person is told when the store failed under their request: a refused write names its cause and what was
// lost ("your approval was not recorded: the store is failing (disk full); try again"), so no click is lost unseen.
import { isStoreWriteError } from '../../agent/store/store-write-error.js';
import type { ChatEvent } from './chat-event.js';

/** The thing the event asked for, as the clicker would name it. */
function whatWasAsked(event: Pick<ChatEvent, 'kind'> & { action?: string }): string {
  if (event.kind !== 'action') return 'request';
  if (event.action === 'approve') return 'approval';
  if (event.action === 'deny') return 'denial';
  if (event.action === 'answer') return 'answer';
  return 'click';
}

/** The reply for a store failure; undefined when the error is no store failure (the caller says something else). */
export function storeFailureReply(
  error: unknown,
  event: Pick<ChatEvent, 'kind'> & { action?: string },
): string | undefined {
  if (!isStoreWriteError(error)) return undefined;
  return `Your ${whatWasAsked(event)} was not recorded: the store is failing (${error.reason}); try again.`;
}
