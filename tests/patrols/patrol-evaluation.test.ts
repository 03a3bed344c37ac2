// Patrol runs end to end through evaluatePatrol: only transitions post, grouped into one message per run.
import { describe, expect, it } from 'vitest';
import { evaluatePatrol } from '../../scheduled/patrol-evaluation.js';
import { HOUR, MINUTE, PatrolWorld, patrolWith, summary } from './patrol-world.js';

describe('raise_after and clear_after', () => {
  it('with 2 and 2: fail, fail posts; pass posts nothing; pass posts resolved in the thread', () => {
    const world = new PatrolWorld(patrolWith({ raise_after: 2, clear_after: 2 }));
    const firstFailure = world.now;
    expect(world.run({ web: 'fail' })).toEqual([]);
    const raisedAt = world.now;
    expect(world.run({ web: 'fail' })).toEqual([
      {
        kind: 'new_report',
        reportId: 'r1',
        level: 'critical',
        lines: [
          {
            checkId: 'web',
            tool: 'http_check',
            change: 'firing',
            severity: 'critical',
            detail: 'HTTP 503 (expected 200)',
            previous: 'pending',
            since: firstFailure,
          },
        ],
      },
    ]);
    expect(world.run({ web: 'pass' })).toEqual([]);
    expect(world.run({ web: 'pass' })).toEqual([
      {
        kind: 'thread_reply',
        reportId: 'r1',
        lines: [
          {
            checkId: 'web',
            tool: 'http_check',
            change: 'resolved',
            detail: 'HTTP 200',
            previous: 'critical',
            since: raisedAt,
          },
        ],
      },
      {
        kind: 'update_report',
        reportId: 'r1',
        level: 'resolved',
        resolvedCheckIds: ['web'],
        allResolved: true,
        lines: [expect.objectContaining({ checkId: 'web', change: 'resolved', detail: 'HTTP 200' })],
      },
    ]);
    expect(world.run({ web: 'pass' })).toEqual([]);
  });

  it('a single failure below raise_after, then a pass, never posts', () => {
    const world = new PatrolWorld(patrolWith({ raise_after: 2 }));
    const posts = ['fail', 'pass', 'fail', 'pass', 'fail', 'pass'].flatMap((result) =>
      world.run({ web: result as 'fail' | 'pass' }),
    );
    expect(posts).toEqual([]);
  });

  it('a check that keeps failing posts nothing more', () => {
    const world = new PatrolWorld(patrolWith());
    expect(summary(world.run({ web: 'fail' }))).toEqual(['new_report:r1:web:firing']);
    for (let run = 0; run < 20; run += 1) expect(world.run({ web: 'fail' })).toEqual([]);
  });
});

describe('severity change while firing', () => {
  it('warn to critical updates the report header and replies in its thread', () => {
    const world = new PatrolWorld(patrolWith());
    const warnAt = world.now;
    expect(
      summary(world.run({ web: { kind: 'fail', severity: 'warn', detail: 'p95 900ms (limit 500ms)' } })),
    ).toEqual(['new_report:r1:web:firing']);
    const posts = world.run({ web: { kind: 'fail', severity: 'critical', detail: 'p95 4s (limit 500ms)' } });
    expect(posts).toEqual([
      {
        kind: 'thread_reply',
        reportId: 'r1',
        lines: [
          {
            checkId: 'web',
            tool: 'http_check',
            change: 'severity_changed',
            severity: 'critical',
            detail: 'p95 4s (limit 500ms)',
            previous: 'warn',
            since: warnAt,
          },
        ],
      },
      {
        kind: 'update_report',
        reportId: 'r1',
        level: 'critical',
        resolvedCheckIds: [],
        allResolved: false,
        lines: [
          expect.objectContaining({ checkId: 'web', change: 'severity_changed', severity: 'critical' }),
        ],
      },
    ]);
    expect(summary(world.run({ web: { kind: 'fail', severity: 'warn', detail: 'p95 800ms' } }))).toEqual([
      'thread_reply:r1:web:severity_changed',
      'update:r1:warn',
    ]);
  });
});

