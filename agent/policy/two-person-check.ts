// The start-up check of the two-person rule: a tool that needs two approvers, with fewer than two people who may
// give them, would have every call refused. Said at start-up, with what to add to opsbot.yaml.
import type { Tool } from '../tool.js';
import { approverSet, describeRoles, twoCouldApprove } from './approver-set.js';
import type { PermissionSettings } from './permission-settings.js';
import { twoPersonSource } from './role-two-person.js';
import { matchesAnyToolPattern } from './tool-globs.js';

/**
 * One warning per tool that needs two approvers (its `approvals: 2`, or any role's `two_person`) when fewer than
 * two identities may approve it anywhere. A group identity or the default role counts as enough. A read tool
 * never needs an approval, so it is never named.
 */
export function twoPersonWarnings(settings: PermissionSettings, tools: readonly Tool[]): string[] {
  return tools.flatMap((tool) => {
    if (tool.risk === 'read') return [];
    const roles = Object.entries(settings.roles)
      .filter(([, role]) => matchesAnyToolPattern(role.two_person, tool.name))
      .map(([name]) => name);
    if (tool.approvals !== 2 && roles.length === 0) return [];
    const approvers = approverSet(settings, tool.name);
    const { enough, others } = twoCouldApprove(approvers);
    if (enough) return [];
    return [
      `${tool.name} needs two approvers (${sourceOf(tool, roles)}), but ${whoApproves(approvers.roles, others)}, ` +
        `so every call of it that needs an approval will be refused. ${remedy(tool.name, approvers.roles, others.length)}`,
    ];
  });
}

function sourceOf(tool: Tool, roles: readonly string[]): string {
  if (roles.length === 0) return twoPersonSource([]);
  return tool.approvals === 2
    ? `${twoPersonSource([])}, and ${twoPersonSource(roles)}`
    : twoPersonSource(roles);
}

function whoApproves(roles: readonly string[], people: readonly string[]): string {
  if (roles.length === 0) return 'no role may approve it';
  if (people.length === 0) return `nobody holds ${describeRoles(roles)}, which may approve it`;
  return `only ${people[0]} may approve it (${describeRoles(roles)})`;
}

function remedy(toolName: string, roles: readonly string[], people: number): string {
  const [role] = roles;
  if (role === undefined) {
    return `In opsbot.yaml, name ${toolName} under \`approve\` of a role that two people or a group hold.`;
  }
  const whom = people === 0 ? 'two people, or a group,' : 'a second person, or a group,';
  return (
    `In opsbot.yaml, give ${whom} ${describeRoles(roles)} under permissions.identities ` +
    `(for example 'slack_group:S…': { roles: [${role}] }), or name ${toolName} under \`approve\` of a role ` +
    'more people hold.'
  );
}
