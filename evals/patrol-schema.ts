// A patrol scenario's `patrol:` block: which patrol, and its rounds (change the world, run once, expect posts).
import { z } from 'zod';

/** A change to a running HTTP target between rounds; what is not given stays as it was. */
const HttpChangeSchema = z
  .object({
    status: z.number().int().min(100).max(599).optional(),
    body: z.string().optional(),
    delay_ms: z.number().int().min(0).max(10_000).optional(),
  })
  .strict();
export type HttpChange = z.infer<typeof HttpChangeSchema>;

const WorldChangeSchema = z
  .object({
    /** By the name of an HTTP target in the scenario's `world.http`. */
    http: z.record(z.string(), HttpChangeSchema).default({}),
  })
  .strict();

const LEVELS = ['critical', 'warn', 'error', 'flapping', 'resolved'] as const;

/** Text expectations on a posted report, as a person sees it (heading and one line per check). */
const PostedTextSchema = z
  .object({
    /** The report's level: critical, warn, error (a check could not run), flapping, resolved. */
    level: z.enum(LEVELS).optional(),
    /** Exactly these check ids have a line in it, in any order. */
    checks: z.array(z.string()).optional(),
    contains: z.array(z.string()).default([]),
    not_contains: z.array(z.string()).default([]),
    matches: z.string().optional(),
  })
  .strict();
export type PostedText = z.infer<typeof PostedTextSchema>;

export const RoundExpectSchema = z
  .object({
    /** How many messages this round posted: new reports and thread replies (in-place updates not counted). */
    posts: z.number().int().nonnegative().optional(),
    /** A new report posted in the channel this round, and what it says. */
    report: PostedTextSchema.optional(),
    /** A reply in an open report's thread this round (a check resolved, changed severity, a reminder). */
    reply: PostedTextSchema.optional(),
    /** true: a report was marked resolved this round (header updated, every check fine); false: none was. */
    resolved: z.boolean().optional(),
  })
  .strict();
export type RoundExpect = z.infer<typeof RoundExpectSchema>;

const RoundSchema = z
  .object({
    /** Applied before the round's run. */
    world: WorldChangeSchema.optional(),
    expect: RoundExpectSchema.default({}),
  })
  .strict();
export type PatrolRound = z.infer<typeof RoundSchema>;

export const PatrolBlockSchema = z
  .object({
    /** A patrol defined in the scenario's `settings.patrols`. */
    name: z.string().min(1),
    /** Each round: optionally change the world, then run the patrol once through the patrol service. */
    rounds: z.array(RoundSchema).min(1).max(50),
  })
  .strict();
export type PatrolBlock = z.infer<typeof PatrolBlockSchema>;

/** What a scenario must look like with or without `patrol:`; each problem with the path it concerns. */
export function taskOrPatrolIssues(scenario: {
  task?: string | undefined;
  patrol?: PatrolBlock | undefined;
  model: unknown[];
  expect: Record<string, unknown>;
}): { path: string[]; message: string }[] {
  if (!scenario.patrol) {
    return scenario.task === undefined
      ? [{ path: ['task'], message: 'a scenario needs a task (what the person types), or a patrol: block' }]
      : [];
  }
  const issues: { path: string[]; message: string }[] = [];
  if (scenario.task !== undefined)
    issues.push({ path: ['task'], message: 'give a task or a patrol:, not both' });
  if (scenario.model.length > 0)
    issues.push({ path: ['model'], message: 'a patrol never asks the model; leave model: out' });
  // Expectations of a task's run would be silently ignored; a patrol's go in its rounds.
  const taskOnly = Object.entries(scenario.expect).filter(
    ([key, value]) => key !== 'never_shown' && !(Array.isArray(value) && value.length === 0),
  );
  for (const [key] of taskOnly)
    issues.push({
      path: ['expect', key],
      message: `with patrol:, expect takes only never_shown; put what each run posts in patrol.rounds[].expect`,
    });
  return issues;
}
