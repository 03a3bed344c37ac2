// `opsbot discord register` through the real discord.js REST client, against a small Discord REST double on
// 127.0.0.1 that keeps the registered commands: created once, then nothing changes; strays are removed.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { OPS_COMMAND, registerOpsCommand } from '../../bot/discord/register-commands.js';

const APP = '910000000000000001';
const GUILD = '400000000000000001';

interface CommandsDouble {
  apiUrl: string;
  calls: string[];
  commands: Map<string, unknown[]>;
  server: Server;
}

async function startDouble(): Promise<CommandsDouble> {
  const calls: string[] = [];
  const commands = new Map<string, unknown[]>();
  const body = (request: IncomingMessage) =>
    new Promise<string>((resolve) => {
      let text = '';
      request.on('data', (chunk) => (text += chunk));
      request.on('end', () => resolve(text));
    });
  const server = createServer(async (request, response) => {
    const path = (request.url ?? '').split('?')[0]!;
    calls.push(`${request.method} ${path} ${request.headers.authorization ?? ''}`);
    const match = /^\/api\/v10\/applications\/(\d+)(?:\/guilds\/(\d+))?\/commands$/.exec(path);
    if (!match) {
      response
        .writeHead(404, { 'content-type': 'application/json' })
        .end('{"message":"Unknown route","code":0}');
      return;
    }
    const scope = match[2] ?? 'global';
    if (request.method === 'PUT') {
      const sent = JSON.parse(await body(request)) as Record<string, unknown>[];
      commands.set(
        scope,
        sent.map((command, index) => ({
          id: `${index + 1}`,
          application_id: match[1],
          version: '1',
          ...command,
        })),
      );
    }
    response
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify(commands.get(scope) ?? []));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { apiUrl: `http://127.0.0.1:${port}/api`, calls, commands, server };
}

// Discord refuses the whole registration when a description is longer.
it('keeps the descriptions of /ops within the 100 characters Discord accepts', () => {
  expect(OPS_COMMAND.description.length).toBeLessThanOrEqual(100);
  for (const option of OPS_COMMAND.options) expect(option.description.length).toBeLessThanOrEqual(100);
});

let double: CommandsDouble | undefined;
afterEach(async () => {
  const open = double;
  if (open) await new Promise((resolve) => open.server.close(resolve));
  double = undefined;
});

describe('registering /ops', () => {
  it('creates /ops in a server by bulk overwrite, then finds nothing to change', async () => {
    double = await startDouble();
    const options = { token: 'bot-token', applicationId: APP, apiUrl: double.apiUrl, guildId: GUILD };
    expect(await registerOpsCommand(options)).toEqual({ scope: 'guild', changes: ['created /ops'] });
    expect(double.calls).toEqual([
      `GET /api/v10/applications/${APP}/guilds/${GUILD}/commands Bot bot-token`,
      `PUT /api/v10/applications/${APP}/guilds/${GUILD}/commands Bot bot-token`,
    ]);
    expect(double.commands.get(GUILD)).toEqual([
      expect.objectContaining({ name: 'ops', options: OPS_COMMAND.options }),
    ]);
    expect(await registerOpsCommand(options)).toEqual({ scope: 'guild', changes: [] });
    expect(double.calls.filter((call) => call.startsWith('PUT'))).toHaveLength(1);
  });

  it('registers globally, updating a changed /ops and removing commands it does not own', async () => {
    double = await startDouble();
    double.commands.set('global', [
      { id: '1', name: 'ops', description: 'old text', options: [] },
      { id: '2', name: 'deploy', description: 'someone else’s' },
    ]);
    const result = await registerOpsCommand({ token: 't', applicationId: APP, apiUrl: double.apiUrl });
    expect(result).toEqual({ scope: 'global', changes: ['updated /ops', 'removed /deploy'] });
    expect(double.commands.get('global')).toEqual([
      expect.objectContaining({ name: 'ops', description: OPS_COMMAND.description }),
    ]);
  });
});
