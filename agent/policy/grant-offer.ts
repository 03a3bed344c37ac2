// What an approval card offers besides "Approve once": approving for a while, for the durations the settings
// allow, with the exact arguments or under one of the tool's patterns. Kept with the pending approval, so a click
// grants exactly what the card showed, even if the settings change while it waits.
import { z } from 'zod';
import { type Tool, takesGrants } from '../tool.js';
import { GrantPatternSchema, patternsFor } from './grant-patterns.js';

export const GrantOfferSchema = z.object({
  /** The grant lengths offered, in ms: `permissions.grant_durations`. */
  durationsMs: z.array(z.number().int().positive()).min(1),
  /** The tool's patterns that hold this call's arguments: the approver may pick one instead of exact arguments. */
  patterns: z.array(GrantPatternSchema).default([]),
});
export type GrantOffer = z.infer<typeof GrantOfferSchema>;

/** At most this many patterns are offered by button; the CLI's `--pattern` reaches the same ones. */
export const PATTERNS_ON_A_CARD = 2;

/**
 * The offer for a call, or undefined when it takes no grants: the tool says `grants: false`, or the call needs
 * two approvers and the tool does not say `grants: true`.
 */
export function grantOfferFor(
  tool: Pick<Tool, 'grants' | 'approvals' | 'grantPatterns'>,
  args: Record<string, unknown>,
  durationsMs: readonly number[] | undefined,
  approvals: 1 | 2,
): GrantOffer | undefined {
  if (!durationsMs || durationsMs.length === 0) return undefined;
  if (!takesGrants({ grants: tool.grants, approvals: approvals === 2 ? 2 : tool.approvals }))
    return undefined;
  return { durationsMs: [...durationsMs], patterns: patternsFor(tool.grantPatterns, args) };
}