describe('errors', () => {
  it('a check whose tool throws is error, not critical, and a pass after it is resolved', () => {
    const world = new PatrolWorld(patrolWith());
    const [report] = world.run({ web: 'throw' });
    expect(report).toMatchObject({ kind: 'new_report', level: 'error' });
    expect(report?.kind === 'new_report' && report.lines[0]).toMatchObject({
      change: 'error',
      detail: 'timed out after 10s',
    });
    expect(report?.kind === 'new_report' && report.lines[0]?.severity).toBeUndefined();
    expect(summary(world.run({ web: 'pass' }))).toEqual([
      'thread_reply:r1:web:resolved',
      'update:r1:resolved:all resolved',
    ]);
  });

  it('errors obey raise_after like failures', () => {
    const world = new PatrolWorld(patrolWith({ raise_after: 3 }));
    expect(world.run({ web: 'throw' })).toEqual([]);
    expect(world.run({ web: 'fail' })).toEqual([]);
    expect(summary(world.run({ web: 'throw' }))).toEqual(['new_report:r1:web:error']);
  });

  it('a firing check whose tool starts throwing says so in the thread', () => {
    const world = new PatrolWorld(patrolWith());
    world.run({ web: 'fail' });
    expect(summary(world.run({ web: 'throw' }))).toEqual(['thread_reply:r1:web:error', 'update:r1:error']);
  });
});

describe('one grouped message per run', () => {
  const three = patrolWith({
    checks: [
      { id: 'web', tool: 'http_check' },
      { id: 'disk', tool: 'disk_usage', severity: 'warn' },
      { id: 'db', tool: 'pg_ping' },
    ],
  });

  it('several checks firing in one run post one report at the worst level', () => {
    const world = new PatrolWorld(three);
    const posts = world.run({ web: 'throw', disk: 'fail', db: 'fail' });
    expect(posts).toHaveLength(1);
    expect(posts[0]).toMatchObject({ kind: 'new_report', reportId: 'r1', level: 'critical' });
    expect(summary(posts)).toEqual([
      'new_report:r1:web:error',
      'new_report:r1:disk:firing',
      'new_report:r1:db:firing',
    ]);
  });

  it('resolves of one report are one reply; its header stays at the level of what is still failing', () => {
    const world = new PatrolWorld(three);
    world.run({ web: 'fail', disk: 'fail', db: 'fail' });
    expect(world.run({ web: 'pass', disk: 'pass', db: 'fail' })).toEqual([
      expect.objectContaining({ kind: 'thread_reply', reportId: 'r1' }),
      {
        kind: 'update_report',
        reportId: 'r1',
        level: 'critical',
        resolvedCheckIds: ['web', 'disk'],
        allResolved: false,
        lines: [
          expect.objectContaining({ checkId: 'web', change: 'resolved' }),
          expect.objectContaining({ checkId: 'disk', change: 'resolved' }),
        ],
      },
    ]);
    expect(summary(world.run({ web: 'pass', disk: 'pass', db: 'pass' }))).toEqual([
      'thread_reply:r1:db:resolved',
      'update:r1:resolved:all resolved',
    ]);
  });

  it('a run that resolves one report and raises another posts one new report and one reply', () => {
    const world = new PatrolWorld(three);
    world.run({ web: 'fail', disk: 'pass', db: 'pass' });
    const posts = world.run({ web: 'pass', disk: 'fail', db: 'pass' });
    expect(summary(posts)).toEqual([
      'new_report:r2:disk:firing',
      'thread_reply:r1:web:resolved',
      'update:r1:resolved:all resolved',
    ]);
    expect(posts[0]).toMatchObject({ level: 'warn' });
    expect(world.states.disk?.reported?.reportId).toBe('r2');
  });
});

