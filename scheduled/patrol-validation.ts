// Checks that every patrol check names a known read-only tool its patrol's role may run, with valid arguments.
// A patrol only reads: a write or danger tool is refused here, whatever the role allows, before anything runs.
import type { PermissionSettings } from '../agent/policy/permission-settings.js';
import { withResolvedRoles } from '../agent/policy/resolve-roles.js';
import type { ToolPolicy } from '../agent/tool-policy.js';
import { patrolConversation, patrolPrincipal } from './patrol-identity.js';
import type { Patrols } from './patrol-settings.js';
import {
  type CheckProblem,
  type CheckToolLookup,
  readOnlyCheckProblems,
} from './read-only-check-problems.js';

export type PatrolProblem = CheckProblem;
export type PatrolToolLookup = CheckToolLookup;

export function patrolProblems(
  patrols: Patrols,
  tools: PatrolToolLookup,
  policy: Pick<ToolPolicy, 'decide'>,
  permissions: PermissionSettings,
): PatrolProblem[] {
  const problems: PatrolProblem[] = [];
  for (const [name, patrol] of Object.entries(patrols)) {
    const principal = withResolvedRoles(permissions, patrolPrincipal(name));
    const conversation = patrolConversation(name);
    const owner = {
      of: ` of patrol ${name}`,
      kind: 'a patrol',
      runsAs: `patrol ${name} runs as patrol:${name} with role(s) ${principal.roles.join(', ')}`,
    };
    patrol.checks.forEach((check, index) => {
      const at = (...rest: (string | number)[]) => ['patrols', name, 'checks', index, ...rest];
      problems.push(
        ...readOnlyCheckProblems(check, { at, owner }, { tools, policy, principal, conversation }),
      );
    });
  }
  return problems;
}
