// Role resolution from each identity kind, the default role, patrols, and the settings checks behind them.

import { describe, expect, it } from 'vitest';
import {
  describePermissions,
  formatPermissions,
  formatWhoami,
} from '../../agent/policy/describe-permissions.js';
import { PermissionSettingsSchema } from '../../agent/policy/permission-settings.js';
import {
  identityDisplayName,
  identityKeys,
  resolveRoles,
  withResolvedRoles,
} from '../../agent/policy/resolve-roles.js';
import { settingsToolPolicy } from '../../agent/policy/settings-tool-policy.js';
import type { Principal } from '../../agent/principal.js';
import { ToolRegistry } from '../../agent/tool-registry.js';
import { people, places, settings, settingsWith, tools } from './policy-fixtures.js';

const who = (platform: Principal['platform'], userId: string, groups: string[] = []) => ({
  platform,
  userId,
  groups,
});

describe('resolveRoles', () => {
  it.each([
    ['a Slack user id', who('slack', 'U_OPS'), ['operator']],
    ['a Slack user group', who('slack', 'U_ANY', ['S_OTHER', 'S_OPS']), ['operator']],
    ['a Discord user id', who('discord', '111'), ['admin']],
    ['a Discord role', who('discord', '999', ['222']), ['operator']],
    ['a playground user', who('playground', 'alice'), ['admin']],
    ['a CLI user', who('cli', 'alice'), ['admin']],
    ['a patrol with an identity', who('patrol', 'deep'), ['operator']],
  ])('resolves %s', (_label, identity, roles) => {
    expect(resolveRoles(settings, identity)).toEqual(roles);
  });

  it('unions the roles of every matching identity', () => {
    const both = settingsWith({
      identities: {
        'slack:U1': { roles: ['deployer'] },
        'slack_group:S1': { roles: ['operator', 'deployer'] },
      },
    });
    expect(resolveRoles(both, who('slack', 'U1', ['S1']))).toEqual(['deployer', 'operator']);
  });

  it('gives the default role when nothing matches, and never mixes platforms', () => {
    expect(resolveRoles(settings, who('slack', 'U_STRANGER'))).toEqual(['viewer']);
    expect(resolveRoles(settings, who('slack', '111'))).toEqual(['viewer']);
    expect(resolveRoles(settings, who('discord', 'U_OPS'))).toEqual(['viewer']);
    expect(resolveRoles(settings, who('slack', 'U_X', ['222']))).toEqual(['viewer']);
  });

  it('gives a patrol without an identity the read-only patrol role', () => {
    expect(resolveRoles(settings, who('patrol', 'nightly'))).toEqual(['patrol']);
    expect(settings.roles.patrol).toMatchObject({ tools: ['*'], risks: ['read'] });
  });

  it('builds identity keys per platform', () => {
    expect(identityKeys(who('slack', 'U1', ['S1']))).toEqual(['slack:U1', 'slack_group:S1']);
    expect(identityKeys(who('discord', '1', ['2']))).toEqual(['discord:1', 'discord_role:2']);
    expect(identityKeys(who('playground', 'bob'))).toEqual(['local:bob']);
    expect(identityKeys(who('patrol', 'p'))).toEqual(['patrol:p']);
  });

  it('fills a principal’s roles and display name from settings', () => {
    expect(withResolvedRoles(settings, { ...people.admin, roles: ['nonsense'] }).roles).toEqual(['admin']);
    expect(identityDisplayName(settings, who('playground', 'alice'))).toBe('Alice');
  });

  it('lets the requester or an admin cancel, answer or see a run, and nobody else', () => {
    const registry = new ToolRegistry([]);
    const policy = settingsToolPolicy(settings, registry);
    const run = {
      id: 'run_1',
      principal: { ...people.operator, displayName: 'Olga', roles: [], groups: [] },
    };
    const as = (who: typeof people.operator) => ({ ...who, displayName: who.userId, roles: [], groups: [] });
    for (const kind of ['cancel', 'answer', 'status'] as const) {
      expect(policy.mayActOnRun(as(people.operator), run, { kind }).allowed).toBe(true);
      expect(policy.mayActOnRun(as(people.admin), run, { kind }).allowed).toBe(true);
      expect(policy.mayActOnRun(as(people.operator2), run, { kind })).toEqual({
        allowed: false,
        reason: expect.stringMatching(/^Only Olga \(who asked\) or an admin can /),
      });
    }
  });
});

