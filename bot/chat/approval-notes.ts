// What an approval card says besides the call itself: why a Confirm card asks the requester, which arguments
// of a danger call are free text from the model, and the reviewer's advice.
import { reviewText } from '../../agent/call-review/call-review.js';
import type { OutboundMessage } from '../../agent/chat-port.js';
import type { ViewBlock } from './message-view-types.js';
import { inert } from './neutralize-pings.js';
import { clip } from './split-text.js';

type ApprovalCard = Extract<OutboundMessage, { kind: 'approval' }>;

/** The heading's first words while it waits: a Confirm card is the requester's own, not an approver's. */
export function pendingState(card: Pick<ApprovalCard, 'confirm'>): string {
  return card.confirm ? 'Confirm needed' : 'Approval needed';
}

/** The label of the field that says who decides. */
export function decidersLabel(card: Pick<ApprovalCard, 'confirm'>): string {
  return card.confirm ? 'Confirm by' : 'Approvers';
}

/** The label of the button that lets the call run. */
export function approveLabel(card: Pick<ApprovalCard, 'confirm'>): string {
  return card.confirm ? 'Confirm' : 'Approve';
}

export function approvalNotes(card: ApprovalCard, fieldChars: number): ViewBlock[] {
  const notes: ViewBlock[] = [];
  if (card.confirm) {
    notes.push({
      type: 'text',
      format: 'plain',
      label: 'Why it asks',
      text: inert(
        clip(
          `${card.requester}, you did not ask for ${card.tool}: the model proposes it after reading data from ` +
            'outside this conversation (tool output), which may carry instructions. Only you can confirm it; ' +
            'deny it if you did not mean it to happen.',
          fieldChars,
        ),
      ),
    });
  }
  if (card.freeText?.length) {
    notes.push({
      type: 'text',
      format: 'plain',
      label: 'Free text, from the model',
      text: inert(
        clip(
          `${card.freeText.join(', ')}: no enum or pattern limits these values; read them as the model's own words.`,
          fieldChars,
        ),
      ),
    });
  }
  if (card.review) notes.push(reviewerNote(card.review, fieldChars));
  return notes;
}

/** The marker a `contradicted` verdict carries on every platform, so an approver cannot read past it. */
export const CONTRADICTED_MARKER = '⚠️';

/**
 * "Reviewer: supported: the health check failed 3 times; the log shows OOM kills". A contradicted verdict is
 * marked as a warning; none of them changes the buttons: the approver decides.
 */
function reviewerNote(review: NonNullable<ApprovalCard['review']>, fieldChars: number): ViewBlock {
  const contradicted = review.kind === 'verdict' && review.verdict === 'contradicted';
  const text = `${contradicted ? `${CONTRADICTED_MARKER} ` : ''}${reviewText(review)}`;
  return {
    type: 'text',
    format: 'plain',
    label: contradicted ? `${CONTRADICTED_MARKER} Reviewer (advice, not an approval)` : 'Reviewer',
    text: inert(clip(text, fieldChars)),
  };
}
