// Who may use an alert group's buttons: a role's `alerts` list (ack, investigate), or an admin role. Roles are
// recomputed from the settings at every click.
import type { AlertAction, PermissionSettings } from '../../agent/policy/permission-settings.js';
import { withResolvedRoles } from '../../agent/policy/resolve-roles.js';
import type { Principal } from '../../agent/principal.js';

const ACTION_WORDS: Record<AlertAction, string> = {
  ack: 'ack alert groups',
  investigate: 'start alert investigations',
};

/** Undefined when allowed; otherwise why not, in words for the person. */
export function alertRefusal(
  permissions: PermissionSettings,
  principal: Principal,
  action: AlertAction,
): string | undefined {
  const notAPerson = personRefusal(principal);
  if (notAPerson) return notAPerson;
  const roles = withResolvedRoles(permissions, principal).roles;
  const allowed = roles.some((role) => {
    const settings = permissions.roles[role];
    return settings !== undefined && (settings.admin || settings.alerts.includes(action));
  });
  if (allowed) return undefined;
  return `Your role (${roles.join(', ') || 'none'}) may not ${ACTION_WORDS[action]}. An admin can add \`${action}\` to the role's \`alerts:\` list in the settings.`;
}

/** Undefined for a person; a patrol or an alert principal never clicks. */
export function personRefusal(principal: Principal): string | undefined {
  if (principal.platform === 'patrol' || principal.platform === 'alert') {
    return 'Only a person can use the buttons of an alert group.';
  }
  return undefined;
}
