// Issue 25 through Discord: a refused call is its own "Refused" card and the run is not "Done"; a stuck run asks
// with buttons; and with the model down a typed command still runs, saying so.
import { afterEach, describe, expect, it } from 'vitest';
import { status, text, toolCalls } from '../fakes/openai-server.js';
import { ALICE, CAROL, CHANNEL, type Rig, startRig, stopRigs } from './discord-adapter-rig.js';
import { renderDiscordMessage } from './render-discord-message.js';

afterEach(stopRigs);
let rig: Rig;

function ask(author: typeof ALICE, content: string) {
  return rig.fake.sendMessage({ channelId: CHANNEL, author, content, mentionBot: true });
}

function shown(threadId: string) {
  return rig.fake.messages(threadId).map(renderDiscordMessage);
}

describe('what a Discord thread reports', () => {
  it("shows a refused restart as the bot's own Refused card, whatever the model says", async () => {
    rig = await startRig();
    rig.model.reply(
      toolCalls([{ name: 'restart_service', arguments: { service: 'api' } }]),
      text('Restarted the api (or tried to).'),
    );
    const asked = ask(CAROL, 'restart the api');
    await rig.settled();
    expect(rig.probe.count('restart_service')).toBe(0);
    const messages = shown(asked.id);
    const card = messages.find((message) => message.text.includes('was refused, and did not run'));
    expect(card?.text).toMatch(/^Refused\n/);
    expect(card?.text).toContain('Your role (viewer) may not use restart_service');
    const all = messages.map((message) => message.text).join('\n');
    expect(all).toContain('Note: restart_service was refused:');
    expect(all).toContain('Done, with a problem');
  });

  it('asks the requester, with buttons, when the model goes round in circles', async () => {
    rig = await startRig();
    const same = () => toolCalls([{ name: 'check_http', arguments: { url: 'https://api.example' } }]);
    rig.model.reply(same(), same(), same());
    const asked = ask(ALICE, 'watch the api');
    await rig.settled();
    expect(rig.probe.count('check_http')).toBe(1);
    const question = shown(asked.id).find((message) => message.text.includes("I'm not getting anywhere"));
    expect(question?.buttons).toEqual(['keep going', 'stop here', 'Cancel run']);
  });

  it('cancels a run waiting on its question with the Cancel run button, and the card says who did', async () => {
    rig = await startRig();
    const same = () => toolCalls([{ name: 'check_http', arguments: { url: 'https://api.example' } }]);
    rig.model.reply(same(), same(), same());
    const asked = ask(ALICE, 'watch the api');
    await rig.settled();
    const card = rig.fake
      .messages(asked.id)
      .find((message) => renderDiscordMessage(message).buttons.includes('Cancel run'));
    if (!card) throw new Error('no Cancel run button in the thread');
    const cancelId = (card.components as { components: { label: string; custom_id: string }[] }[])
      .flatMap((row) => row.components)
      .find((button) => button.label === 'Cancel run')!.custom_id;
    expect(cancelId).toMatch(/^cancel:run_\w+$/);
    rig.fake.clickButton({ channelId: asked.id, user: ALICE, messageId: card.id, customId: cancelId });
    await rig.settled();
    await rig.until('the cancelled card', () =>
      renderDiscordMessage(rig.fake.api.message(card.id)!).text.includes('Cancelled by'),
    );
    expect(renderDiscordMessage(rig.fake.api.message(card.id)!).buttons).toEqual([]);
    expect(
      shown(asked.id)
        .map((message) => message.text)
        .join('\n'),
    ).toContain('Cancelled by');
  });

  it('runs a typed command with the model down, and says why', async () => {
    rig = await startRig();
    rig.model.reply(status(503));
    const asked = ask(ALICE, 'check_http url=https://api.example');
    await rig.settled();
    expect(rig.probe.count('check_http')).toBe(1);
    const all = shown(asked.id)
      .map((message) => message.text)
      .join('\n');
    expect(all).toContain('https://api.example answered 200');
    expect(all).toMatch(
      /is unreachable since .* \(503 Service Unavailable\), so this ran as a typed command/,
    );
  });
});
