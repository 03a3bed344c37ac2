// Plays the person on call: answers the run's questions through the simulated user (simulated-user.ts), and clicks
// its approvals as the scenario says (or lets an approval expire, by moving the scenario's clock past its lifetime).
import type { Kernel } from '../agent/kernel.js';
import type { Run } from '../agent/run.js';
import type { Settings } from '../bot/config/settings-schema.js';
import type { OffsetClock } from './offset-clock.js';
import { principalFor } from './people.js';
import type { Scenario } from './schema.js';
import type { SimulatedUser } from './simulated-user.js';

/** What the person did with a waiting run: acted (the run moved on), or left it waiting and why. */
export type PersonMove = { acted: true } | { acted: false; note: string };

export async function respondTo(
  run: Run,
  scenario: Scenario,
  kernel: Kernel,
  settings: Settings,
  clock: OffsetClock,
  user: SimulatedUser,
): Promise<PersonMove> {
  if (run.status === 'waiting_for_user') {
    const reply = await user.answer({ question: run.question.question, choices: run.question.choices });
    if ('note' in reply) return { acted: false, note: reply.note };
    await kernel.answer(run.id, reply.answer, run.principal);
    return { acted: true };
  }
  if (run.status === 'waiting_for_approval') {
    const tool = run.approval.call.name;
    const rule = scenario.person.approvals.find((candidate) => candidate.tool === tool);
    if (!rule) return { acted: false, note: `no person.approvals rule for ${tool}` };
    if (rule.decision === 'let_expire') {
      clock.advance(settings.permissions.approval_ttl + 1000);
      const expired = await kernel.expire(run.id);
      return expired ? { acted: true } : { acted: false, note: 'the approval did not expire' };
    }
    const approver = principalFor(rule.identity, scenario.platform, settings);
    const click = await kernel.decideApproval(run.approval.approvalId, approver, rule.decision, rule.reason);
    if (!click.settled)
      return { acted: false, note: `${rule.identity}'s ${rule.decision} changed nothing: ${click.message}` };
    return { acted: true };
  }
  return { acted: false, note: `the run is ${run.status}` };
}
