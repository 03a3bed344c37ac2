// What must hold after every model-test sequence, once everything has settled: each check returns the
// violations it found, in words that name the run, the call or the thread.
import type { OutboundMessage } from '../../../agent/chat-port.js';
import { type Approval, approvalOfRun, runIdOfApproval } from '../../../agent/policy/approval-record.js';
import { AuditLog } from '../../../agent/policy/audit-log.js';
import { type Principal, personKey, principalKey } from '../../../agent/principal.js';
import { holdsThread, isTerminal, type Run, type RunStatus } from '../../../agent/run.js';
import { loadRunRecord } from '../../../agent/run-migrations.js';
import { stableJson } from '../../../agent/stable-json.js';
import { storeKeys } from '../../../agent/store/store-keys.js';
import { APPROVAL_TTL_MS, LEASE_MS, type ModelWorld, THREADS } from './model-world.js';
import { checkCancelsCarriedOut, storedRuns } from './run-commands.js';

/**
 * Lets every run go as far as it can: leases lapse, recovery runs, and every wait expires, round after round,
 * until every run has ended or a whole round changes nothing (then the checks name the runs left).
 */
export async function settle(world: ModelWorld): Promise<void> {
  world.story.push('settle');
  for (const replica of world.replicas) replica.life.pause();
  world.executions.actionTrap = undefined;
  let before = '';
  for (let round = 0; round < 50; round++) {
    await world.quiesce();
    await world.advance(LEASE_MS + 1);
    await world.replicas[0]!.kernel.recover();
    await world.quiesce();
    await checkCancelsCarriedOut(world);
    const runs = await storedRuns(world);
    if (runs.every((run) => isTerminal(run.status))) return;
    const now = runs.map((run) => `${run.id}:${run.status}:${run.events.length}`).join(' ');
    if (now === before) return;
    before = now;
    await world.advance(APPROVAL_TTL_MS + 1);
    await world.replicas[0]!.sweep.sweep();
    await world.quiesce();
  }
}

export async function violations(world: ModelWorld): Promise<string[]> {
  const runs = await storedRuns(world);
  const approvals = await knownApprovals(world);
  return [
    ...world.problems,
    ...runs.filter((run) => !isTerminal(run.status)).map((run) => `${run.id} is still ${run.status}`),
    ...executedTwice(world),
    ...(await unapprovedActions(world, approvals)),
    ...approvals.flatMap((approval) => approvedByWhom(approval)),
    ...runs.flatMap((run) => endedOnce(run)),
    ...openMessages(world, runs, approvals),
    ...(await lockedThreads(world, runs)),
    ...runs.flatMap((run) => postedOnce(world, run)),
  ];
}

/** (1) No call ran twice: a write or danger call never, a read only across a crash. */
function executedTwice(world: ModelWorld): string[] {
  const seen = new Map<string, number>();
  const found: string[] = [];
  for (const execution of world.executions.executions) {
    const key =
      execution.tool === 'read_logs'
        ? `${execution.callId} in crash epoch ${execution.epoch}`
        : `${execution.tool} ${execution.callId}`;
    const count = (seen.get(key) ?? 0) + 1;
    seen.set(key, count);
    if (count === 2) found.push(`${key} of ${execution.runId} executed twice`);
  }
  return found;
}

/** (2) Every write and danger execution matches an approved approval with the same run, tool and arguments. */
async function unapprovedActions(world: ModelWorld, approvals: Approval[]): Promise<string[]> {
  const found: string[] = [];
  for (const execution of world.executions.executions) {
    if (execution.tool === 'read_logs') continue;
    const matching = approvals.filter(
      (approval) =>
        approval.status === 'approved' &&
        approval.runId === execution.runId &&
        approval.tool === execution.tool &&
        stableJson(approval.args) === stableJson(execution.args),
    );
    const what = `${execution.tool} ${stableJson(execution.args)} in ${execution.runId}`;
    // That it ran once is invariant (1): the run's lease and its `executing` save are the guarantee.
    if (matching.length === 0) found.push(`${what} executed without an approved approval`);
  }
  return found;
}

/** Who may approve each tool in the model's settings: admins (Bob, Dave) anything, operators (Alice) write_*. */
const APPROVERS: Record<string, readonly string[]> = {
  restart_service: ['local:bob', 'local:dave'],
  write_note: ['local:alice', 'local:bob', 'local:dave'],
};

/** (2) An approval was approved by someone who may approve that tool, and never by the person who asked. */
function approvedByWhom(approval: Approval): string[] {
  if (approval.status !== 'approved') return [];
  const by = approval.decidedBy?.key;
  const requester = principalKey(approval.requester);
  // The same person on another surface (cli:bob for playground:bob) is still the requester.
  const [platform = '', ...rest] = (by ?? '').split(':');
  const byPerson = personKey({ platform: platform as Principal['platform'], userId: rest.join(':') });
  if (
    by !== undefined &&
    byPerson !== personKey(approval.requester) &&
    APPROVERS[approval.tool]?.includes(by)
  )
    return [];
  return [`approval ${approval.id} of ${approval.tool} for ${requester} was approved by ${by ?? 'nobody'}`];
}

const END_EVENTS: ReadonlySet<string> = new Set([
  'finished',
  'failed',
  'cancelled',
  'expired',
  'outcome_unknown',
]);

/** (3) A run ends once: one end event, the one its status names. */
function endedOnce(run: Run): string[] {
  const ends = run.events.filter((event) => END_EVENTS.has(event.type)).map((event) => event.type);
  if (!isTerminal(run.status))
    return ends.length === 0 ? [] : [`${run.id} is ${run.status} after ${ends.join(', ')}`];
  if (ends.length === 1 && ends[0] === run.status) return [];
  return [`${run.id} is ${run.status} with end events [${ends.join(', ')}]`];
}

