// Discord gateway payloads into ChatEvent pieces: mentions get a thread, thread replies and DMs are handled,
// the bot's own messages, other bots and system messages are not, and interactions are read with zod.
import { describe, expect, it } from 'vitest';
import { encodeButton } from '../../bot/chat/button-codec.js';
import {
  type DiscordPlace,
  normalizeDiscordInteraction,
  normalizeDiscordMessage,
} from '../../bot/discord/discord-normalize.js';

const BOT = '900000000000000001';
const self = { botUserId: BOT, allowedBotIds: new Set(['900000000000000002']) };
const alice = { id: '100000000000000001', username: 'alice', global_name: 'Alice' };

function message(extra: Record<string, unknown> = {}) {
  return {
    id: '700000000000000001',
    channel_id: '500000000000000001',
    guild_id: '400000000000000001',
    author: alice,
    member: { nick: null, roles: ['300000000000000001'] },
    content: `<@${BOT}> is the api up?`,
    mentions: [{ id: BOT, username: 'opsbot' }],
    type: 0,
    timestamp: '2026-01-01T12:00:00.000Z',
    ...extra,
  };
}

describe('normalizeDiscordMessage', () => {
  it('turns a mention in a channel into a task that needs a thread named after it', () => {
    const result = normalizeDiscordMessage(message(), { kind: 'text', name: 'ops' }, self);
    expect(result).toEqual({
      ok: true,
      value: {
        eventId: '700000000000000001',
        author: { id: alice.id, username: 'alice', globalName: 'Alice' },
        member: { nick: null, roleIds: ['300000000000000001'] },
        conversation: {
          platform: 'discord',
          channelId: '500000000000000001',
          channelName: 'ops',
          workspaceId: '400000000000000001',
        },
        text: 'is the api up?',
        mentioned: true,
        direct: false,
        startThread: { messageId: '700000000000000001', name: 'is the api up?' },
      },
    });
  });

  it('reads a reply in a thread as that thread, mentioned or not, and a DM as direct', () => {
    const reply = normalizeDiscordMessage(
      message({ channel_id: '600000000000000001', content: 'prod', mentions: [] }),
      { kind: 'thread', parentId: '500000000000000001', parentName: 'ops' },
      self,
    );
    expect(reply.ok && reply.value.conversation).toEqual({
      platform: 'discord',
      channelId: '500000000000000001',
      threadId: '600000000000000001',
      channelName: 'ops',
      workspaceId: '400000000000000001',
    });
    expect(reply.ok && reply.value.mentioned).toBe(false);
    expect(reply.ok && reply.value.startThread).toBeUndefined();
    const dm = normalizeDiscordMessage(
      message({ guild_id: undefined, member: undefined, content: 'disk_usage paths=/', mentions: [] }),
      { kind: 'dm' },
      self,
    );
    expect(dm.ok && dm.value).toMatchObject({ direct: true, text: 'disk_usage paths=/' });
  });

  it('ignores its own messages, other bots, system messages and channel chatter without a mention', () => {
    const skipped = (raw: unknown, place: DiscordPlace = { kind: 'text' }) => {
      const result = normalizeDiscordMessage(raw, place, self);
      return result.ok ? 'handled' : result.skip;
    };
    expect(skipped(message({ author: { id: BOT, username: 'opsbot', bot: true } }))).toBe(
      "the bot's own message",
    );
    expect(skipped(message({ author: { id: '900000000000000009', username: 'other', bot: true } }))).toBe(
      'a message from another bot',
    );
    expect(skipped(message({ author: { id: '900000000000000002', username: 'friend', bot: true } }))).toBe(
      'handled',
    );
    expect(skipped(message({ type: 21 }))).toBe('a system message');
    expect(skipped(message({ mentions: [], content: 'lunch?' }))).toBe('a channel message without a mention');
    expect(skipped({ id: 'not-a-snowflake' })).toBe('a message in an unexpected shape');
    // Without MessageContent a thread reply that does not mention the bot arrives blank: nothing to answer.
    const thread = { kind: 'thread' as const, parentId: '500000000000000009' };
    expect(skipped(message({ mentions: [], content: '' }), thread)).toBe(
      'a message without content (no mention, no intent)',
    );
    expect(skipped(message({ content: `<@${BOT}>` }), thread)).toBe('handled');
  });

  it('strips nickname mentions too, and names a thread with at most 100 characters', () => {
    const result = normalizeDiscordMessage(
      message({ content: `<@!${BOT}> ${'check '.repeat(40)}` }),
      { kind: 'text' },
      self,
    );
    expect(result.ok && result.value.text.startsWith('check check')).toBe(true);
    expect(result.ok && result.value.startThread?.name.length).toBeLessThanOrEqual(100);
  });
});

