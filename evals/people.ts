// Turns identity keys into the principals and conversation a scenario acts as, with roles from the settings.
import type { Conversation } from '../agent/conversation.js';
import { withResolvedRoles } from '../agent/policy/resolve-roles.js';
import type { Principal } from '../agent/principal.js';
import type { Settings } from '../bot/config/settings-schema.js';
import type { Scenario } from './schema.js';

type ScenarioPlatform = Scenario['platform'];

/** `local:` people speak on the scenario's local platform (playground or cli); others on their own platform. */
export function principalFor(identity: string, platform: ScenarioPlatform, settings: Settings): Principal {
  const [kind, userId] = identity.split(':') as [string, string];
  const speaksOn =
    kind === 'local' ? (platform === 'cli' ? 'cli' : 'playground') : (kind as 'slack' | 'discord');
  return withResolvedRoles(settings.permissions, {
    platform: speaksOn,
    userId,
    displayName: userId,
    roles: [],
    groups: [],
  });
}

export function conversationFor(scenario: Scenario, principal: Principal): Conversation {
  return {
    platform: principal.platform,
    channelId: `eval-${scenario.channel}`,
    channelName: scenario.channel,
    threadId: `eval-${scenario.name}`,
  };
}
