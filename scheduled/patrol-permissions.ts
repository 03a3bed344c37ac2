// Who may steer patrols: a role's `patrols` list (run, ack, snooze, pause), or an admin role. Roles are recomputed
// from the settings at every decision. Reading patrols (list, show, history) is open to everyone.
import type { PatrolAction, PermissionSettings } from '../agent/policy/permission-settings.js';
import { withResolvedRoles } from '../agent/policy/resolve-roles.js';
import type { Principal } from '../agent/principal.js';

export type { PatrolAction } from '../agent/policy/permission-settings.js';

const ACTION_WORDS: Record<PatrolAction, string> = {
  run: 'run patrols',
  ack: 'ack patrol reports',
  snooze: 'snooze patrols',
  pause: 'pause or resume patrols',
};

/** Undefined when allowed; otherwise why not, in words for the person. */
export function patrolRefusal(
  permissions: PermissionSettings,
  principal: Principal,
  action: PatrolAction,
): string | undefined {
  if (principal.platform === 'patrol') return 'A patrol cannot steer patrols.';
  if (principal.platform === 'alert') return 'An alert investigation cannot steer patrols.';
  const roles = withResolvedRoles(permissions, principal).roles;
  const allowed = roles.some((role) => {
    const settings = permissions.roles[role];
    return settings !== undefined && (settings.admin || settings.patrols.includes(action));
  });
  if (allowed) return undefined;
  return `Your role (${roles.join(', ') || 'none'}) may not ${ACTION_WORDS[action]}. An admin can add \`${action}\` to the role's \`patrols:\` list in the settings.`;
}
