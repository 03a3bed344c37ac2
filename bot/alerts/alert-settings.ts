// The `alerts:` section of opsbot.yaml: where Alertmanager's groups are posted, whether they are investigated, and
// routes by label. The keys are a contract (see docs/alerts.md); new keys may be added, none renamed.
import { z } from 'zod';
import { ModelEngineKindSchema } from '../../agent/run-engine-kind.js';
import { PatrolChannelSchema, PatrolCheckSchema } from '../../scheduled/patrol-settings.js';

const LabelName = z.string().regex(/^[a-zA-Z_][a-zA-Z0-9_]*$/, 'a Prometheus label name');

export const AlertRouteSchema = z.strictObject({
  match: z
    .record(LabelName, z.string())
    .default({})
    .describe('Labels the group must have with exactly these values (its `commonLabels`).'),
  match_re: z
    .record(LabelName, z.string())
    .default({})
    .describe(
      'Labels whose values must match these regular expressions, anchored at both ends as in Alertmanager.',
    ),
  channel: PatrolChannelSchema.optional().describe(
    "Where this route's groups go, in place of `alerts.channel`: `slack:<id>`, `discord:<id>` or `playground:<name>`.",
  ),
  drop: z
    .boolean()
    .default(false)
    .describe('`true` posts nothing for the groups this route matches (Watchdog, InfoInhibitor).'),
  checks: z
    .array(PatrolCheckSchema)
    .default([])
    .describe(
      "Read-only checks (as a patrol's) that run for a new group when no model is configured; their results go in the thread.",
    ),
});
export type AlertRoute = z.output<typeof AlertRouteSchema>;

export const AlertSettingsSchema = z
  .strictObject({
    channel: PatrolChannelSchema.optional().describe(
      'Where alert threads go unless a route says otherwise: `slack:<channel id>`, `discord:<channel id>` or ' +
        '`playground:<channel name>`. Without it (and without a route that gives one) a group is not posted.',
    ),
    investigate: z
      .boolean()
      .default(false)
      .describe(
        'With a model: start an investigation run in the thread of each new alert group, as `alert:<receiver>`.',
      ),
    engine: ModelEngineKindSchema.default('plan').describe(
      'The model engine investigations run on: `plan` (one call plans the checks, one answers from them) or ' +
        '`react` (the tool loop).',
    ),
    role: z
      .string()
      .default('patrol')
      .describe(
        'The role investigations run as; the built-in `patrol` is read-only. Give it more only on purpose.',
      ),
    max_investigations_per_hour: z
      .number()
      .int()
      .min(0)
      .max(10_000)
      .default(30)
      .describe(
        'New groups investigated automatically per hour, across processes; past it a group is posted with an ' +
          'Investigate button instead.',
      ),
    routes: z
      .array(AlertRouteSchema)
      .default([])
      .describe(
        'Routes by label, tried in order; the first that matches decides. A group no route matches goes to `channel`.',
      ),
  })
  .prefault({});
export type AlertSettings = z.output<typeof AlertSettingsSchema>;
