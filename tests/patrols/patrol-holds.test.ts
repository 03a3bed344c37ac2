// What a patrol holds back and posts later: quiet hours, reminders and acks, snoozes.
import { describe, expect, it } from 'vitest';
import { HOUR, MINUTE, PatrolWorld, patrolWith, summary } from './patrol-world.js';

const at = (iso: string) => Date.parse(iso);
const quietNights = {
  quiet_hours: { from: '22:00', to: '07:00', timezone: 'Europe/Berlin', min_severity: 'critical' },
  checks: [
    { id: 'disk', tool: 'disk_usage', severity: 'warn' },
    { id: 'web', tool: 'http_check' },
  ],
};

/** Runs every 5 minutes from `from` up to (not including) `until`, and returns each run's time and posts. */
function runUntil(
  world: PatrolWorld,
  results: Parameters<PatrolWorld['run']>[0],
  from: number,
  until: number,
) {
  const posted: { at: string; posts: string[] }[] = [];
  for (world.now = from; world.now < until; ) {
    const time = new Date(world.now).toISOString();
    const posts = summary(world.run(results));
    if (posts.length > 0) posted.push({ at: time, posts });
  }
  return posted;
}

describe('quiet hours', () => {
  it('a warn at night waits until 07:00 local; a critical goes out at once (winter: 07:00 is 06:00 UTC)', () => {
    const world = new PatrolWorld(patrolWith(quietNights));
    const night = runUntil(
      world,
      { disk: 'fail', web: 'pass' },
      at('2026-01-15T22:00:00Z'),
      at('2026-01-16T06:30:00Z'),
    );
    expect(night).toEqual([{ at: '2026-01-16T06:00:00.000Z', posts: ['new_report:r1:disk:firing'] }]);

    const critical = new PatrolWorld(patrolWith(quietNights));
    expect(summary(critical.run({ disk: 'pass', web: 'fail' }, { at: at('2026-01-16T01:00:00Z') }))).toEqual([
      'new_report:r1:web:firing',
    ]);
  });

  it.each([
    ['the spring change (07:00 CEST is 05:00 UTC)', '2026-03-28T21:00:00Z', '2026-03-29T05:00:00.000Z'],
    ['the autumn change (07:00 CET is 06:00 UTC)', '2026-10-24T21:00:00Z', '2026-10-25T06:00:00.000Z'],
  ])('across %s the held-back report goes out at 07:00 local', (_name, evening, release) => {
    const world = new PatrolWorld(patrolWith(quietNights));
    const night = runUntil(world, { disk: 'fail', web: 'pass' }, at(evening), at(release));
    expect(night).toEqual([]);
    expect(summary(world.run({ disk: 'fail', web: 'pass' }, { at: at(release) }))).toEqual([
      'new_report:r1:disk:firing',
    ]);
  });

  it('the held-back report goes out at the first run after the end, with what it was before and since when', () => {
    const world = new PatrolWorld(patrolWith(quietNights));
    const firstFailure = at('2026-01-15T23:00:00Z');
    world.run({ disk: 'fail', web: 'pass' }, { at: firstFailure });
    world.run({ disk: 'fail', web: 'pass' }, { at: at('2026-01-16T03:00:00Z') });
    const [report] = world.run({ disk: 'fail', web: 'pass' }, { at: at('2026-01-16T06:10:00Z') });
    expect(report).toMatchObject({ kind: 'new_report', level: 'warn' });
    expect(report?.kind === 'new_report' && report.lines[0]).toMatchObject({
      change: 'firing',
      since: firstFailure,
    });
  });

  it('a check that fired and resolved during quiet hours, never reported, posts nothing', () => {
    const world = new PatrolWorld(patrolWith(quietNights));
    world.run({ disk: 'fail', web: 'pass' }, { at: at('2026-01-15T23:00:00Z') });
    world.run({ disk: 'pass', web: 'pass' }, { at: at('2026-01-16T02:00:00Z') });
    expect(
      runUntil(world, { disk: 'pass', web: 'pass' }, at('2026-01-16T05:00:00Z'), at('2026-01-16T08:00:00Z')),
    ).toEqual([]);
  });

  it('a warn reported in the evening that resolves at night posts its resolve in the morning', () => {
    const world = new PatrolWorld(patrolWith(quietNights));
    expect(summary(world.run({ disk: 'fail', web: 'pass' }, { at: at('2026-01-15T20:00:00Z') }))).toEqual([
      'new_report:r1:disk:firing',
    ]);
    expect(world.run({ disk: 'pass', web: 'pass' }, { at: at('2026-01-15T23:00:00Z') })).toEqual([]);
    expect(summary(world.run({ disk: 'pass', web: 'pass' }, { at: at('2026-01-16T06:00:00Z') }))).toEqual([
      'thread_reply:r1:disk:resolved',
      'update:r1:resolved:all resolved',
    ]);
  });
});

