// What the `whoami` and `permissions` commands tell a person: their roles and what they can do here.
import type { Conversation } from '../conversation.js';
import type { Principal } from '../principal.js';
import { toolOffReason } from '../tool.js';
import { canApprove } from './approver-set.js';
import { decideToolCall, lookupTool, type ToolSet } from './decide-tool-call.js';
import type { PermissionSettings } from './permission-settings.js';
import { resolveRoles } from './resolve-roles.js';

export interface PermissionsDescription {
  roles: string[];
  /** Tools this person may use here without anyone's approval. */
  direct: string[];
  /** Tools this person may use here once someone approves. */
  needsApproval: string[];
  /** Tools this person may approve for others here. */
  mayApprove: string[];
  /** Tools this person could use here that are switched off now (an MCP tool held back), with why. */
  switchedOff: Array<{ name: string; reason: string }>;
}

export function describePermissions(
  settings: PermissionSettings,
  principal: Pick<Principal, 'platform' | 'userId' | 'groups'>,
  tools: ToolSet,
  conversation: Conversation,
  channelName?: string,
): PermissionsDescription {
  const all = (tools instanceof Map ? [...tools.keys()] : Object.keys(tools)).sort();
  const offReason = (name: string) => {
    const tool = lookupTool(tools, name);
    return tool === undefined ? undefined : toolOffReason(tool);
  };
  // A switched-off tool is neither usable nor approvable now; it is named apart, with why.
  const names = all.filter((name) => offReason(name) === undefined);
  const place = channelName === undefined ? { conversation } : { conversation, channelName };
  const outcome = (toolName: string) =>
    decideToolCall({ settings, principal, tools, toolName, ...place }).outcome;
  return {
    roles: resolveRoles(settings, principal),
    direct: names.filter((name) => outcome(name) === 'allow'),
    needsApproval: names.filter((name) => outcome(name) === 'needs_approval'),
    mayApprove: names.filter((name) => canApprove(settings, principal, name, place)),
    switchedOff: all
      .filter((name) => offReason(name) !== undefined && outcome(name) !== 'deny')
      .map((name) => ({ name, reason: offReason(name)! })),
  };
}

export function formatWhoami(principal: Pick<Principal, 'displayName'>, description: PermissionsDescription) {
  const label = description.roles.length === 1 ? 'role' : 'roles';
  return `${principal.displayName}: ${label} ${description.roles.join(', ')}.`;
}

export function formatPermissions(description: PermissionsDescription): string {
  const list = (names: string[]) => (names.length > 0 ? names.join(', ') : 'none');
  return [
    `Roles: ${description.roles.join(', ')}`,
    `Tools you can use here: ${list(description.direct)}`,
    `Tools that need approval here: ${list(description.needsApproval)}`,
    `Tools you may approve: ${list(description.mayApprove)}`,
    ...description.switchedOff.map((tool) => `Switched off now: ${tool.name}: ${tool.reason}`),
  ].join('\n');
}
