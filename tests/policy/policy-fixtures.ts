// Shared settings, tools, people and places for the policy tests: a small team with viewer, operator and admin.
import { z } from 'zod';
import type { Conversation } from '../../agent/conversation.js';
import {
  type PermissionSettingsInput,
  PermissionSettingsSchema,
} from '../../agent/policy/permission-settings.js';
import type { Principal } from '../../agent/principal.js';
import { defineTool, type Risk, type Tool } from '../../agent/tool.js';

export function fakeTool(name: string, risk: Risk, approvalTtlMs?: number): Tool {
  return defineTool({
    name,
    description: `Test tool ${name} with ${risk} risk.`,
    input: z.object({ target: z.string().optional() }),
    risk,
    ...(approvalTtlMs === undefined ? {} : { approvalTtlMs }),
    execute: async () => ({ ok: true, summary: `${name} done` }),
  });
}

export const toolList: Tool[] = [
  fakeTool('service_status', 'read'),
  fakeTool('log_search', 'read'),
  fakeTool('scale_service', 'write'),
  fakeTool('deploy_app', 'write'),
  fakeTool('rotate_keys', 'write'),
  fakeTool('restart_service', 'danger'),
  fakeTool('restart_cache', 'danger', 5 * 60_000),
  fakeTool('drop_database', 'danger'),
];

export const tools: Record<string, Tool> = Object.fromEntries(toolList.map((tool) => [tool.name, tool]));

export const teamSettingsInput = {
  default_role: 'viewer',
  roles: {
    viewer: { tools: ['*'], risks: ['read'] },
    operator: { tools: ['*'], approve: ['restart_*', 'scale_*', 'deploy_*'] },
    admin: {
      tools: ['*'],
      approve: ['restart_*', 'scale_*', 'deploy_*'],
      write_without_approval: true,
      danger_without_approval: ['restart_cache'],
      admin: true,
    },
    deployer: { tools: ['deploy_*'], risks: ['write'], channels: ['#deploys'], write_without_approval: true },
    // Nobody holds this role, so rotate_keys has approver roles but no approvers.
    auditor: { tools: ['service_status'], risks: ['read'], approve: ['rotate_keys'] },
  },
  identities: {
    'slack:U_OPS': { roles: ['operator'] },
    'slack:U_OPS2': { roles: ['operator'] },
    'slack_group:S_OPS': { roles: ['operator'] },
    'slack:U_ADMIN': { roles: ['admin'] },
    'slack:U_DEPLOY': { roles: ['deployer'] },
    'discord:111': { roles: ['admin'] },
    'discord_role:222': { roles: ['operator'] },
    'local:alice': { roles: ['admin'], display_name: 'Alice' },
    'patrol:deep': { roles: ['operator'] },
  },
  channels: {
    '*': { risks: ['read', 'write'] },
    '#ops': {},
    C_READONLY: { risks: ['read'] },
    '#support': { tools: ['service_status', 'log_search'] },
  },
} satisfies PermissionSettingsInput;

export const settings = PermissionSettingsSchema.parse(teamSettingsInput);

export function settingsWith(overrides: Partial<PermissionSettingsInput>) {
  return PermissionSettingsSchema.parse({ ...teamSettingsInput, ...overrides });
}

export function slackUser(userId: string, groups: string[] = [], displayName = userId): Principal {
  return { platform: 'slack', userId, displayName, roles: [], groups };
}

export const people = {
  viewer: slackUser('U_NOBODY', [], 'Vic Viewer'),
  operator: slackUser('U_OPS', [], 'Olga Operator'),
  operator2: slackUser('U_OPS2', [], 'Oscar Operator'),
  groupOperator: slackUser('U_SOMEONE', ['S_OPS'], 'Gina Group'),
  admin: slackUser('U_ADMIN', [], 'Ada Admin'),
  deployer: slackUser('U_DEPLOY', [], 'Dev Deployer'),
  patrol: { platform: 'patrol', userId: 'nightly', displayName: 'nightly patrol', roles: [], groups: [] },
} satisfies Record<string, Principal>;

export function slackChannel(channelId: string, threadId = '1700000000.000100'): Conversation {
  return { platform: 'slack', channelId, threadId };
}

export const places = {
  ops: { conversation: slackChannel('C_OPS'), channelName: 'ops' },
  general: { conversation: slackChannel('C_GEN'), channelName: 'general' },
  readonly: { conversation: slackChannel('C_READONLY'), channelName: 'announcements' },
  support: { conversation: slackChannel('C_SUP'), channelName: 'support' },
  deploys: { conversation: slackChannel('C_DEP'), channelName: 'deploys' },
  dm: { conversation: slackChannel('D_DM') },
} satisfies Record<string, { conversation: Conversation; channelName?: string }>;

/** The approval request the race tests fight over: the operator's restart of prod-db in #ops. */
