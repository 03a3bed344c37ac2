// One patrol run as one kernel run: the checks as planned read-only calls made at once by the checks engine,
// through the same policy gate, executor, trace and audit as every run. Returns each check's outcome.
import type { Kernel } from '../agent/kernel.js';
import type { PermissionSettings } from '../agent/policy/permission-settings.js';
import { withResolvedRoles } from '../agent/policy/resolve-roles.js';
import type { PlannedCall, Run } from '../agent/run.js';
import { type CheckOutcome, checkOutcome } from './check-outcome.js';
import { patrolConversation, patrolPrincipal } from './patrol-identity.js';
import type { Patrol } from './patrol-settings.js';
import { withSelfUrl } from './self-address.js';

export interface PatrolRunResult {
  run: Run;
  /** By check id; empty when the run ended without making its checks (cancelled, failed). */
  outcomes: Record<string, CheckOutcome>;
  /** The model's summary, when the patrol has a task and a model is configured. */
  summary?: string;
  /** Why there are no outcomes, in words. */
  problem?: string;
}

export interface PatrolRunnerOptions {
  kernel: Pick<Kernel, 'start' | 'settled'>;
  permissions: PermissionSettings;
  /** How long the run record is kept (limits.patrol_history). */
  keepForMs: number;
  /** This bot's own address, for checks that name it as `{{opsbot.url}}`. */
  selfUrl(): string;
}

const callId = (checkId: string) => `chk_${checkId}`;

export async function runPatrolChecks(
  options: PatrolRunnerOptions,
  name: string,
  patrol: Patrol,
): Promise<PatrolRunResult> {
  const selfUrl = options.selfUrl();
  const calls: PlannedCall[] = patrol.checks.map((check) => {
    const args = withSelfUrl(check.args, selfUrl) as Record<string, unknown>;
    return { id: callId(check.id), name: check.tool, args, rawArguments: JSON.stringify(args) };
  });
  const runId = await options.kernel.start({
    text: `patrol ${name}`,
    principal: withResolvedRoles(options.permissions, patrolPrincipal(name)),
    conversation: patrolConversation(name),
    engine: 'checks',
    plan: { calls, ...(patrol.task ? { summaryTask: patrol.task } : {}) },
    keepForMs: options.keepForMs,
  });
  const run = await options.kernel.settled(runId);
  if (run.status !== 'finished') {
    return { run, outcomes: {}, problem: `the patrol run ended ${run.status.replaceAll('_', ' ')}` };
  }
  const outcomes: Record<string, CheckOutcome> = {};
  for (const check of patrol.checks) {
    const result = run.events.findLast((e) => e.type === 'tool_result' && e.callId === callId(check.id));
    if (result?.type !== 'tool_result') continue;
    // A result with an error class never got an answer from the tool: it threw or was refused. A call that timed
    // out has none: it is a result that did not pass, so a hung service fails its check at the check's severity.
    outcomes[check.id] = checkOutcome(
      check,
      result.errorClass ? { thrown: result.summary } : { ok: result.ok, summary: result.summary },
    );
  }
  const summary = summaryOf(run.answer, patrol.task);
  return { run, outcomes, ...(summary ? { summary } : {}) };
}

/** The checks engine puts the model's summary after its one-line headline. */
function summaryOf(answer: string, task: string | undefined): string | undefined {
  if (!task) return undefined;
  const at = answer.indexOf('\n\n');
  return at === -1 ? undefined : answer.slice(at + 2).trim() || undefined;
}
