// Discord has no private reply to a message: a reply written to one person ("you") names that person.
import { afterEach, describe, expect, it } from 'vitest';
import { ALICE, CHANNEL, type Rig, startRig, stopRigs } from './discord-adapter-rig.js';
import { renderDiscordMessage } from './render-discord-message.js';

afterEach(stopRigs);
let rig: Rig;

describe('Discord replies to a message', () => {
  it('name the person they answer in a shared channel, and stay plain in a DM', async () => {
    rig = await startRig();
    rig.fake.sendMessage({ channelId: CHANNEL, author: ALICE, content: 'permissions', mentionBot: true });
    const dm = rig.fake.api.dmChannel(ALICE);
    rig.fake.sendMessage({ channelId: dm.id, author: ALICE, content: 'permissions' });
    await rig.settled();
    const written = rig
      .messageWrites()
      .flatMap((call) => (call.body as { embeds?: { description?: string }[] }).embeds ?? [])
      .map((embed) => embed.description ?? '')
      .filter((description) => description.includes('Tools you can use here'));
    expect(written).toHaveLength(2);
    // In the channel (a thread everyone reads) the reply says whom it answers; in the DM it need not.
    expect(written.filter((description) => description.startsWith('alice: Roles: operator'))).toHaveLength(1);
    const inDm = rig.fake.messages(dm.id).map((message) => renderDiscordMessage(message).text);
    expect(inDm.join('\n')).toContain('Tools you can use here');
    expect(inDm.join('\n')).not.toContain('alice: ');
    expect(rig.model.requests).toHaveLength(0);
  });
});
