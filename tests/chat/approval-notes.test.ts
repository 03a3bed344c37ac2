// A Confirm card and a danger card's free-text note, as every platform's view shows them.
import { describe, expect, it } from 'vitest';
import { messageView } from '../../bot/chat/message-view.js';
import type { MessageView } from '../../bot/chat/message-view-types.js';
import { VIEW_LIMITS } from '../../bot/chat/view-limits.js';
import { sampleApprovalCard } from '../fixtures/outbound-messages.js';

const now = sampleApprovalCard.expiresAt - 60_000;
const view = (card: typeof sampleApprovalCard): MessageView =>
  messageView(card, { now, limits: VIEW_LIMITS.slack });
const texts = (shown: MessageView) =>
  shown.blocks.flatMap((block) => (block.type === 'text' ? [`${block.label ?? ''}: ${block.text}`] : []));

describe('approval card notes', () => {
  it("shows a Confirm card as the requester's own, with Confirm and Deny, and why it asks", () => {
    const shown = view({ ...sampleApprovalCard, confirm: true });
    expect(shown.heading).toContain('Confirm needed');
    expect(shown.buttons.map((button) => button.label)).toEqual(['Confirm', 'Deny', 'Cancel run']);
    const fields = shown.blocks.flatMap((block) => (block.type === 'fields' ? block.fields : []));
    expect(fields.map((field) => field.label)).toContain('Confirm by');
    expect(texts(shown).join('\n')).toContain(`you did not ask for ${sampleApprovalCard.tool}`);
  });

  it("names a danger call's free-text parameters as the model's own words", () => {
    const shown = view({ ...sampleApprovalCard, freeText: ['target', 'message'] });
    expect(texts(shown).join('\n')).toContain(
      'Free text, from the model: target, message: no enum or pattern limits these values',
    );
  });

  it('says neither on a plain approval card', () => {
    const shown = view(sampleApprovalCard);
    expect(shown.heading).toContain('Approval needed');
    expect(texts(shown).join('\n')).not.toContain('from the model');
  });
});
