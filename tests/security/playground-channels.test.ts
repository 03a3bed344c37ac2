// Issue 12, finding 7: channels cannot be created without end (each adds to what a page load reads).
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryStore } from '../../agent/store/memory-store.js';
import { SettingsSchema } from '../../bot/config/settings-schema.js';
import { PlaygroundChatPort } from '../../bot/playground/playground-chat-port.js';
import { ChannelLimitError, PlaygroundStore } from '../../bot/playground/playground-store.js';
import { type PlaygroundRig, startPlaygroundRig } from './helpers/playground-rig.js';

let rig: PlaygroundRig | undefined;
afterEach(async () => {
  await rig?.stop();
  rig = undefined;
});

const create = (name: string) =>
  fetch(`${rig!.url}/api/channels`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name, user: 'alice' }),
  });

describe('playground channel limit', () => {
  it('is 50 by default, and set by playground.max_channels', () => {
    expect(SettingsSchema.parse({}).playground.max_channels).toBe(50);
    expect(SettingsSchema.parse({ playground: { max_channels: 5 } }).playground.max_channels).toBe(5);
    expect(SettingsSchema.safeParse({ playground: { max_channels: 0 } }).success).toBe(false);
  });

  it('attack: creating channels in a loop is refused with 409 once playground.max_channels exist', async () => {
    rig = await startPlaygroundRig({ maxChannels: 5 });
    // #ops is one of the five.
    const statuses: number[] = [];
    for (let index = 0; index < 8; index++) statuses.push((await create(`spam-${index}`)).status);
    expect(statuses).toEqual([201, 201, 201, 201, 409, 409, 409, 409]);
    const refused = await create('spam-99');
    expect(((await refused.json()) as { error: string }).error).toBe(
      'The playground already has 5 channels, its limit (playground.max_channels in opsbot.yaml). ' +
        'Use one of them, or raise the limit.',
    );
    expect((await rig.store.channels()).length).toBe(5);
    // Posting in a channel that exists still works at the limit.
    await expect(rig.store.ensureChannel('spam-0')).resolves.toMatchObject({ id: 'spam-0' });
  });

  it('attack: 40 concurrent creations cannot race past the limit', async () => {
    // Straight at the store, so the creations interleave at every await (over HTTP each runs almost whole).
    const playground = new PlaygroundStore(new MemoryStore(), undefined, { maxChannels: 10 });
    const results = await Promise.allSettled(
      Array.from({ length: 40 }, (_, index) => playground.ensureChannel(`race-${index}`)),
    );
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(10);
    expect(results.filter((result) => result.status === 'rejected')).toHaveLength(30);
    expect((await playground.channels()).length).toBe(10);
  });

  it("counts a patrol's channel: a run posting to a new channel past the limit fails with the reason", async () => {
    const playground = new PlaygroundStore(new MemoryStore(), undefined, { maxChannels: 2 });
    const port = new PlaygroundChatPort(playground, 'opsbot');
    await port.post({ platform: 'playground', channelId: 'ops' }, { kind: 'text', text: 'hello' });
    await port.post({ platform: 'playground', channelId: 'patrol-disk' }, { kind: 'text', text: 'report' });
    await expect(
      port.post({ platform: 'playground', channelId: 'patrol-cpu' }, { kind: 'text', text: 'report' }),
    ).rejects.toBeInstanceOf(ChannelLimitError);
    // A channel that already exists is fine.
    await port.post({ platform: 'playground', channelId: 'patrol-disk' }, { kind: 'text', text: 'again' });
    expect((await playground.channels()).map((channel) => channel.id)).toEqual(['ops', 'patrol-disk']);
  });
});
