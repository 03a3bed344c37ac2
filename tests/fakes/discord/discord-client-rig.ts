// The real discord.js Client wired to a fresh fake Discord with one guild, one channel and Alice; for the fake's tests.
import { Client, Events, GatewayIntentBits, Partials } from 'discord.js';
import { type FakeDiscord, startFakeDiscord } from './fake-discord.js';

export const GUILD = '800000000000000001';
export const CHANNEL = '800000000000000002';
export const OPERATORS_ROLE = '800000000000000003';
export const ALICE = { id: '700000000000000001', username: 'alice' };
export const TOKEN = 'MTAwMDAwMDAwMDAwMDAwMDAx.fake.token-for-tests';
const BASE_INTENTS = [
  GatewayIntentBits.Guilds,
  GatewayIntentBits.GuildMessages,
  GatewayIntentBits.DirectMessages,
];

export interface RigOptions {
  messageContent?: boolean;
  refuseMessageContent?: boolean;
  heartbeatIntervalMs?: number;
  /** Replaces Guilds, GuildMessages and DirectMessages (MessageContent is still added by `messageContent`). */
  intents?: GatewayIntentBits[];
}

const open: Array<{ fake: FakeDiscord; client: Client }> = [];

export async function setUp(options: RigOptions = {}): Promise<{ fake: FakeDiscord; client: Client }> {
  const fake = await startFakeDiscord(
    options.heartbeatIntervalMs ? { heartbeatIntervalMs: options.heartbeatIntervalMs } : {},
  );
  fake.api
    .addGuild({ id: GUILD, name: 'ops team', channels: [{ id: CHANNEL, name: 'ops' }] })
    .addRole(GUILD, { id: OPERATORS_ROLE, name: 'operators' })
    .addMember(GUILD, ALICE, [OPERATORS_ROLE]);
  fake.gateway.refuseMessageContent = options.refuseMessageContent ?? false;
  const client = new Client({
    intents: [
      ...(options.intents ?? BASE_INTENTS),
      ...(options.messageContent ? [GatewayIntentBits.MessageContent] : []),
    ],
    // Uncached DM channels reach the client only with this partial.
    partials: [Partials.Channel],
    rest: { api: fake.api.apiUrl },
  });
  open.push({ fake, client });
  return { fake, client };
}

/** For afterEach: destroys every client, then closes its fake. */
export async function tearDown(): Promise<void> {
  for (const { fake, client } of open.splice(0)) {
    await client.destroy();
    await fake.close();
  }
}

export async function login(client: Client): Promise<void> {
  const ready = new Promise<void>((resolve) => client.once(Events.ClientReady, () => resolve()));
  await client.login(TOKEN);
  await ready;
}

export function next<T>(client: Client, event: Events.MessageCreate | Events.InteractionCreate): Promise<T> {
  return new Promise((resolve) => client.once(event, (value: unknown) => resolve(value as T)));
}
