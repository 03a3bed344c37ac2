// Who a patrol is to the kernel: the principal `patrol:<name>`, working in a conversation of its own that no chat
// adapter shows (its reports are posted by the patrol service, not by the run).
import type { Conversation } from '../agent/conversation.js';
import type { Principal } from '../agent/principal.js';

export function patrolPrincipal(name: string, roles: string[] = []): Principal {
  return { platform: 'patrol', userId: name, displayName: `patrol ${name}`, roles, groups: [] };
}

export function patrolConversation(name: string): Conversation {
  return { platform: 'patrol', channelId: name };
}
