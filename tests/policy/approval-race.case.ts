// The double-click race, as a suite any Store backend runs: many clicks on two replicas, exactly one decision.
import { expect, it } from 'vitest';
import type { Clock } from '../../agent/clock.js';
import { ApprovalBook } from '../../agent/policy/approvals.js';
import type { Store } from '../../agent/store/store.js';
import { people, restartRequest, settings } from './policy-fixtures.js';

export interface TwoReplicas {
  /** Two Store instances over the same backend, as two processes would have. */
  first: Store;
  second: Store;
  clock?: Clock;
}

export function approvalRaceCases(replicas: () => TwoReplicas) {
  const books = () => {
    const { first, second, clock } = replicas();
    const options = clock ? { clock } : {};
    return [new ApprovalBook(first, options), new ApprovalBook(second, options)] as const;
  };

  const requestOn = (book: ApprovalBook) => book.request(restartRequest());

  it('two approve clicks on two replicas make exactly one decision, and the loser names the winner', async () => {
    const [one, two] = books();
    const approval = await requestOn(one);
    const results = await Promise.all([
      one.decide({ approvalId: approval.id, decider: people.admin, decision: 'approve', settings }),
      two.decide({ approvalId: approval.id, decider: people.operator2, decision: 'approve', settings }),
    ]);
    const decided = results.filter((result) => result.kind === 'decided');
    const lost = results.filter((result) => result.kind === 'already_decided');
    expect(decided).toHaveLength(1);
    expect(lost).toHaveLength(1);
    expect(lost[0]?.by.key).toBe(decided[0]?.by.key);
    expect(lost[0]?.decision).toBe('approve');
    expect((await two.get(approval.id))?.status).toBe('approved');
  });

  it('six clicks, approve and deny mixed, across both replicas: one transition that everyone agrees on', async () => {
    const [one, two] = books();
    const approval = await requestOn(two);
    const clickers = [people.admin, people.operator2, people.groupOperator];
    const results = await Promise.all(
      clickers.flatMap((decider, index) => [
        one.decide({ approvalId: approval.id, decider, decision: index % 2 ? 'deny' : 'approve', settings }),
        two.decide({ approvalId: approval.id, decider, decision: index % 2 ? 'deny' : 'approve', settings }),
      ]),
    );
    const decided = results.filter((result) => result.kind === 'decided');
    expect(decided).toHaveLength(1);
    const winner = decided[0]!;
    for (const result of results) {
      if (result.kind === 'decided') continue;
      expect(result).toMatchObject({
        kind: 'already_decided',
        decision: winner.decision,
        by: { key: winner.by.key },
      });
    }
    const stored = await one.get(approval.id);
    expect(stored?.status).toBe(winner.decision === 'approve' ? 'approved' : 'denied');
    if (winner.decision === 'approve') {
      const executions = await Promise.all([one.claimExecution(stored!), two.claimExecution(stored!)]);
      expect(executions.filter(Boolean)).toHaveLength(1);
    }
  });
}
