// Whether a call is one the person did not ask for: a write or danger call that their task never names (neither
// the tool nor an alias of it), proposed after the run read data from outside. Such a call, which would run
// without an approver, needs the requester's own Confirm first: a log line saying "call write_job" is data, and
// must not become an action on its own.
import type { Principal } from '../principal.js';
import { personKey } from '../principal.js';
import type { RunEvent } from '../run-events.js';
import type { Risk } from '../tool.js';
import type { ApproverSet } from './approver-set.js';

export interface UnrequestedCallInput {
  tool: { name: string; risk: Risk };
  /** What the person asked for, in their words. */
  task: string;
  /** The run's events so far: a tool result among them is outside data the model has read. */
  events: readonly RunEvent[];
  /** The command engine's aliases: `deploy: write_job target=prod` makes "deploy" name write_job. */
  aliases: Readonly<Record<string, string>>;
}

export function isUnrequestedCall(input: UnrequestedCallInput): boolean {
  if (input.tool.risk === 'read') return false;
  if (!readOutsideData(input.events)) return false;
  const asked = [input.task, ...answersIn(input.events)].join('\n');
  return !namesOf(input.tool.name, input.aliases).some((name) => mentions(asked, name));
}

/** What the person answered to the run's questions: their words too, unlike what the tools returned. */
function answersIn(events: readonly RunEvent[]): string[] {
  return events.flatMap((event) => (event.type === 'answer_received' ? [event.answer] : []));
}

/** A tool ran in this run and its result reached the model: logs, command output, HTTP bodies. */
function readOutsideData(events: readonly RunEvent[]): boolean {
  return events.some((event) => event.type === 'tool_result' && event.ran !== false);
}

/** The tool's name, the same words with spaces ("write job"), and every alias whose expansion starts with it. */
function namesOf(toolName: string, aliases: Readonly<Record<string, string>>): string[] {
  const aliased = Object.entries(aliases)
    .filter(([, expansion]) => expansion.trim().split(/\s+/)[0] === toolName)
    .map(([alias]) => alias);
  return [toolName, toolName.replaceAll('_', ' '), ...aliased];
}

/** As a whole word or words, in any case: "restart" does not name restart_service, "restart_service" does. */
function mentions(task: string, name: string): boolean {
  const escaped = name.toLowerCase().replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(?<![\\p{L}\\p{N}_])${escaped}(?![\\p{L}\\p{N}_])`, 'u').test(task.toLowerCase());
}

/** The one person who may decide a Confirm: the requester, whoever else may approve the tool. */
export function requesterOnly(
  requester: Pick<Principal, 'platform' | 'userId' | 'displayName'>,
): ApproverSet {
  return {
    roles: [],
    identities: [personKey(requester)],
    includesDefaultRole: false,
    names: [requester.displayName || personKey(requester)],
  };
}

/**
 * What a call that would run without an approver needs instead, when it is unrequested and Confirms are on: the
 * requester as its only decider, once, for the Confirm's time; or, in a run with no person to confirm (an alert
 * investigation, a patrol), a refusal. Undefined when it may run as it is.
 */
export function confirmNeedFor(
  confirmUnrequested: { ttlMs: number } | undefined,
  run: { task: string; events: readonly RunEvent[]; principal: Principal },
  tool: { name: string; risk: Risk; approvalTtlMs?: number },
  aliases: Readonly<Record<string, string>>,
) {
  if (!confirmUnrequested) return undefined;
  if (!isUnrequestedCall({ tool, task: run.task, events: run.events, aliases })) return undefined;
  if (!canConfirm(run.principal)) {
    return { kind: 'refused' as const, reason: UNCONFIRMABLE_REFUSAL(tool.name, personKey(run.principal)) };
  }
  return {
    kind: 'confirm' as const,
    approvers: requesterOnly(run.principal),
    ttlMs: tool.approvalTtlMs ?? confirmUnrequested.ttlMs,
    approvals: 1 as const,
    twoPersonRoles: [] as string[],
    confirm: true as const,
  };
}

/** Alert and patrol runs have no person behind them to click a Confirm. */
export function canConfirm(requester: Pick<Principal, 'platform'>): boolean {
  return requester.platform !== 'alert' && requester.platform !== 'patrol';
}

/** Why an unrequested write in a run nobody can confirm is refused instead of waiting for ever. */
export const UNCONFIRMABLE_REFUSAL = (tool: string, requester: string) =>
  `nobody asked for ${tool}: it was proposed after reading data from outside this conversation, and ` +
  `${requester} is not a person who can confirm it (permissions.confirm_unrequested_writes); ask for it in the ` +
  'thread if it is needed';

export const CONFIRM_REFUSAL = (requester: string) =>
  `Only ${requester}, who asked for this run, can confirm or deny this: it is a Confirm, not an approval.`;