describe('normalizeDiscordInteraction', () => {
  const base = {
    id: '800000000000000001',
    application_id: '910000000000000001',
    token: 'interaction-token',
    channel_id: '500000000000000001',
    guild_id: '400000000000000001',
    member: { nick: 'Al', roles: [], user: alice },
    version: 1,
    entitlements: [],
  };

  it('reads /ops with its task option, from a guild member or a DM user', () => {
    const command = normalizeDiscordInteraction({
      ...base,
      type: 2,
      data: { id: '1', name: 'ops', type: 1, options: [{ name: 'task', type: 3, value: 'status' }] },
    });
    expect(command.ok && command.value).toMatchObject({
      eventId: '800000000000000001',
      channelId: '500000000000000001',
      member: { nick: 'Al' },
      input: { kind: 'command', text: 'status' },
    });
    const { member: _member, ...dmBase } = base;
    const inDm = normalizeDiscordInteraction({
      ...dmBase,
      user: alice,
      type: 2,
      data: { name: 'ops', options: [] },
    });
    expect(inDm.ok && inDm.value).toMatchObject({
      author: { id: alice.id },
      input: { kind: 'command', text: '' },
    });
  });

  it('decodes a button into its intent, and skips buttons that are not opsbot’s', () => {
    const approve = encodeButton({ action: 'approve', approvalId: 'apv_0123456789abcdefghijkl' });
    const click = normalizeDiscordInteraction({
      ...base,
      type: 3,
      data: { custom_id: approve, component_type: 2 },
    });
    expect(click.ok && click.value.input).toEqual({
      kind: 'button',
      intent: { action: 'approve', approvalId: 'apv_0123456789abcdefghijkl' },
    });
    const foreign = normalizeDiscordInteraction({
      ...base,
      type: 3,
      data: { custom_id: 'x:y', component_type: 2 },
    });
    expect(foreign).toEqual({ ok: false, skip: 'a button that is not one of opsbot’s' });
  });

  it('reads the tool off the card a Deny button sits on, for the modal title only', () => {
    const deny = encodeButton({ action: 'deny', approvalId: 'apv_1' });
    const card = {
      embeds: [
        { title: 'Approval needed: restart_service', fields: [{ name: 'Tool', value: '`restart_service`' }] },
      ],
    };
    const click = normalizeDiscordInteraction({
      ...base,
      type: 3,
      data: { custom_id: deny, component_type: 2 },
      message: card,
    });
    expect(click.ok && click.value.input).toEqual({
      kind: 'button',
      intent: { action: 'deny', approvalId: 'apv_1' },
      tool: 'restart_service',
    });
    // A card in an unexpected shape costs the title, never the click.
    const odd = normalizeDiscordInteraction({
      ...base,
      type: 3,
      data: { custom_id: deny, component_type: 2 },
      message: { embeds: 'x' },
    });
    expect(odd.ok && odd.value.input).toEqual({
      kind: 'button',
      intent: { action: 'deny', approvalId: 'apv_1' },
    });
  });

  it('reads a submitted deny modal: the reason trimmed, absent when empty; other modals are skipped', () => {
    const submit = (customId: string, value?: string) =>
      normalizeDiscordInteraction({
        ...base,
        type: 5,
        data: {
          custom_id: customId,
          components: [{ type: 1, id: 1, components: [{ type: 4, id: 2, custom_id: 'reason', value }] }],
        },
      });
    const deny = encodeButton({ action: 'deny', approvalId: 'apv_1' });
    expect(
      submit(deny, '  not during the freeze \n').ok && submit(deny, '  not during the freeze \n'),
    ).toMatchObject({
      value: {
        eventId: base.id,
        member: { nick: 'Al' },
        input: { kind: 'deny_reason', approvalId: 'apv_1', reason: 'not during the freeze' },
      },
    });
    for (const empty of ['', '   \n ', undefined])
      expect(submit(deny, empty)).toMatchObject({
        ok: true,
        value: { input: { kind: 'deny_reason', approvalId: 'apv_1' } },
      });
    const blank = submit(deny, ' ');
    expect(blank.ok && 'reason' in blank.value.input).toBe(false);
    expect(submit('approve:apv_1', 'x')).toEqual({ ok: false, skip: 'a modal that is not one of opsbot’s' });
    expect(submit('deny:../../x', 'x')).toEqual({ ok: false, skip: 'a modal that is not one of opsbot’s' });
    expect(submit(deny, 'x'.repeat(4001)).ok).toBe(false);
  });
});
