// The one place that decides every tool call: allow, deny with a reason, or needs approval by whom.
import type { Conversation } from '../conversation.js';
import type { Principal } from '../principal.js';
import { type Risk, RiskSchema, type Tool } from '../tool.js';
import {
  type ApproverSet,
  approverSet,
  describeRoles,
  someoneCanApprove,
  twoCouldApprove,
} from './approver-set.js';
import {
  channelLabel,
  channelRulesFor,
  isThisChannel,
  OTHER_CHANNELS,
  type Place,
  roleAppliesIn,
} from './channel-scope.js';
import type { PermissionSettings, RoleSettings } from './permission-settings.js';
import { resolveRoles } from './resolve-roles.js';
import { approvalsNeeded, twoPersonRoles, twoPersonSource } from './role-two-person.js';
import { matchesAnyToolPattern } from './tool-globs.js';

export type ToolSet = Readonly<Record<string, Tool>> | ReadonlyMap<string, Tool>;

export type DenyCode = 'unknown_tool' | 'not_permitted' | 'channel' | 'no_approvers';

export type Decision =
  | { outcome: 'allow' }
  | { outcome: 'deny'; reason: string; code: DenyCode }
  | {
      outcome: 'needs_approval';
      approvers: ApproverSet;
      ttlMs: number;
      reason: string;
      /** Distinct approvers the call needs: 2 when the tool's `approvals` or a role's `two_person` says so. */
      approvals: 1 | 2;
      /** The requester's roles whose `two_person` names the tool here; such a call is never granted. */
      twoPersonRoles: string[];
    };

export interface DecideToolCallInput {
  /** The `permissions` section of the settings. */
  settings: PermissionSettings;
  principal: Pick<Principal, 'platform' | 'userId' | 'groups'>;
  conversation: Conversation;
  /** As the model or the person wrote it: untrusted, may be `__proto__` or anything else. */
  toolName: string;
  tools: ToolSet;
  channelName?: string;
}

/** Own properties only: the model picks the name, and `constructor` or `__proto__` must not find anything. */
export function lookupTool(tools: ToolSet, toolName: unknown): Tool | undefined {
  if (typeof toolName !== 'string') return undefined;
  const tool = isMap(tools)
    ? tools.get(toolName)
    : Object.hasOwn(tools, toolName)
      ? tools[toolName]
      : undefined;
  if (typeof tool !== 'object' || tool === null || !RiskSchema.safeParse(tool.risk).success) return undefined;
  return tool;
}

function isMap(tools: ToolSet): tools is ReadonlyMap<string, Tool> {
  return tools instanceof Map;
}

function printableName(toolName: unknown): string {
  const text = JSON.stringify(String(toolName));
  return text.length > 80 ? `${text.slice(0, 77)}…"` : text;
}

const grants = (role: RoleSettings, tool: Tool) =>
  matchesAnyToolPattern(role.tools, tool.name) && role.risks.includes(tool.risk);

function definedRoles(settings: PermissionSettings, names: readonly string[]): Array<[string, RoleSettings]> {
  return names
    .filter((name) => Object.hasOwn(settings.roles, name))
    .map((name) => [name, settings.roles[name]!]);
}

function rolesLabel(roles: readonly string[]): string {
  return roles.length === 1 ? `Your role (${roles[0]})` : `Your roles (${roles.join(', ')})`;
}

/** Why the principal's own roles do not cover this tool here, as a deny decision. */
function denyByRole(settings: PermissionSettings, roles: string[], tool: Tool, place: Place): Decision {
  const mine = definedRoles(settings, roles);
  const elsewhere = mine.filter(([, role]) => grants(role, tool) && !roleAppliesIn(role, place));
  if (elsewhere.length > 0) {
    const channels = [...new Set(elsewhere.flatMap(([, role]) => role.channels ?? []))].join(', ');
    return {
      outcome: 'deny',
      code: 'channel',
      reason: `${rolesLabel(roles)} may use ${tool.name} only in ${channels}, not in ${channelLabel(place)}.`,
    };
  }
  const others = Object.entries(settings.roles)
    .filter(([name, role]) => !roles.includes(name) && grants(role, tool) && roleAppliesIn(role, place))
    .map(([name]) => name);
  const hint = others.length > 0 ? `ask someone with ${describeRoles(others)}` : 'no role may use it here';
  return {
    outcome: 'deny',
    code: 'not_permitted',
    reason: `${rolesLabel(roles)} may not use ${tool.name}; ${hint}.`,
  };
}

/** Channel rules only narrow: any rule naming this channel can take a tool away, none can add one. */
function denyByChannel(settings: PermissionSettings, tool: Tool, place: Place): Decision | undefined {
  for (const [, rule] of channelRulesFor(settings, place)) {
    if (rule.tools !== undefined && !matchesAnyToolPattern(rule.tools, tool.name)) {
      return {
        outcome: 'deny',
        code: 'channel',
        reason: `${tool.name} is not allowed in ${channelLabel(place)}.`,
      };
    }
    if (!rule.risks.includes(tool.risk)) {
      const where = channelsAllowing(settings, tool, place);
      const hint = where.length > 0 ? ` They are allowed in ${where.join(', ')}.` : '';
      return {
        outcome: 'deny',
        code: 'channel',
        reason: `${tool.name} is a ${tool.risk} tool, and ${tool.risk} tools are not allowed in ${channelLabel(place)}.${hint}`,
      };
    }
  }
  return undefined;
}

