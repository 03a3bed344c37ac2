// Drives evaluatePatrol run after run like the patrol runner will: it keeps the states and reports between runs.
import type { CheckOutcome } from '../../scheduled/check-outcome.js';
import { checkOutcome } from '../../scheduled/check-outcome.js';
import { type CheckState, CheckStateSchema } from '../../scheduled/check-state.js';
import { evaluatePatrol, type ReportFacts } from '../../scheduled/patrol-evaluation.js';
import type { PatrolPost } from '../../scheduled/patrol-posts.js';
import { type Patrol, PatrolSchema } from '../../scheduled/patrol-settings.js';

export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;

/** A patrol as settings would load it, with the given checks and keys. */
export function patrolWith(keys: Record<string, unknown> = {}): Patrol {
  return PatrolSchema.parse({
    schedule: '*/5 * * * *',
    channel: 'playground:ops',
    checks: [{ id: 'web', tool: 'http_check' }],
    ...keys,
  });
}

/** What a check's tool did this run: passed, failed, threw, or an outcome spelled out. */
export type Result = 'pass' | 'fail' | 'throw' | CheckOutcome;

export class PatrolWorld {
  states: Record<string, CheckState> = {};
  reports: Record<string, ReportFacts> = {};
  patrolSnoozedUntil: number | undefined;
  checkSnoozedUntil: Record<string, number> = {};
  private reportCount = 0;

  constructor(
    readonly patrol: Patrol,
    public now = Date.parse('2026-01-15T12:00:00Z'),
  ) {}

  /** One run at `now` (or `at`), then the clock moves on by `step`. */
  run(results: Record<string, Result>, options: { at?: number; step?: number } = {}): PatrolPost[] {
    if (options.at !== undefined) this.now = options.at;
    const outcomes: Record<string, CheckOutcome> = {};
    for (const check of this.patrol.checks) {
      if (!Object.hasOwn(results, check.id)) continue;
      const result = results[check.id] as Result;
      outcomes[check.id] =
        result === 'pass'
          ? checkOutcome(check, { ok: true, summary: 'HTTP 200' })
          : result === 'fail'
            ? checkOutcome(check, { ok: false, summary: 'HTTP 503 (expected 200)' })
            : result === 'throw'
              ? checkOutcome(check, { thrown: 'timed out after 10s' })
              : result;
    }
    const newReportId = `r${this.reportCount + 1}`;
    const evaluation = evaluatePatrol({
      patrol: this.patrol,
      states: this.states,
      outcomes,
      now: this.now,
      newReportId,
      reports: this.reports,
      patrolSnoozedUntil: this.patrolSnoozedUntil,
      checkSnoozedUntil: this.checkSnoozedUntil,
    });
    this.states = evaluation.states;
    if (evaluation.posts.some((post) => post.kind === 'new_report')) {
      this.reportCount += 1;
      this.reports[newReportId] = {};
    }
    this.now += options.step ?? 5 * MINUTE;
    return evaluation.posts;
  }

  /** The same patrol after a restart: states stored as JSON and validated on the way back. */
  restarted(): PatrolWorld {
    const world = new PatrolWorld(this.patrol, this.now);
    const stored = JSON.parse(JSON.stringify(this.states)) as Record<string, unknown>;
    world.states = Object.fromEntries(
      Object.entries(stored).map(([id, state]) => [id, CheckStateSchema.parse(state)]),
    );
    world.reports = structuredClone(this.reports);
    world.reportCount = this.reportCount;
    return world;
  }

  ack(reportId: string): void {
    this.reports[reportId] = { acked: { by: 'alice', at: this.now } };
  }
}

/** The line changes of some posts, in order, as `kind:reportId:checkId:change`, for short assertions. */
export function summary(posts: PatrolPost[]): string[] {
  return posts.flatMap((post) =>
    post.kind === 'update_report'
      ? [`update:${post.reportId}:${post.level}${post.allResolved ? ':all resolved' : ''}`]
      : post.lines.map((line) => `${post.kind}:${post.reportId}:${line.checkId}:${line.change}`),
  );
}
