// The tools a run may be offered: those switched on now that the policy shows this person in this place. One
// place, so the model's tool list, the command engine's commands and an unknown tool's refusal name the same.
import type { Run } from './run.js';
import type { Tool } from './tool.js';
import type { ToolPolicy } from './tool-policy.js';
import type { ToolRegistry } from './tool-registry.js';

export function visibleToolsFor(
  run: Pick<Run, 'principal' | 'conversation'>,
  policy: Pick<ToolPolicy, 'visibleTools'>,
  registry: Pick<ToolRegistry, 'available'>,
): Tool[] {
  return policy.visibleTools(run.principal, run.conversation, registry.available());
}
