// Checks that every patrol check names a known read-only tool its patrol's role may run, with valid arguments.
// A patrol only reads: a write or danger tool is refused here, whatever the role allows, before anything runs.
import type { PermissionSettings } from '../agent/policy/permission-settings.js';
import { withResolvedRoles } from '../agent/policy/resolve-roles.js';
import type { Tool } from '../agent/tool.js';
import type { ToolPolicy } from '../agent/tool-policy.js';
import { patrolConversation, patrolPrincipal } from './patrol-identity.js';
import type { Patrols } from './patrol-settings.js';

export interface PatrolProblem {
  path: (string | number)[];
  message: string;
}

export interface PatrolToolLookup {
  get(name: string): Tool | undefined;
  names(): string[];
}

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
    patrol.checks.forEach((check, index) => {
      const at = (...rest: (string | number)[]) => ['patrols', name, 'checks', index, ...rest];
      const tool = tools.get(check.tool);
      if (!tool) {
        problems.push({
          path: at('tool'),
          message: `check "${check.id}" of patrol ${name} names the tool "${check.tool}", which does not exist (tools: ${tools.names().join(', ')})`,
        });
        return;
      }
      if (tool.risk !== 'read') {
        problems.push({
          path: at('tool'),
          message: `check "${check.id}" of patrol ${name} names ${check.tool}, a ${tool.risk} tool; a patrol may only run read-only checks`,
        });
        return;
      }
      const decision = policy.decide(principal, conversation, check.tool);
      if (decision.outcome !== 'allow') {
        const why = decision.outcome === 'deny' ? decision.reason : 'it would need an approval';
        problems.push({
          path: at('tool'),
          message: `patrol ${name} runs as patrol:${name} with role(s) ${principal.roles.join(', ')}, which may not run ${check.tool}: ${why}`,
        });
        return;
      }
      const parsed = tool.input.safeParse(check.args);
      if (!parsed.success) {
        for (const issue of parsed.error.issues) {
          problems.push({
            path: at('args', ...issue.path.map((part) => (typeof part === 'symbol' ? String(part) : part))),
            message: `check "${check.id}" of patrol ${name}: invalid argument for ${check.tool}: ${issue.message}`,
          });
        }
      }
    });
  }
  return problems;
}
