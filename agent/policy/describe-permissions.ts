// What the `whoami` and `permissions` commands tell a person: their roles and what they can do here.
import type { Conversation } from '../conversation.js';
import type { Principal } from '../principal.js';
import { canApprove } from './approver-set.js';
import { decideToolCall, type ToolSet } from './decide-tool-call.js';
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
}

export function describePermissions(
  settings: PermissionSettings,
  principal: Pick<Principal, 'platform' | 'userId' | 'groups'>,
  tools: ToolSet,
  conversation: Conversation,
  channelName?: string,
): PermissionsDescription {
  const names = (tools instanceof Map ? [...tools.keys()] : Object.keys(tools)).sort();
  const place = channelName === undefined ? { conversation } : { conversation, channelName };
  const outcome = (toolName: string) =>
    decideToolCall({ settings, principal, tools, toolName, ...place }).outcome;
  return {
    roles: resolveRoles(settings, principal),
    direct: names.filter((name) => outcome(name) === 'allow'),
    needsApproval: names.filter((name) => outcome(name) === 'needs_approval'),
    mayApprove: names.filter((name) => canApprove(settings, principal, name, place)),
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
  ].join('\n');
}
