// The one decision function: the role matrix across risks and channels, own-property lookup, forged calls.
import { describe, expect, it } from 'vitest';
import { canApprove } from '../../agent/policy/approver-set.js';
import { type Decision, decideToolCall, visibleTools } from '../../agent/policy/decide-tool-call.js';
import type { PermissionSettings } from '../../agent/policy/permission-settings.js';
import type { Principal } from '../../agent/principal.js';
import { people, places, settings, settingsWith, tools } from './policy-fixtures.js';

type Place = (typeof places)[keyof typeof places];

function decide(
  principal: Principal,
  toolName: string,
  place: Place = places.ops,
  with_ = settings,
): Decision {
  return decideToolCall({ settings: with_, principal, toolName, tools, ...place });
}

const outcome = (principal: Principal, toolName: string, place?: Place, with_?: PermissionSettings) => {
  const decision = decide(principal, toolName, place, with_);
  return decision.outcome === 'deny' ? `deny:${decision.code}` : decision.outcome;
};

describe('role matrix', () => {
  const cases: Array<[keyof typeof people, keyof typeof places, string, string]> = [
    // viewer: read only, everywhere
    ['viewer', 'ops', 'service_status', 'allow'],
    ['viewer', 'general', 'log_search', 'allow'],
    ['viewer', 'ops', 'scale_service', 'deny:not_permitted'],
    ['viewer', 'ops', 'restart_service', 'deny:not_permitted'],
    // operator: read direct, write and danger with approval, danger only in #ops
    ['operator', 'ops', 'service_status', 'allow'],
    ['operator', 'ops', 'scale_service', 'needs_approval'],
    ['operator', 'general', 'scale_service', 'needs_approval'],
    ['operator', 'ops', 'restart_service', 'needs_approval'],
    ['operator', 'general', 'restart_service', 'deny:channel'],
    ['operator', 'dm', 'restart_service', 'deny:channel'],
    ['operator', 'readonly', 'scale_service', 'deny:channel'],
    ['operator', 'readonly', 'service_status', 'allow'],
    ['operator', 'support', 'scale_service', 'deny:channel'],
    ['operator', 'support', 'service_status', 'allow'],
    ['operator', 'ops', 'drop_database', 'deny:no_approvers'],
    ['operator', 'ops', 'rotate_keys', 'deny:no_approvers'],
    ['groupOperator', 'ops', 'restart_service', 'needs_approval'],
    // admin: write without approval, danger still needs approval unless named explicitly
    ['admin', 'ops', 'scale_service', 'allow'],
    ['admin', 'general', 'scale_service', 'allow'],
    ['admin', 'ops', 'restart_service', 'needs_approval'],
    ['admin', 'ops', 'restart_cache', 'allow'],
    ['admin', 'general', 'restart_cache', 'deny:channel'],
    // a role scoped to one channel
    ['deployer', 'deploys', 'deploy_app', 'allow'],
    ['deployer', 'ops', 'deploy_app', 'deny:channel'],
    ['deployer', 'deploys', 'service_status', 'deny:not_permitted'],
    // patrols: read-only by default
    ['patrol', 'ops', 'service_status', 'allow'],
    ['patrol', 'ops', 'scale_service', 'deny:not_permitted'],
    ['patrol', 'ops', 'restart_service', 'deny:not_permitted'],
  ];
  it.each(cases)('%s in %s calling %s → %s', (person, place, toolName, expected) => {
    expect(outcome(people[person], toolName, places[place])).toBe(expected);
  });

  it('gives a patrol with its own identity that identity’s roles', () => {
    const deep = { ...people.patrol, userId: 'deep' };
    expect(outcome(deep, 'scale_service')).toBe('needs_approval');
  });
});

describe('reasons written for a person and the model', () => {
  it('names the role and who could do it', () => {
    expect(decide(people.viewer, 'restart_service')).toEqual({
      outcome: 'deny',
      code: 'not_permitted',
      reason: 'Your role (viewer) may not use restart_service; ask someone with the operator or admin role.',
    });
  });

  it('says where a danger tool is allowed', () => {
    const decision = decide(people.operator, 'restart_service', places.general);
    expect(decision).toMatchObject({ outcome: 'deny', code: 'channel' });
    expect(decision.outcome === 'deny' && decision.reason).toBe(
      'restart_service is a danger tool, and danger tools are not allowed in #general. They are allowed in #ops.',
    );
  });

  it('says where a channel-scoped role applies', () => {
    const decision = decide(people.deployer, 'deploy_app', places.ops);
    expect(decision.outcome === 'deny' && decision.reason).toBe(
      'Your role (deployer) may use deploy_app only in #deploys, not in #ops.',
    );
  });

  it('matches channels by id as well as by #name, case-insensitively', () => {
    const byName = { conversation: places.general.conversation, channelName: 'OPS' };
    expect(outcome(people.operator, 'restart_service', byName)).toBe('needs_approval');
    const byId = settingsWith({ channels: { '*': { risks: ['read'] }, C_GEN: {} } });
    expect(outcome(people.operator, 'restart_service', places.general, byId)).toBe('needs_approval');
  });
});

