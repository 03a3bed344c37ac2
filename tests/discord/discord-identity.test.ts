// Discord identities: roles by user id and by server role, from the event alone; names as people see them.
import { describe, expect, it } from 'vitest';
import { PermissionSettingsSchema } from '../../agent/policy/permission-settings.js';
import { discordPrincipal } from '../../bot/discord/discord-identity.js';

const permissions = PermissionSettingsSchema.parse({
  roles: {
    operator: { tools: ['*'], risks: ['read', 'write', 'danger'] },
    admin: { tools: ['*'], risks: ['read', 'write', 'danger'], approve: ['*'], admin: true },
  },
  identities: {
    'discord:111111111111111111': { roles: ['admin'], display_name: 'Dana' },
    'discord_role:222222222222222222': { roles: ['operator'] },
  },
});

describe('discordPrincipal', () => {
  it('gives roles from the user id, from a server role, and the default role otherwise', () => {
    expect(discordPrincipal(permissions, { id: '111111111111111111', username: 'dana' }).roles).toEqual([
      'admin',
    ]);
    expect(
      discordPrincipal(
        permissions,
        { id: '333333333333333333', username: 'olga' },
        { roleIds: ['222222222222222222'] },
      ).roles,
    ).toEqual(['operator']);
    expect(discordPrincipal(permissions, { id: '444444444444444444', username: 'vic' }).roles).toEqual([
      'viewer',
    ]);
  });

  it('names people as the server shows them: nickname, then display name, then user name', () => {
    const author = { id: '555555555555555555', username: 'sam_1', globalName: 'Sam' };
    expect(discordPrincipal(permissions, author, { nick: 'Sammy', roleIds: [] }).displayName).toBe('Sammy');
    expect(discordPrincipal(permissions, author).displayName).toBe('Sam');
    expect(discordPrincipal(permissions, { id: author.id, username: 'sam_1' }).displayName).toBe('sam_1');
  });

  it('keeps the platform identity, so the same person is the same principal across events', () => {
    const principal = discordPrincipal(permissions, { id: '111111111111111111', username: 'dana' });
    expect(principal).toMatchObject({ platform: 'discord', userId: '111111111111111111', groups: [] });
  });
});
