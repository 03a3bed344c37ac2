// How long a message may wait on a platform's rate limits before it is too late to be worth sending.
import type { OutboundMessage } from '../../agent/chat-port.js';

export const DELIVERY_BUDGET_MS = {
  interactive: 2 * 60_000,
  status: 60_000,
  other: 5 * 60_000,
} as const;

/** An approval card is pointless in its last seconds: nobody can read and click it in time. */
export const CARD_MIN_LIFETIME_MS = 5_000;

/**
 * Interactive posts get a short budget, and an approval card is never delivered after its approval expired:
 * a deadline at or before `now` means the message is not worth sending at all.
 */
export function deliveryDeadline(message: OutboundMessage, now: number): number {
  switch (message.kind) {
    case 'approval':
      return message.decision
        ? now + DELIVERY_BUDGET_MS.interactive
        : Math.min(message.expiresAt - CARD_MIN_LIFETIME_MS, now + DELIVERY_BUDGET_MS.interactive);
    case 'question':
      return now + DELIVERY_BUDGET_MS.interactive;
    case 'status':
      return now + DELIVERY_BUDGET_MS.status;
    default:
      return now + DELIVERY_BUDGET_MS.other;
  }
}
