// Slack identities: names and user groups read through the Web API, cached on an injected clock, roles from settings.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../agent/clock.js';
import { silentLogger } from '../../agent/logger.js';
import { PermissionSettingsSchema } from '../../agent/policy/permission-settings.js';
import { SlackIdentity } from '../../bot/slack/slack-identity.js';
import { createSlackWebClient } from '../../bot/slack/slack-web-client.js';
import { type FakeSlackApi, startFakeSlackApi } from '../fakes/slack/fake-slack-api.js';

const permissions = PermissionSettingsSchema.parse({
  roles: { operator: { tools: ['*'] }, admin: { tools: ['*'], approve: ['*'], admin: true } },
  identities: {
    'slack:UALICE': { roles: ['operator'] },
    'slack:UDAVE': { roles: ['operator'], display_name: 'Dave (on call)' },
    'slack_group:SADMINS': { roles: ['admin'] },
    'slack_group:SHUGE': { roles: ['operator'] },
  },
});

describe('SlackIdentity', () => {
  let api: FakeSlackApi;
  let clock: ManualClock;
  let identity: SlackIdentity;
  beforeEach(async () => {
    api = await startFakeSlackApi();
    api.addUser({ id: 'UALICE', name: 'alice', displayName: 'Alice' });
    api.addUser({ id: 'UBOB', name: 'bob', realName: 'Bob Builder' });
    api.usergroups = [
      { id: 'SADMINS', handle: 'admins', users: ['UBOB'] },
      { id: 'SHUGE', handle: 'everyone-ops', users: ['UCAROL'], listUsers: false },
      { id: 'SOTHER', handle: 'other', users: ['UALICE'] },
    ];
    clock = new ManualClock();
    const client = createSlackWebClient({ token: 'xoxb-test', apiUrl: api.apiUrl, logger: silentLogger });
    identity = new SlackIdentity({ client, permissions, clock, logger: silentLogger, ttlMs: 60_000 });
  });
  afterEach(async () => api.close());

  it('gives roles from the user id and from the user groups the settings name', async () => {
    expect(await identity.principal('UALICE')).toMatchObject({
      platform: 'slack',
      userId: 'UALICE',
      displayName: 'Alice',
      roles: ['operator'],
      groups: [],
    });
    expect(await identity.principal('UBOB')).toMatchObject({
      displayName: 'Bob Builder',
      roles: ['admin'],
      groups: ['SADMINS'],
    });
    // SHUGE came without members in usergroups.list, so it was read on its own.
    expect(await identity.principal('UCAROL')).toMatchObject({
      displayName: 'UCAROL',
      roles: ['operator'],
      groups: ['SHUGE'],
    });
    expect(api.callsTo('usergroups.users.list').map((call) => call.args.usergroup)).toEqual(['SHUGE']);
  });

  it('reads names and groups once per TTL', async () => {
    await Promise.all([identity.principal('UBOB'), identity.principal('UBOB')]);
    await identity.principal('UBOB');
    expect(api.callsTo('users.info')).toHaveLength(1);
    expect(api.callsTo('usergroups.list')).toHaveLength(1);
    api.usergroups = [];
    clock.advance(60_001);
    expect(await identity.principal('UBOB')).toMatchObject({ roles: ['viewer'], groups: [] });
    expect(api.callsTo('users.info')).toHaveLength(2);
  });

  it('falls back to fewer roles, never more, when groups cannot be read', async () => {
    api.failOnce('usergroups.list', 'missing_scope');
    expect(await identity.principal('UBOB')).toMatchObject({ roles: ['viewer'], groups: [] });
    clock.advance(30_001);
    expect(await identity.principal('UBOB')).toMatchObject({ roles: ['admin'] });
  });

  it('uses the name the settings give without asking Slack', async () => {
    api.addUser({ id: 'UDAVE', name: 'dave', displayName: 'dave.k' });
    expect(await identity.principal('UDAVE')).toMatchObject({
      displayName: 'Dave (on call)',
      roles: ['operator'],
    });
    expect(api.callsTo('users.info')).toHaveLength(0);
  });

  it('shows the user id when the name cannot be read, and asks again only after 30 s', async () => {
    api.failOnce('users.info', 'ratelimited');
    expect(await identity.principal('UBOB')).toMatchObject({ displayName: 'UBOB', roles: ['admin'] });
    expect(await identity.principal('UBOB')).toMatchObject({ displayName: 'UBOB' });
    expect(api.callsTo('users.info')).toHaveLength(1);
    clock.advance(30_001);
    expect(await identity.principal('UBOB')).toMatchObject({ displayName: 'Bob Builder' });
    expect(api.callsTo('users.info')).toHaveLength(2);
  });
});
