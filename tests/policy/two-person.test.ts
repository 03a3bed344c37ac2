// The two-person rule in the settings: a role's `two_person`, how many approvers a decision asks for, the refusal
// when fewer than two people could give them, grants, and the start-up warning. Pure functions, no kernel.
import { describe, expect, it } from 'vitest';
import { decideToolCall } from '../../agent/policy/decide-tool-call.js';
import { grantRefusal } from '../../agent/policy/grant-rules.js';
import {
  type PermissionSettingsInput,
  PermissionSettingsSchema,
  RoleSettingsSchema,
} from '../../agent/policy/permission-settings.js';
import { twoPersonWarnings } from '../../agent/policy/two-person-check.js';
import type { Principal } from '../../agent/principal.js';
import { defineTool, type Tool } from '../../agent/tool.js';
import { fakeTool, places, slackUser } from './policy-fixtures.js';

const HOUR = 60 * 60_000;

function twoApproverTool(name: string, grants?: boolean): Tool {
  return defineTool({
    ...fakeTool(name, 'danger'),
    approvals: 2,
    ...(grants === undefined ? {} : { grants }),
  });
}

const toolList = [
  fakeTool('service_status', 'read'),
  fakeTool('scale_service', 'write'),
  fakeTool('restart_service', 'danger'),
  fakeTool('restart_cache', 'danger'),
  twoApproverTool('delete_volume'),
];
const tools = Object.fromEntries(toolList.map((tool) => [tool.name, tool]));

/** Olga operates; Ada and Dave approve; sre's two_person names restart_*, and Olga is in sre. */
const team = {
  roles: {
    operator: { tools: ['*'], danger_without_approval: ['restart_cache'] },
    approver: { tools: ['*'], approve: ['*'] },
    sre: { two_person: ['restart_*'] },
    prod_freeze: { two_person: ['scale_*'], channels: ['#prod'] },
  },
  identities: {
    'slack:U_OLGA': { roles: ['operator', 'sre', 'prod_freeze'] },
    'slack:U_ADA': { roles: ['approver'], display_name: 'Ada' },
    'slack:U_DAVE': { roles: ['approver'], display_name: 'Dave' },
  },
} satisfies PermissionSettingsInput;

const parse = (overrides: Partial<PermissionSettingsInput> = {}) =>
  PermissionSettingsSchema.parse({ ...team, ...overrides });

const olga = slackUser('U_OLGA', [], 'Olga');
const ada = slackUser('U_ADA', [], 'Ada');
const prod = {
  conversation: { platform: 'slack' as const, channelId: 'C_PROD', threadId: '1' },
  channelName: 'prod',
};

function decide(principal: Principal, toolName: string, settings = parse(), place = places.ops) {
  return decideToolCall({ settings, principal, toolName, tools, ...place });
}

describe('settings', () => {
  it('takes two_person as tool names or globs, empty by default and on the built-in roles', () => {
    expect(RoleSettingsSchema.parse({}).two_person).toEqual([]);
    expect(RoleSettingsSchema.parse({ two_person: ['restart_*', 'delete_volume'] }).two_person).toEqual([
      'restart_*',
      'delete_volume',
    ]);
    expect(RoleSettingsSchema.safeParse({ two_person: 'restart_*' }).success).toBe(false);
    const settings = parse();
    expect(settings.roles.viewer?.two_person).toEqual([]);
    expect(settings.roles.sre?.two_person).toEqual(['restart_*']);
  });
});

describe('the decision', () => {
  it("asks for two approvers when one of the requester's roles names the tool, and says which", () => {
    expect(decide(olga, 'restart_service')).toMatchObject({
      outcome: 'needs_approval',
      approvals: 2,
      twoPersonRoles: ['sre'],
      reason:
        "restart_service is a danger tool, so it needs approval by two people with the approver role (role sre's two_person).",
    });
  });

  it("asks for one otherwise, and for two when the tool's own approvals say so", () => {
    expect(decide(ada, 'restart_service')).toMatchObject({ approvals: 1, twoPersonRoles: [] });
    expect(decide(olga, 'delete_volume')).toMatchObject({ approvals: 2, twoPersonRoles: [] });
  });

  it('applies a role with channels only there', () => {
    expect(decide(olga, 'scale_service')).toMatchObject({ approvals: 1, twoPersonRoles: [] });
    expect(decide(olga, 'scale_service', parse(), prod)).toMatchObject({
      approvals: 2,
      twoPersonRoles: ['prod_freeze'],
    });
  });

  it('changes nothing for a call that runs without approval', () => {
    const settings = parse({ roles: { ...team.roles, sre: { two_person: ['restart_*'] } } });
    expect(decide(olga, 'restart_cache', settings)).toEqual({ outcome: 'allow' });
  });

  it('refuses at once when only one person besides the requester may approve, naming them', () => {
    const settings = parse({
      identities: { ...team.identities, 'slack:U_ADA': { roles: ['approver', 'sre'] } },
    });
    // Ada is one of the two approvers, so besides her only Dave may approve her restart.
    expect(decide(ada, 'restart_service', settings)).toEqual({
      outcome: 'deny',
      code: 'no_approvers',
      reason:
        "restart_service needs two approvers (role sre's two_person), but only Dave may approve it besides you, " +
        'so it cannot run.',
    });
    const onlyAda = {
      'slack:U_OLGA': team.identities['slack:U_OLGA'],
      'slack:U_ADA': team.identities['slack:U_ADA'],
    };
    const reason = (decision: ReturnType<typeof decide>) =>
      decision.outcome === 'deny' ? decision.reason : '';
    expect(reason(decide(olga, 'delete_volume', parse({ identities: onlyAda })))).toBe(
      'delete_volume needs two approvers (its settings say approvals: 2), but only Ada may approve it besides ' +
        'you, so it cannot run.',
    );
  });

  it('refuses when self-approval would make the requester the only approver: the requester never counts', () => {
    const settings = parse({
      allow_self_approval: true,
      identities: { 'slack:U_OLGA': { roles: ['operator', 'approver', 'sre'] } },
    });
    const decision = decide(olga, 'restart_service', settings);
    expect(decision.outcome === 'deny' && decision.reason).toBe(
      "restart_service needs two approvers (role sre's two_person), but nobody besides you may approve it, so it " +
        'cannot run.',
    );
  });

  it('counts a group, or the default role, as two approvers: they hold many people', () => {
    const group = parse({
      identities: {
        'slack:U_OLGA': team.identities['slack:U_OLGA'],
        'slack_group:S_APPROVERS': { roles: ['approver'] },
      },
    });
    expect(decide(olga, 'restart_service', group)).toMatchObject({ outcome: 'needs_approval', approvals: 2 });
    const everyone = parse({
      default_role: 'approver',
      identities: { 'slack:U_OLGA': team.identities['slack:U_OLGA'] },
    });
    expect(decide(olga, 'restart_service', everyone)).toMatchObject({
      outcome: 'needs_approval',
      approvals: 2,
    });
  });
});