describe('PermissionSettingsSchema', () => {
  it('defaults to a read-only viewer role and a read-only patrol role', () => {
    const defaults = PermissionSettingsSchema.parse(undefined);
    expect(defaults).toMatchObject({
      default_role: 'viewer',
      patrol_role: 'patrol',
      allow_self_approval: false,
      approval_ttl: 15 * 60_000,
      tasks_per_minute: 10,
      on_denial: 'continue',
    });
    expect(defaults.roles.viewer).toMatchObject({ tools: ['*'], risks: ['read'], approve: [] });
    expect(defaults.roles.patrol).toMatchObject({ tools: ['*'], risks: ['read'] });
  });

  it('keeps the built-in roles next to configured ones, and lets settings replace them', () => {
    const parsed = PermissionSettingsSchema.parse({
      roles: { viewer: { tools: ['service_status'], risks: ['read'] } },
    });
    expect(parsed.roles.viewer?.tools).toEqual(['service_status']);
    expect(parsed.roles.patrol).toBeDefined();
  });

  it('parses durations', () => {
    expect(PermissionSettingsSchema.parse({ approval_ttl: '30m' }).approval_ttl).toBe(30 * 60_000);
    expect(() => PermissionSettingsSchema.parse({ approval_ttl: 'soon' })).toThrow(/duration/);
  });

  it('names the key when a role or identity is misspelt', () => {
    const result = PermissionSettingsSchema.safeParse({
      default_role: 'guest',
      identities: { 'slak:U1': { roles: ['viewer'] }, 'slack:U2': { roles: ['admn'] } },
    });
    expect(result.success).toBe(false);
    const issues = result.error?.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    expect(issues).toEqual([
      'default_role: role "guest" is not defined under permissions.roles (defined: viewer, patrol)',
      expect.stringMatching(/^identities\.slak:U1: "slak:U1" is not an identity key/),
      'identities.slack:U2.roles: role "admn" is not defined under permissions.roles (defined: viewer, patrol)',
    ]);
  });

  it('does not let an identity named __proto__ grant anything', () => {
    const parsed = PermissionSettingsSchema.safeParse(
      JSON.parse('{"identities": {"__proto__": {"roles": ["viewer"]}}}'),
    );
    // zod drops the key; either way no identity may come from the prototype.
    expect(parsed.success && Object.keys(parsed.data.identities)).toEqual([]);
    expect(parsed.success && resolveRoles(parsed.data, who('slack', 'x'))).toEqual(['viewer']);
  });
});

describe('describePermissions', () => {
  it('lists roles, direct tools, tools needing approval and tools to approve', () => {
    const description = describePermissions(settings, people.operator, tools, places.ops.conversation, 'ops');
    expect(description).toEqual({
      roles: ['operator'],
      direct: ['log_search', 'service_status'],
      needsApproval: ['deploy_app', 'restart_cache', 'restart_service', 'scale_service'],
      mayApprove: ['deploy_app', 'restart_cache', 'restart_service', 'scale_service'],
      switchedOff: [],
    });
    expect(formatPermissions(description)).toContain(
      'Tools that need approval here: deploy_app, restart_cache, restart_service, scale_service',
    );
    expect(formatWhoami(people.operator, description)).toBe('Olga Operator: role operator.');
  });

  it('tells a viewer they can only read and approve nothing', () => {
    const description = describePermissions(
      settings,
      people.viewer,
      tools,
      places.general.conversation,
      'general',
    );
    expect(description).toMatchObject({
      direct: ['log_search', 'service_status'],
      needsApproval: [],
      mayApprove: [],
    });
    expect(formatPermissions(description)).toContain('Tools you may approve: none');
  });
});
