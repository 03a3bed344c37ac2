// Issue 25, defect 1: a danger call the channel's rules refuse shows in the Slack thread as the bot's own result
// card naming the rule, and the run ends "Done, with a problem", whatever the model says afterwards.
import { afterEach, describe, expect, it } from 'vitest';
import { SettingsSchema } from '../../bot/config/settings-schema.js';
import { text, toolCalls } from '../fakes/openai-server.js';
import { CHANNEL, SlackHarness, settings, USERS } from './slack-harness.js';

describe('a refused action in Slack', () => {
  let h: SlackHarness;
  afterEach(async () => h?.close());

  it('posts the refusal as its own card naming the rule, and ends Done, with a problem', async () => {
    h = await SlackHarness.start({
      settings: SettingsSchema.parse({
        permissions: {
          ...settings.permissions,
          channels: { '#ops': { risks: ['read', 'write', 'danger'] }, '*': { risks: ['read', 'write'] } },
        },
      }),
    });
    h.api.channels.set(CHANNEL, 'general');
    h.openai.reply(
      toolCalls([{ name: 'restart_service', arguments: { service: 'api' } }]),
      toolCalls([{ name: 'restart_service', arguments: { service: 'worker' } }]),
      text('Restarted the api (or tried to).'),
    );
    const mention = await h.mention(USERS.alice, 'restart the api');
    await h.settled();

    expect(h.probe.count('restart_service')).toBe(0);
    const shown = h.threadText(mention.ts);
    const cards = shown.match(/restart_service was refused, and did not run: [^\n]*/g) ?? [];
    // Tried twice by the model (for two services), told once in the thread: the rule is the same.
    expect(cards).toHaveLength(1);
    expect(cards[0]).toContain('danger tools are not allowed in #general. They are allowed in #ops.');
    // Its heading says what happened: refused, not failed.
    const card = h
      .thread(mention.ts)
      .find((message) => message.text.includes('was refused, and did not run'));
    expect(card?.text.split('\n')[0]).toBe('Refused');
    expect(shown).toContain('Restarted the api (or tried to).');
    expect(shown).toMatch(/Note: restart_service was refused: /);
    expect(shown).toContain('Done, with a problem');
    expect(shown).not.toMatch(/✅ Done(?!, with)/);
  });
});
