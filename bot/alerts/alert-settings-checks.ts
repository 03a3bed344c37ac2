// Checks of `alerts:` that its schema cannot express: route regular expressions that must compile and cannot
// backtrack forever (they run on every notification's labels), and an investigation role that must exist.
import safeRegex from 'safe-regex2';
import { didYouMean } from '../../agent/did-you-mean.js';
import { errorMessage } from '../../agent/errors.js';
import type { PathProblem } from '../config/settings-issues.js';
import type { AlertSettings } from './alert-settings.js';

export function alertRouteProblems(alerts: AlertSettings): PathProblem[] {
  const problems: PathProblem[] = [];
  alerts.routes.forEach((route, index) => {
    for (const [label, source] of Object.entries(route.match_re)) {
      const path = ['alerts', 'routes', index, 'match_re', label];
      let pattern: RegExp;
      try {
        pattern = new RegExp(`^(?:${source})$`);
      } catch (error) {
        problems.push({
          path,
          message: `expected a regular expression, found ${JSON.stringify(source)}: ${errorMessage(error)}`,
        });
        continue;
      }
      if (!safeRegex(pattern)) {
        problems.push({
          path,
          message: `the regular expression ${JSON.stringify(source)} may take exponential time (repetition inside repetition); rewrite it`,
        });
      }
    }
    if (route.drop && (route.channel || route.checks.length > 0)) {
      problems.push({
        path: ['alerts', 'routes', index, 'drop'],
        message:
          'a route with drop: true posts nothing, so its channel and checks would never be used; remove them or drop',
      });
    }
  });
  return problems;
}

export function alertRoleProblems(
  alerts: AlertSettings,
  roles: Readonly<Record<string, unknown>>,
): PathProblem[] {
  if (Object.hasOwn(roles, alerts.role)) return [];
  const known = Object.keys(roles);
  return [
    {
      path: ['alerts', 'role'],
      message: `role "${alerts.role}" is not defined under permissions.roles${didYouMean(alerts.role, known)} (defined: ${known.join(', ')})`,
    },
  ];
}
