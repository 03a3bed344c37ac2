// `opsbot discord register [--guild <id>]`: registers /ops with Discord and prints what changed.
import { errorMessage } from '../../agent/errors.js';
import type { CliContext } from './cli-context.js';
import type { CliIo } from './cli-io.js';
import { EXIT } from './run-task.js';

export async function discordRegisterCommand(
  context: CliContext,
  io: CliIo,
  guildId: string | undefined,
): Promise<number> {
  const { DISCORD_TOKEN, DISCORD_APPLICATION_ID, DISCORD_API_URL } = context.environment;
  if (!DISCORD_TOKEN || !DISCORD_APPLICATION_ID) {
    io.stderr.write(
      'opsbot: set DISCORD_TOKEN and DISCORD_APPLICATION_ID (the bot token and the application id from the Discord developer portal)\n',
    );
    return EXIT.usage;
  }
  if (guildId !== undefined && !/^\d{17,20}$/.test(guildId)) {
    io.stderr.write(
      `opsbot: --guild must be a server id (a number such as 123456789012345678), not "${guildId}"\n`,
    );
    return EXIT.usage;
  }
  try {
    // discord.js is loaded only for this command.
    const { registerOpsCommand } = await import('../discord/register-commands.js');
    const result = await registerOpsCommand({
      token: DISCORD_TOKEN,
      applicationId: DISCORD_APPLICATION_ID,
      ...(DISCORD_API_URL ? { apiUrl: DISCORD_API_URL } : {}),
      ...(guildId ? { guildId } : {}),
    });
    const where = result.scope === 'guild' ? `in server ${guildId}` : 'globally';
    if (result.changes.length === 0) {
      io.stdout.write(`/ops is already registered ${where}; nothing changed.\n`);
    } else {
      io.stdout.write(`Registered /ops ${where}: ${result.changes.join(', ')}.\n`);
    }
    if (result.scope === 'global') {
      io.stdout.write(
        'Global commands can take a while to appear in every server; use --guild <id> to try it at once.\n',
      );
    }
    return EXIT.ok;
  } catch (error) {
    io.stderr.write(
      `opsbot: could not register /ops with Discord: ${context.redactor.redact(errorMessage(error))}\n`,
    );
    return EXIT.failed;
  }
}