/** What a run's status line says when it has ended, by status. */
const END_STATUS_TEXT: Record<string, (text: string) => boolean> = {
  finished: (text) => text === 'Done' || text === 'Done, with a problem',
  failed: (text) => text === 'Failed',
  cancelled: (text) => text.startsWith('Cancelled by '),
  expired: (text) => text === 'Expired',
  outcome_unknown: (text) => text === 'Outcome unknown',
};

/**
 * (3) An ended run leaves no live question, card or pending approval behind, and its status line never shows
 * two different ends (a "Done" under "Cancelled by Alice").
 */
function openMessages(world: ModelWorld, runs: Run[], approvals: Approval[]): string[] {
  const statusOf = new Map<string, RunStatus>(runs.map((run) => [run.id, run.status]));
  const requested = new Set(
    runs.flatMap((run) =>
      run.events.flatMap((event) => (event.type === 'approval_requested' ? [event.approvalId] : [])),
    ),
  );
  const ended = (runId: string) => isTerminal(statusOf.get(runId) ?? 'queued');
  const shown = (runId: string) => !world.caughtByCrash.has(runId);
  /** An approval requested just before a crash, which the run never saved: re-requested after recovery. */
  const orphan = (runId: string, approvalId: string) =>
    world.caughtByCrash.has(runId) && !requested.has(approvalId);
  const found: string[] = [];
  const endTexts = new Map<string, Set<string>>();
  for (const post of world.chat.posts) {
    const last: OutboundMessage = post.updates.at(-1) ?? post.message;
    if (last.kind === 'question' && ended(last.runId) && shown(last.runId) && !last.answered)
      found.push(
        `${last.runId} is ${statusOf.get(last.runId)} and its question "${last.question}" is still open`,
      );
    if (
      last.kind === 'approval' &&
      ended(last.runId) &&
      !orphan(last.runId, last.approvalId) &&
      !last.decision
    )
      found.push(
        `${last.runId} is ${statusOf.get(last.runId)} and its card for ${last.approvalId} is still live`,
      );
    for (const version of [post.message, ...post.updates]) {
      if (version.kind !== 'status' || !shown(version.runId)) continue;
      if (!Object.values(END_STATUS_TEXT).some((matches) => matches(version.text))) continue;
      endTexts.set(version.runId, (endTexts.get(version.runId) ?? new Set()).add(version.text));
    }
  }
  for (const [runId, texts] of endTexts) {
    const status = statusOf.get(runId);
    const fits = status ? END_STATUS_TEXT[status] : undefined;
    if (texts.size > 1 || !fits || ![...texts].every(fits))
      found.push(`${runId} is ${status ?? 'missing'} and its status line showed ${[...texts].join(' / ')}`);
  }
  for (const approval of approvals) {
    if (approval.status === 'pending' && ended(approval.runId) && !orphan(approval.runId, approval.id))
      found.push(
        `${approval.runId} is ${statusOf.get(approval.runId)} and approval ${approval.id} is still pending`,
      );
  }
  return found;
}

/**
 * (5) Posted once (issue 15), crashes or not: a run has at most one status line, and a finished run's answer is
 * in its thread exactly once. The sequences' crashes fall at store calls, never between a post and its record.
 */
function postedOnce(world: ModelWorld, run: Run): string[] {
  const found: string[] = [];
  // A message is the run's as it shows now: a run stepped again may turn its earlier end ("Cancelled by
  // Alice.", saved by nobody) into its answer.
  const posts = world.chat.posts
    .map((post) => post.updates.at(-1) ?? post.message)
    .filter((shown) => 'runId' in shown && shown.runId === run.id);
  const lines = posts.filter((shown) => shown.kind === 'status').length;
  if (lines > 1) found.push(`${run.id} posted ${lines} status lines`);
  if (run.status !== 'finished') return found;
  const answers = posts.filter((shown) => shown.kind === 'result' && shown.text === run.answer).length;
  if (answers !== 1) {
    const shown = posts.map((message) => stableJson(message).slice(0, 120)).join(' | ');
    found.push(`${run.id} finished, and its answer is in its thread ${answers} times: ${shown}`);
  }
  return found;
}

/** (4) A thread lock is held only by a run that needs the thread: none once its runs have ended. */
async function lockedThreads(world: ModelWorld, runs: Run[]): Promise<string[]> {
  const found: string[] = [];
  for (let thread = 0; thread < THREADS; thread++) {
    const holder = await world.observer.holder(storeKeys.threadLock(world.conversation(thread)));
    if (holder === undefined) continue;
    const run = runs.find((candidate) => candidate.id === holder);
    if (!run || !holdsThread(run.status))
      found.push(`thread ${thread} is locked by ${holder}, which is ${run?.status ?? 'not stored'}`);
  }
  return found;
}

/** Every approval ever requested, from the audit log and the cards, as its run tells it. */
async function knownApprovals(world: ModelWorld): Promise<Approval[]> {
  const audit = await new AuditLog(world.observer, { clock: world.clock }).list();
  const ids = new Set<string>([
    ...audit.flatMap((entry) => (entry.approvalId ? [entry.approvalId] : [])),
    ...world.chat.ofKind('approval').map((card) => card.approvalId),
  ]);
  const approvals: Approval[] = [];
  for (const id of ids) {
    const runId = runIdOfApproval(id);
    const raw = runId ? await world.observer.get(storeKeys.run(runId)) : undefined;
    const approval = raw === undefined ? undefined : approvalOfRun(loadRunRecord(raw, `run ${runId}`), id);
    if (approval) approvals.push(approval);
  }
  return approvals;
}