describe('flapping', () => {
  it('posts flapping once, stays quiet while it flaps, and posts its state once when stable', () => {
    const world = new PatrolWorld(patrolWith());
    expect(summary(world.run({ web: 'fail' }))).toEqual(['new_report:r1:web:firing']);
    expect(summary(world.run({ web: 'pass' }))).toEqual([
      'thread_reply:r1:web:resolved',
      'update:r1:resolved:all resolved',
    ]);
    expect(summary(world.run({ web: 'fail' }))).toEqual(['new_report:r2:web:firing']);
    // The fourth change in 10 runs: flapping, in place of the resolve.
    expect(summary(world.run({ web: 'pass' }))).toEqual([
      'thread_reply:r2:web:flapping',
      'update:r2:flapping',
    ]);
    for (const result of ['fail', 'pass', 'fail', 'pass', 'fail'] as const)
      expect(world.run({ web: result })).toEqual([]);
    // Failing steadily now: quiet until 10 runs in a row without a change.
    for (let run = 1; run < 10; run += 1) expect(world.run({ web: 'fail' })).toEqual([]);
    const stable = world.run({ web: 'fail' });
    expect(summary(stable)).toEqual(['thread_reply:r2:web:firing', 'update:r2:critical']);
    expect(stable[0]?.kind === 'thread_reply' && stable[0].lines[0]?.previous).toBe('flapping');
    expect(world.run({ web: 'fail' })).toEqual([]);
    expect(summary(world.run({ web: 'pass' }))).toEqual([
      'thread_reply:r2:web:resolved',
      'update:r2:resolved:all resolved',
    ]);
  });

  it('a check that starts flapping on a raise posts it as a new report, and resolves it when stable and ok', () => {
    const world = new PatrolWorld(patrolWith());
    // One raise, then 10 runs so that it leaves the window: the next changes start with a clear.
    for (let run = 0; run < 10; run += 1) world.run({ web: 'fail' });
    for (const result of ['pass', 'fail', 'pass'] as const) world.run({ web: result });
    const flapping = world.run({ web: 'fail' });
    expect(summary(flapping)).toEqual(['new_report:r3:web:flapping']);
    expect(flapping[0]).toMatchObject({ level: 'flapping' });
    expect(world.run({ web: 'pass' })).toEqual([]);
    for (let run = 1; run < 10; run += 1) expect(world.run({ web: 'pass' })).toEqual([]);
    expect(summary(world.run({ web: 'pass' }))).toEqual([
      'thread_reply:r3:web:resolved',
      'update:r3:resolved:all resolved',
    ]);
  });
});

describe('first run after start-up, and restarts', () => {
  it('a check with no stored state that passes posts nothing', () => {
    const world = new PatrolWorld(patrolWith());
    expect(world.run({ web: 'pass' })).toEqual([]);
    expect(world.states.web?.machine.status).toBe('ok');
  });

  it('a check stored as ok that passes posts nothing', () => {
    const world = new PatrolWorld(patrolWith());
    world.run({ web: 'pass' });
    expect(world.restarted().run({ web: 'pass' })).toEqual([]);
  });

  it('a check with no stored state that fails is reported', () => {
    const world = new PatrolWorld(patrolWith());
    const [report] = world.run({ web: 'fail' });
    expect(report?.kind === 'new_report' && report.lines[0]).toMatchObject({
      change: 'firing',
      previous: 'unknown',
    });
  });

  it('a check stored as firing that passes is a normal resolve', () => {
    const world = new PatrolWorld(patrolWith());
    world.run({ web: 'fail' });
    expect(summary(world.restarted().run({ web: 'pass' }))).toEqual([
      'thread_reply:r1:web:resolved',
      'update:r1:resolved:all resolved',
    ]);
  });

  it('a restart while firing posts nothing new, only a reminder once one is due', () => {
    const world = new PatrolWorld(patrolWith({ remind_every: '1h' }));
    world.run({ web: 'fail' }, { step: 10 * MINUTE });
    const restarted = world.restarted();
    expect(restarted.run({ web: 'fail' }, { step: HOUR })).toEqual([]);
    expect(summary(restarted.run({ web: 'fail' }))).toEqual(['thread_reply:r1:web:reminder']);
  });
});

describe('lookups by check id', () => {
  it('a check named like an Object.prototype member reads no inherited outcome, state or report', () => {
    const patrol = patrolWith({ checks: [{ id: 'constructor', tool: 'http_check' }] });
    const input = { patrol, now: 1, newReportId: 'r1', reports: {}, checkSnoozedUntil: {} };
    expect(evaluatePatrol({ ...input, states: {}, outcomes: {} })).toEqual({ states: {}, posts: [] });
    const failed = evaluatePatrol({
      ...input,
      states: {},
      outcomes: { constructor: { kind: 'fail' as const, severity: 'critical' as const, detail: 'down' } },
    });
    expect(summary(failed.posts)).toEqual(['new_report:r1:constructor:firing']);
  });
});