describe('approval', () => {
  it('returns the approver roles and identities, and the per-tool or default ttl', () => {
    const decision = decide(people.operator, 'restart_service');
    expect(decision).toMatchObject({
      outcome: 'needs_approval',
      ttlMs: 15 * 60_000,
      approvers: {
        roles: ['operator', 'admin'],
        identities: [
          'slack:U_OPS',
          'slack:U_OPS2',
          'slack_group:S_OPS',
          'slack:U_ADMIN',
          'discord:111',
          'discord_role:222',
          'local:alice',
        ],
        includesDefaultRole: false,
      },
    });
    expect(decide(people.operator, 'restart_cache')).toMatchObject({ ttlMs: 5 * 60_000 });
  });

  it('denies when no role may approve, never treating an empty set as anybody', () => {
    const decision = decide(people.operator, 'drop_database');
    expect(decision.outcome === 'deny' && decision.reason).toBe(
      'drop_database needs approval, but nobody may approve it (no role may approve it), so it cannot run.',
    );
    const nobodyHoldsIt = decide(people.operator, 'rotate_keys');
    expect(nobodyHoldsIt.outcome === 'deny' && nobodyHoldsIt.reason).toContain(
      'nobody else holds the auditor role',
    );
  });

  it('denies when the only possible approver is the requester, unless self-approval is on', () => {
    const solo = settingsWith({
      roles: { ...settings.roles, solo: { tools: ['scale_service'], approve: ['scale_service'] } },
      identities: { 'slack:U_SOLO': { roles: ['solo'] } },
    });
    const soloPerson = { ...people.viewer, userId: 'U_SOLO' };
    expect(outcome(soloPerson, 'scale_service', places.ops, solo)).toBe('deny:no_approvers');
    const selfAllowed = settingsWith({ ...solo, allow_self_approval: true });
    expect(outcome(soloPerson, 'scale_service', places.ops, selfAllowed)).toBe('needs_approval');
  });

  it('counts everyone when the default role may approve', () => {
    const open = settingsWith({
      roles: { ...teamRoles(), viewer: { tools: ['*'], risks: ['read'], approve: ['scale_*'] } },
    });
    expect(decide(people.operator, 'scale_service', places.ops, open)).toMatchObject({
      outcome: 'needs_approval',
      approvers: { includesDefaultRole: true },
    });
  });

  it('canApprove follows the approve globs and role channels', () => {
    expect(canApprove(settings, people.admin, 'restart_service')).toBe(true);
    expect(canApprove(settings, people.groupOperator, 'scale_service')).toBe(true);
    expect(canApprove(settings, people.viewer, 'restart_service')).toBe(false);
    expect(canApprove(settings, people.admin, 'drop_database')).toBe(false);
    expect(canApprove(settings, people.patrol, 'restart_service')).toBe(false);
  });
});

function teamRoles() {
  return Object.fromEntries(Object.entries(settings.roles).filter(([name]) => name !== 'viewer'));
}

describe('tool lookup by own property only', () => {
  const hostile = ['__proto__', 'constructor', 'hasOwnProperty', 'toString', 'valueOf', 'isPrototypeOf', ''];
  it.each(hostile)(
    'denies %j as an unknown tool, from a record, a null-prototype object and a Map',
    (name) => {
      const nullProto = Object.assign(Object.create(null) as Record<string, never>, tools);
      for (const registry of [tools, nullProto, new Map(Object.entries(tools))]) {
        const decision = decideToolCall({
          settings,
          principal: people.admin,
          tools: registry,
          toolName: name,
          ...places.ops,
        });
        expect(decision).toMatchObject({ outcome: 'deny', code: 'unknown_tool' });
      }
    },
  );

  it('does not find tools on the prototype chain', () => {
    const inherited = Object.create(tools) as Record<string, never>;
    const decision = decideToolCall({
      settings,
      principal: people.admin,
      tools: inherited,
      toolName: 'service_status',
      ...places.ops,
    });
    expect(decision).toMatchObject({ outcome: 'deny', code: 'unknown_tool' });
  });

  it('denies a forged call to a tool the role was never offered', () => {
    const offered = visibleTools({ settings, principal: people.viewer, tools, ...places.ops }).map(
      (t) => t.name,
    );
    expect(offered).not.toContain('restart_service');
    expect(decide(people.viewer, 'restart_service')).toMatchObject({
      outcome: 'deny',
      code: 'not_permitted',
    });
    expect(decide(people.viewer, 'no_such_tool')).toMatchObject({ outcome: 'deny', code: 'unknown_tool' });
  });

  it('ignores roles written onto the principal: settings decide', () => {
    const forged = { ...people.viewer, roles: ['admin'] };
    expect(decide(forged, 'restart_cache')).toMatchObject({ outcome: 'deny', code: 'not_permitted' });
  });
});

describe('visibleTools', () => {
  const names = (principal: Principal, place: Place) =>
    visibleTools({ settings, principal, tools, ...place }).map((tool) => tool.name);

  it('offers a viewer only the read tools', () => {
    expect(names(people.viewer, places.ops)).toEqual(['service_status', 'log_search']);
  });

  it('offers tools needing approval, and hides those denied here or with nobody to approve', () => {
    expect(names(people.operator, places.ops)).toEqual([
      'service_status',
      'log_search',
      'scale_service',
      'deploy_app',
      'restart_service',
      'restart_cache',
    ]);
    expect(names(people.operator, places.general)).toEqual([
      'service_status',
      'log_search',
      'scale_service',
      'deploy_app',
    ]);
    expect(names(people.operator, places.support)).toEqual(['service_status', 'log_search']);
  });

  it('works with a Map registry too', () => {
    const map = new Map(Object.entries(tools));
    const visible = visibleTools({ settings, principal: people.deployer, tools: map, ...places.deploys });
    expect(visible.map((tool) => tool.name)).toEqual(['deploy_app']);
  });
});

describe('channel name carried by the conversation', () => {
  it('uses conversation.channelName when no channelName is passed', () => {
    const conversation = { ...places.general.conversation, channelName: 'ops' };
    const decision = decideToolCall({
      settings,
      principal: people.operator,
      tools,
      toolName: 'restart_service',
      conversation,
    });
    expect(decision.outcome).toBe('needs_approval');
  });
});
