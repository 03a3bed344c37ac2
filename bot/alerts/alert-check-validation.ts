// Checks that every route's `checks` name a known read-only tool the investigation role may run, with valid
// arguments, before anything runs: the same rules as a patrol's checks.
import type { PermissionSettings } from '../../agent/policy/permission-settings.js';
import { withResolvedRoles } from '../../agent/policy/resolve-roles.js';
import type { ToolPolicy } from '../../agent/tool-policy.js';
import type { PatrolProblem, PatrolToolLookup } from '../../scheduled/patrol-validation.js';
import { readOnlyCheckProblems } from '../../scheduled/read-only-check-problems.js';
import { alertPrincipal } from './alert-investigations.js';
import type { AlertSettings } from './alert-settings.js';

export function alertCheckProblems(
  alerts: AlertSettings,
  tools: PatrolToolLookup,
  policy: Pick<ToolPolicy, 'decide'>,
  permissions: PermissionSettings,
): PatrolProblem[] {
  const problems: PatrolProblem[] = [];
  const principal = withResolvedRoles(permissions, alertPrincipal('alertmanager', alerts.role));
  const conversation = { platform: 'alert', channelId: 'alerts' } as const;
  const owner = {
    of: '',
    kind: 'an alert route',
    runsAs: `alert checks run with role(s) ${principal.roles.join(', ')} (alerts.role)`,
  };
  alerts.routes.forEach((route, routeIndex) => {
    route.checks.forEach((check, index) => {
      const at = (...rest: (string | number)[]) => ['alerts', 'routes', routeIndex, 'checks', index, ...rest];
      problems.push(
        ...readOnlyCheckProblems(check, { at, owner }, { tools, policy, principal, conversation }),
      );
    });
  });
  return problems;
}
