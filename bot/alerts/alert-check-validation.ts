// Checks that every route's `checks` name a known read-only tool the investigation role may run, with valid
// arguments, before anything runs: the same rules as a patrol's checks.
import type { PermissionSettings } from '../../agent/policy/permission-settings.js';
import { withResolvedRoles } from '../../agent/policy/resolve-roles.js';
import type { ToolPolicy } from '../../agent/tool-policy.js';
import type { PatrolProblem, PatrolToolLookup } from '../../scheduled/patrol-validation.js';
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
  alerts.routes.forEach((route, routeIndex) => {
    route.checks.forEach((check, index) => {
      const at = (...rest: (string | number)[]) => ['alerts', 'routes', routeIndex, 'checks', index, ...rest];
      const tool = tools.get(check.tool);
      if (!tool) {
        problems.push({
          path: at('tool'),
          message: `check "${check.id}" names the tool "${check.tool}", which does not exist (tools: ${tools.names().join(', ')})`,
        });
        return;
      }
      if (tool.risk !== 'read') {
        problems.push({
          path: at('tool'),
          message: `check "${check.id}" names ${check.tool}, a ${tool.risk} tool; an alert route may only run read-only checks`,
        });
        return;
      }
      const decision = policy.decide(principal, { platform: 'alert', channelId: 'alerts' }, check.tool);
      if (decision.outcome !== 'allow') {
        const why = decision.outcome === 'deny' ? decision.reason : 'it would need an approval';
        problems.push({
          path: at('tool'),
          message: `alert checks run with role(s) ${principal.roles.join(', ')} (alerts.role), which may not run ${check.tool}: ${why}`,
        });
        return;
      }
      const parsed = tool.input.safeParse(check.args);
      if (!parsed.success) {
        for (const issue of parsed.error.issues) {
          problems.push({
            path: at('args', ...issue.path.map((part) => (typeof part === 'symbol' ? String(part) : part))),
            message: `check "${check.id}": invalid argument for ${check.tool}: ${issue.message}`,
          });
        }
      }
    });
  });
  return problems;
}