describe('grants', () => {
  const settings = parse();
  const restart = fakeTool('restart_service', 'danger');

  it("refuses a grant for a call a role makes two-person, whatever the tool's grants says", () => {
    const expected =
      "restart_service cannot be approved for a while: it needs two approvers (role sre's two_person), so each " +
      'call is approved on its own. Nothing was approved.';
    const need = { approvals: 2, twoPersonRoles: ['sre'] };
    expect(grantRefusal(settings, 'restart_service', restart, HOUR, need)).toBe(expected);
    const granting = defineTool({ ...restart, approvals: 2, grants: true });
    expect(grantRefusal(settings, 'restart_service', granting, HOUR, need)).toBe(expected);
  });

  it('refuses by the approval it asked for: two approvers the tool does not ask for came from a role', () => {
    // The role's rule changed since the approval was asked for; the approval still needs two, so no grant.
    expect(
      grantRefusal(settings, 'restart_service', restart, HOUR, { approvals: 2, twoPersonRoles: [] }),
    ).toBe(
      "restart_service cannot be approved for a while: it needs two approvers (a role's two_person), so each call " +
        'is approved on its own. Nothing was approved.',
    );
    expect(
      grantRefusal(settings, 'restart_service', restart, HOUR, { approvals: 1, twoPersonRoles: [] }),
    ).toBe(undefined);
    const granting = twoApproverTool('delete_volume', true);
    expect(
      grantRefusal(settings, 'delete_volume', granting, HOUR, { approvals: 2, twoPersonRoles: [] }),
    ).toBe(undefined);
  });
});

describe('the start-up warning', () => {
  it('is silent when two people, a group or the default role may approve every two-person tool', () => {
    expect(twoPersonWarnings(parse(), toolList)).toEqual([]);
    const group = parse({ identities: { 'slack_group:S_APPROVERS': { roles: ['approver'] } } });
    expect(twoPersonWarnings(group, toolList)).toEqual([]);
    expect(twoPersonWarnings(parse({ default_role: 'approver', identities: {} }), toolList)).toEqual([]);
  });

  it('names each tool that needs two approvers, why, who may approve it, and what to add', () => {
    const onlyAda = parse({ identities: { 'slack:U_ADA': team.identities['slack:U_ADA'] } });
    const warning = (tool: string, source: string) =>
      `${tool} needs two approvers (${source}), but only Ada may approve it (the approver role), so every ` +
      'call of it that needs an approval will be refused. In opsbot.yaml, give a second person, or a group, ' +
      "the approver role under permissions.identities (for example 'slack_group:S…': { roles: [approver] }), " +
      `or name ${tool} under \`approve\` of a role more people hold.`;
    expect(twoPersonWarnings(onlyAda, toolList)).toEqual([
      warning('scale_service', "role prod_freeze's two_person"),
      warning('restart_service', "role sre's two_person"),
      warning('restart_cache', "role sre's two_person"),
      warning('delete_volume', 'its settings say approvals: 2'),
    ]);
  });

  it('says when nobody holds an approving role, or no role may approve, and names both sources', () => {
    const nobody = parse({ identities: {} });
    expect(twoPersonWarnings(nobody, [twoApproverTool('delete_volume')])).toEqual([
      'delete_volume needs two approvers (its settings say approvals: 2), but nobody holds the approver role, ' +
        'which may approve it, so every call of it that needs an approval will be refused. In opsbot.yaml, ' +
        'give two people, or a group, the approver role under permissions.identities (for example ' +
        "'slack_group:S…': { roles: [approver] }), or name delete_volume under `approve` of a role more " +
        'people hold.',
    ]);
    const unapproved = parse({
      roles: { ...team.roles, approver: { tools: ['*'] }, sre: { two_person: ['delete_*'] } },
    });
    expect(twoPersonWarnings(unapproved, [twoApproverTool('delete_volume')])).toEqual([
      "delete_volume needs two approvers (its settings say approvals: 2, and role sre's two_person), but no " +
        'role may approve it, so every call of it that needs an approval will be refused. In opsbot.yaml, ' +
        'name delete_volume under `approve` of a role that two people or a group hold.',
    ]);
  });

  it('never names a read tool, which needs no approval', () => {
    const everything = parse({ roles: { ...team.roles, sre: { two_person: ['*'] } }, identities: {} });
    const warned = twoPersonWarnings(everything, toolList).map((warning) => warning.split(' ')[0]);
    expect(warned).toEqual(['scale_service', 'restart_service', 'restart_cache', 'delete_volume']);
  });
});
