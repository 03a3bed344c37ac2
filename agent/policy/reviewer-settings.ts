// The `permissions.reviewer` section: a model's second look at a risky call before a person is asked to approve it.
import { z } from 'zod';
import { RiskSchema } from '../tool.js';
import { DurationSchema } from './duration.js';

export const ReviewerSettingsSchema = z
  .strictObject({
    enabled: z
      .boolean()
      .default(true)
      .describe(
        'Before a call that needs an approval asks for it, one model call (the summary model when one is set, ' +
          'else the main model; no tools) weighs the call against what the run has found so far and the card ' +
          'shows its verdict: `supported`, `weak` or `contradicted`, with two short lines of reasoning. It is ' +
          'advice for the approver, never an approval: a `contradicted` call is marked on the card and can still ' +
          'be approved. Without a model there is no review.',
      ),
    risks: z
      .array(RiskSchema)
      .default(['danger'])
      .describe(
        'The risks of the calls that are reviewed before their approval; add `write` to review writes too.',
      ),
    skip_tools: z
      .array(z.string())
      .default([])
      .describe('Tool names or globs (`restart_*`) whose calls are never reviewed.'),
    skip_roles: z
      .array(z.string())
      .default([])
      .describe("Roles whose members' calls are never reviewed (a requester with any of them)."),
    timeout: DurationSchema.default(10_000).describe(
      'How long the review may take; past it the card is posted without a verdict ("Reviewer: unavailable").',
    ),
  })
  .prefault({});

export type ReviewerSettings = z.output<typeof ReviewerSettingsSchema>;