/**
 * Channels by #name, where people on any platform can go; a channel id only when it is on the CLI and the person
 * is too (`terminal`): a Slack user told "allowed in terminal" has nowhere to go.
 */
function channelsAllowing(settings: PermissionSettings, tool: Tool, place: Place): string[] {
  const reachable = (reference: string) =>
    reference.startsWith('#') || (reference === 'terminal' && place.conversation.platform === 'cli');
  return Object.entries(settings.channels)
    .filter(([reference]) => reference !== OTHER_CHANNELS && !isThisChannel(reference, place))
    .filter(([reference]) => reachable(reference))
    .filter(([, rule]) => rule.risks.includes(tool.risk))
    .filter(([, rule]) => rule.tools === undefined || matchesAnyToolPattern(rule.tools, tool.name))
    .map(([reference]) => reference);
}

function runsWithoutApproval(risk: Risk, toolName: string, granting: ReadonlyArray<[string, RoleSettings]>) {
  if (risk === 'read') return true;
  if (risk === 'write') return granting.some(([, role]) => role.write_without_approval);
  return granting.some(([, role]) => matchesAnyToolPattern(role.danger_without_approval, toolName));
}

export function decideToolCall(input: DecideToolCallInput): Decision {
  const { settings, principal, conversation, channelName } = input;
  const place: Place = channelName === undefined ? { conversation } : { conversation, channelName };
  const tool = lookupTool(input.tools, input.toolName);
  if (!tool) {
    return {
      outcome: 'deny',
      code: 'unknown_tool',
      reason: `There is no tool named ${printableName(input.toolName)}; use only the tools you were offered.`,
    };
  }
  const roles = resolveRoles(settings, principal);
  // Roles only grant what their `channels` allow here, and only within their `risks`.
  const granting = definedRoles(settings, roles).filter(
    ([, role]) => roleAppliesIn(role, place) && grants(role, tool),
  );
  if (granting.length === 0) return denyByRole(settings, roles, tool, place);
  const narrowed = denyByChannel(settings, tool, place);
  if (narrowed) return narrowed;
  if (runsWithoutApproval(tool.risk, tool.name, granting)) return { outcome: 'allow' };

  const approvers = approverSet(settings, tool.name, place);
  if (!someoneCanApprove(settings, approvers, principal)) {
    const why =
      approvers.roles.length === 0
        ? 'no role may approve it'
        : `nobody${settings.allow_self_approval ? '' : ' else'} holds ${describeRoles(approvers.roles)}`;
    return {
      outcome: 'deny',
      code: 'no_approvers',
      reason: `${tool.name} needs approval, but nobody may approve it (${why}), so it cannot run.`,
    };
  }
  const twoPerson = twoPersonRoles(settings, principal, tool.name, place);
  const approvals = approvalsNeeded(tool, twoPerson);
  if (approvals === 2) {
    const tooFew = denyTooFewForTwo(tool.name, twoPerson, approvers, principal);
    if (tooFew) return tooFew;
  }
  const by =
    approvals === 2
      ? `two people with ${describeRoles(approvers.roles)} (${twoPersonSource(twoPerson)})`
      : `someone with ${describeRoles(approvers.roles)}`;
  return {
    outcome: 'needs_approval',
    approvers,
    ttlMs: tool.approvalTtlMs ?? settings.approval_ttl,
    reason: `${tool.name} is a ${tool.risk} tool, so it needs approval by ${by}.`,
    approvals,
    twoPersonRoles: twoPerson,
  };
}

/**
 * A call that needs two approvers, refused at once when fewer than two people besides the requester could give
 * them: asking would leave the run waiting until the approval expires, for nothing.
 */
function denyTooFewForTwo(
  toolName: string,
  twoPerson: readonly string[],
  approvers: ApproverSet,
  principal: Pick<Principal, 'platform' | 'userId'>,
): Decision | undefined {
  const { enough, others } = twoCouldApprove(approvers, principal);
  if (enough) return undefined;
  const who =
    others.length === 0
      ? 'nobody besides you may approve it'
      : `only ${others[0]} may approve it besides you`;
  return {
    outcome: 'deny',
    code: 'no_approvers',
    reason: `${toolName} needs two approvers (${twoPersonSource(twoPerson)}), but ${who}, so it cannot run.`,
  };
}

function toolList(tools: ToolSet): Tool[] {
  return isMap(tools) ? [...tools.values()] : Object.values(tools);
}

/** The tools the model may be offered: those this principal may use here, directly or with approval. */
export function visibleTools(input: Omit<DecideToolCallInput, 'toolName'>): Tool[] {
  return toolList(input.tools).filter((tool) => {
    if (lookupTool(input.tools, tool.name) !== tool) return false;
    return decideToolCall({ ...input, toolName: tool.name }).outcome !== 'deny';
  });
}
