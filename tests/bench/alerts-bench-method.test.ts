// The alerts bench's check of posts per group: what the storm's notifications call for, worked out apart from the
// bot (1 root, then one reply per change of the firing set, resends nothing), and the groups whose posts differ.
// No timings and no processes: the bench itself runs with `npm run bench -- alerts`.
import { describe, expect, it } from 'vitest';
import { buildFromFixtures, type StormNotification } from '../../bench/alerts/alert-storm.js';
import { expectedPosts, postProblems } from '../../bench/alerts/storm-expectations.js';

const notification = (groupKey: string, firing: string[]): StormNotification => ({
  atMs: 0,
  groupKey,
  body: '{}',
  firing,
});

describe('alerts bench: posts per group', () => {
  it('builds the fixtures storm in version 4 with 1,000 alerts in 100 groups, each a root and two changes', () => {
    const storm = buildFromFixtures({ groups: 100, alertsPerGroup: 10 });
    expect(storm.notifications).toHaveLength(400);
    const first = JSON.parse(storm.notifications[0]!.body);
    expect(first).toMatchObject({ version: '4', receiver: 'opsbot', status: 'firing', truncatedAlerts: 0 });
    const expected = expectedPosts(storm.notifications);
    expect(expected.size).toBe(100);
    for (const group of expected.values()) expect(group).toEqual({ roots: 1, changes: 2, duplicates: 1 });
  });

  it('counts a change for each new firing set, none for a resend, a reordering or nothing open, and a new root after a resolve', () => {
    const expected = expectedPosts([
      notification('g', ['a']),
      notification('g', ['a']),
      notification('g', ['a', 'b']),
      notification('g', ['b', 'a']),
      notification('g', ['b']),
      notification('g', []),
      notification('g', []),
      notification('g', ['c']),
      notification('quiet', []),
    ]);
    expect(expected.get('g')).toEqual({ roots: 2, changes: 3, duplicates: 2 });
    expect(expected.get('quiet')).toEqual({ roots: 0, changes: 0, duplicates: 0 });
  });

  it('names a group posted twice, a change missing, and a group no notification was for', () => {
    const expected = expectedPosts([notification('g1', ['a']), notification('g1', ['a', 'b'])]);
    expect(postProblems(expected, new Map([['g1', { roots: 1, changes: 1, others: 3 }]]))).toEqual([]);
    const problems = postProblems(
      expected,
      new Map([
        ['g1', { roots: 2, changes: 0, others: 0 }],
        ['g9', { roots: 1, changes: 0, others: 0 }],
      ]),
    );
    expect(problems).toEqual([
      'g1: 2 root(s) and 0 change(s) posted, 1 and 1 expected',
      'g9: posted, but no notification was for it',
    ]);
  });
});
