// Stored check states load back validated (a v1 state must load after an upgrade); tool results become outcomes.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { checkOutcome } from '../../scheduled/check-outcome.js';
import { CheckStateSchema } from '../../scheduled/check-state.js';
import { evaluatePatrol } from '../../scheduled/patrol-evaluation.js';
import { patrolWith } from './patrol-world.js';

const fixture = JSON.parse(
  readFileSync(new URL('./check-state-v1.fixture.json', import.meta.url), 'utf8'),
) as Record<string, unknown>;

describe('stored check states', () => {
  it.each(Object.entries(fixture))('the v1 state of %s loads', (_id, stored) => {
    expect(CheckStateSchema.parse(stored)).toEqual(stored);
  });

  it('a loaded v1 state carries on where it was: the resolving check resolves in its report', () => {
    const web = CheckStateSchema.parse(fixture.web);
    const patrol = patrolWith({ clear_after: 2 });
    const { posts } = evaluatePatrol({
      patrol,
      states: { web },
      outcomes: { web: { kind: 'pass', detail: 'HTTP 200' } },
      now: 1767226200000,
      newReportId: 'rpt_new',
      reports: { rpt_7f3a: {} },
    });
    expect(posts).toEqual([
      expect.objectContaining({ kind: 'thread_reply', reportId: 'rpt_7f3a' }),
      {
        kind: 'update_report',
        reportId: 'rpt_7f3a',
        level: 'resolved',
        resolvedCheckIds: ['web'],
        allResolved: true,
        lines: [expect.objectContaining({ checkId: 'web', change: 'resolved' })],
      },
    ]);
  });

  it.each([
    ['an unknown version', { ...(fixture.queue as object), version: 2 }],
    ['an unknown status', { ...(fixture.queue as object), machine: { status: 'sleeping', since: 1 } }],
    [
      'a pending state without its count',
      { ...(fixture.disk as object), machine: { status: 'pending', since: 1 } },
    ],
    ['an unknown key', { ...(fixture.queue as object), snoozed: true }],
    [
      'a report without its id',
      { ...(fixture.db as object), reported: { level: 'flapping', since: 1, postedAt: 1 } },
    ],
    ['more than 10 runs of history', { ...(fixture.queue as object), recentChanges: Array(11).fill(false) }],
  ])('refuses %s', (_name, stored) => {
    expect(CheckStateSchema.safeParse(stored).success).toBe(false);
  });
});

describe('checkOutcome', () => {
  const [check] = patrolWith({ checks: [{ id: 'disk', tool: 'disk_usage', severity: 'warn' }] }).checks;
  const [defaulted] = patrolWith().checks;

  it.each([
    ['ok: pass', { ok: true, summary: '/ is 40% full' }, { kind: 'pass', detail: '/ is 40% full' }],
    [
      'not ok: fail at the check severity',
      { ok: false, summary: '/ is 93% full (limit 90%)' },
      { kind: 'fail', severity: 'warn', detail: '/ is 93% full (limit 90%)' },
    ],
    ['thrown: error', { thrown: 'timed out after 10s' }, { kind: 'error', detail: 'timed out after 10s' }],
  ] as const)('%s', (_name, result, outcome) => {
    expect(checkOutcome(check!, result)).toEqual(outcome);
  });

  it('a failing check is critical unless its settings say warn', () => {
    expect(checkOutcome(defaulted!, { ok: false, summary: 'HTTP 503' })).toMatchObject({
      severity: 'critical',
    });
  });
});
