// The Discord ChatPort passes the shared ChatPort contract, through the real discord.js REST client and the fake.
import { REST } from 'discord.js';
import { ManualClock } from '../../agent/clock.js';
import { DiscordChatPort } from '../../bot/discord/discord-chat-port.js';
import { runChatPortContract } from '../chat-port-contract.js';
import { startFakeDiscord } from '../fakes/discord/fake-discord.js';
import { renderDiscordMessage } from './render-discord-message.js';

const GUILD = '800000000000000001';
const CHANNEL = '800000000000000002';

runChatPortContract('discord', async () => {
  const fake = await startFakeDiscord();
  fake.api.addGuild({ id: GUILD, name: 'ops team', channels: [{ id: CHANNEL, name: 'ops' }] });
  const rest = new REST({ api: fake.api.apiUrl }).setToken('MTAw.fake.token');
  const port = new DiscordChatPort({ rest, clock: new ManualClock(Date.UTC(2026, 0, 1, 12, 0)) });
  return {
    port,
    channel: { platform: 'discord', channelId: CHANNEL, channelName: 'ops' },
    async inspect(ref) {
      const message = fake.api.message(ref.messageId);
      if (!message) throw new Error(`the fake has no message ${ref.messageId}`);
      return renderDiscordMessage(message);
    },
    async messages(conversation) {
      return fake.messages(conversation.threadId ?? conversation.channelId).map(renderDiscordMessage);
    },
    close: () => fake.close(),
  };
});
