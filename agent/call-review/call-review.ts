// A reviewer's verdict on a call waiting for approval, as the model writes it and as the run keeps it.
import { z } from 'zod';

export const REVIEW_VERDICTS = ['supported', 'weak', 'contradicted'] as const;
export type ReviewVerdict = (typeof REVIEW_VERDICTS)[number];

/** The most characters of one line of reasoning shown on a card. */
export const REVIEW_LINE_CHARS = 200;

/** What the model must answer: a verdict and one or two short lines of reasoning. Anything else is no verdict. */
export const ReviewReplySchema = z.strictObject({
  verdict: z.enum(REVIEW_VERDICTS),
  reasons: z.array(z.string().trim().min(1)).min(1).max(2),
});

/**
 * Kept with the pending approval (optional: a run stored before reviews, or with none, loads as it was). A
 * review that gave no verdict says why (the model failed, timed out, or answered something else).
 */
export const CallReviewSchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('verdict'),
    verdict: z.enum(REVIEW_VERDICTS),
    reasons: z.array(z.string()).min(1).max(2),
  }),
  z.object({ kind: z.literal('unavailable'), why: z.string() }),
]);
export type CallReview = z.infer<typeof CallReviewSchema>;

/** The card's line: "supported: the health check failed 3 times; the log shows OOM kills". */
export function reviewText(review: CallReview): string {
  return review.kind === 'verdict'
    ? `${review.verdict}: ${review.reasons.join('; ')}`
    : `unavailable (${review.why})`;
}