describe('remind_every', () => {
  it('reminds once per interval in the thread, and never after an ack', () => {
    const world = new PatrolWorld(patrolWith({ remind_every: '1h' }));
    const posted = (step: number) => summary(world.run({ web: 'fail' }, { step }));
    expect(posted(30 * MINUTE)).toEqual(['new_report:r1:web:firing']);
    expect(posted(30 * MINUTE)).toEqual([]); // +30m
    expect(posted(30 * MINUTE)).toEqual(['thread_reply:r1:web:reminder']); // +1h
    expect(posted(30 * MINUTE)).toEqual([]); // +1h30
    expect(posted(30 * MINUTE)).toEqual(['thread_reply:r1:web:reminder']); // +2h
    world.ack('r1');
    for (let run = 0; run < 10; run += 1) expect(posted(HOUR)).toEqual([]);
  });

  it('no reminders without remind_every', () => {
    const world = new PatrolWorld(patrolWith());
    world.run({ web: 'fail' });
    for (let run = 0; run < 10; run += 1) expect(world.run({ web: 'fail' }, { step: 6 * HOUR })).toEqual([]);
  });
});

describe('snooze', () => {
  const two = patrolWith({
    checks: [
      { id: 'web', tool: 'http_check' },
      { id: 'db', tool: 'pg_ping' },
    ],
  });

  it('a snoozed patrol posts nothing; when the snooze ends a check still failing is reported once', () => {
    const world = new PatrolWorld(two);
    world.patrolSnoozedUntil = world.now + HOUR;
    for (let run = 0; run < 12; run += 1) expect(world.run({ web: 'fail', db: 'pass' })).toEqual([]);
    expect(world.states.web?.machine.status).toBe('firing');
    expect(summary(world.run({ web: 'fail', db: 'pass' }))).toEqual(['new_report:r1:web:firing']);
    expect(world.run({ web: 'fail', db: 'pass' })).toEqual([]);
  });

  it('a check that fired and resolved while snoozed posts no backlog', () => {
    const world = new PatrolWorld(two);
    world.patrolSnoozedUntil = world.now + HOUR;
    world.run({ web: 'fail', db: 'pass' });
    world.run({ web: 'fail', db: 'pass' });
    world.run({ web: 'pass', db: 'pass' });
    expect(runUntil(world, { web: 'pass', db: 'pass' }, world.now, world.now + 2 * HOUR)).toEqual([]);
  });

  it('a snoozed check is quiet while the others post; a reported one resolves once after the snooze', () => {
    const world = new PatrolWorld(two);
    world.run({ web: 'fail', db: 'pass' });
    world.checkSnoozedUntil = { web: world.now + HOUR };
    expect(world.run({ web: 'pass', db: 'pass' })).toEqual([]);
    expect(summary(world.run({ web: 'pass', db: 'fail' }))).toEqual(['new_report:r2:db:firing']);
    world.now += HOUR;
    expect(summary(world.run({ web: 'pass', db: 'fail' }))).toEqual([
      'thread_reply:r1:web:resolved',
      'update:r1:resolved:all resolved',
    ]);
  });
});
