// The kernel's ToolPolicy backed by the permission settings: every call decided by decideToolCall.
import type { Conversation } from '../conversation.js';
import type { Principal } from '../principal.js';
import type { Tool } from '../tool.js';
import type { ToolPolicy } from '../tool-policy.js';
import type { ToolRegistry } from '../tool-registry.js';
import { refusalReason } from './approval-outcomes.js';
import { decideToolCall, visibleTools } from './decide-tool-call.js';
import type { PermissionSettings } from './permission-settings.js';
import { resolveRoles } from './resolve-roles.js';
import { requesterOrAdmin } from './run-authority.js';

export function settingsToolPolicy(settings: PermissionSettings, registry: ToolRegistry): ToolPolicy {
  const place = (conversation: Conversation) =>
    conversation.channelName === undefined ? {} : { channelName: conversation.channelName };
  const isAdmin = (principal: Principal) =>
    resolveRoles(settings, principal).some(
      (role) => Object.hasOwn(settings.roles, role) && settings.roles[role]!.admin,
    );
  return {
    decide(principal: Principal, conversation: Conversation, toolName: string) {
      return decideToolCall({
        settings,
        principal,
        conversation,
        toolName,
        tools: registry.asRecord(),
        ...place(conversation),
      });
    },
    visibleTools(principal: Principal, conversation: Conversation, tools: readonly Tool[]) {
      const record: Record<string, Tool> = Object.create(null);
      for (const tool of tools) record[tool.name] = tool;
      return visibleTools({ settings, principal, conversation, tools: record, ...place(conversation) });
    },
    isAdmin,
    ...(settings.confirm_unrequested_writes ? { confirmUnrequested: { ttlMs: settings.approval_ttl } } : {}),
    mayActOnRun(principal, run, action) {
      if (action.kind !== 'decide') return requesterOrAdmin(isAdmin(principal), principal, run, action.kind);
      const reason = refusalReason(action.approval, principal, action.decision, settings);
      return reason ? { allowed: false, reason } : { allowed: true };
    },
  };
}
