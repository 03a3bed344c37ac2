// What the storm must post, worked out from the notifications alone, apart from the bot's code: per group one root,
// then one change reply each time the set of firing fingerprints differs from the one shown (resolved included).
import type { StormNotification } from './alert-storm.js';

export interface GroupExpectation {
  roots: number;
  changes: number;
  duplicates: number;
}

export function expectedPosts(notifications: readonly StormNotification[]): Map<string, GroupExpectation> {
  const groups = new Map<string, GroupExpectation & { shown: string | undefined }>();
  for (const notification of notifications) {
    const group = groups.get(notification.groupKey) ?? {
      roots: 0,
      changes: 0,
      duplicates: 0,
      shown: undefined,
    };
    groups.set(notification.groupKey, group);
    const firing = [...new Set(notification.firing)].sort().join(',');
    if (group.shown === undefined) {
      if (firing) {
        group.roots += 1;
        group.shown = firing;
      }
    } else if (!firing) {
      group.changes += 1;
      group.shown = undefined;
    } else if (firing !== group.shown) {
      group.changes += 1;
      group.shown = firing;
    } else {
      group.duplicates += 1;
    }
  }
  return new Map(
    [...groups].map(([key, { roots, changes, duplicates }]) => [key, { roots, changes, duplicates }]),
  );
}

/** Posts counted in the chat for one group: its roots, its change replies, and anything else in its thread. */
export interface GroupPosts {
  roots: number;
  changes: number;
  others: number;
}

/** Lines naming every group whose posts differ from what its notifications call for; empty when all match. */
export function postProblems(
  expected: Map<string, GroupExpectation>,
  counted: Map<string, GroupPosts>,
): string[] {
  const problems: string[] = [];
  for (const [groupKey, want] of expected) {
    const got = counted.get(groupKey) ?? { roots: 0, changes: 0, others: 0 };
    if (got.roots !== want.roots || got.changes !== want.changes) {
      problems.push(
        `${groupKey}: ${got.roots} root(s) and ${got.changes} change(s) posted, ${want.roots} and ${want.changes} expected`,
      );
    }
  }
  for (const groupKey of counted.keys()) {
    if (!expected.has(groupKey)) problems.push(`${groupKey}: posted, but no notification was for it`);
  }
  return problems;
}
