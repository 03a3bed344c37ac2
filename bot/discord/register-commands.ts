// `opsbot discord register`: puts the one `/ops` command in place by bulk overwrite, idempotently, and says
// what changed. Guild commands apply at once; global commands can take a while to reach every server.
import { REST, Routes } from 'discord.js';
import { z } from 'zod';

/**
 * `/ops <task>`: the same text Slack's `/ops` takes — help, status [run], cancel <run>, whoami, permissions, grants,
 * revoke <grant>, or a task. Discord allows descriptions of at most 100 characters.
 */
export const OPS_COMMAND = {
  name: 'ops',
  type: 1,
  description:
    'Ask opsbot: a task, or help, status [run], cancel <run>, whoami, permissions, grants, revoke <grant>',
  options: [
    {
      type: 3,
      name: 'task',
      description: 'What to do, e.g. "is the api up?", or help, status, cancel <run>, whoami, permissions',
      required: false,
      max_length: 2000,
    },
  ],
} as const;

const RegisteredSchema = z.array(
  z.object({
    id: z.string(),
    name: z.string(),
    type: z.number().optional(),
    description: z.string(),
    options: z.array(z.record(z.string(), z.unknown())).optional(),
  }),
);

export interface RegisterOptions {
  token: string;
  applicationId: string;
  /** DISCORD_API_URL: the REST base, https://discord.com/api by default. */
  apiUrl?: string;
  /** Register in one server (at once), rather than globally (which can take a while). */
  guildId?: string;
}

export interface RegisterResult {
  scope: 'guild' | 'global';
  /** What the overwrite changed, in words: created, updated, removed; empty when nothing did. */
  changes: string[];
}

export async function registerOpsCommand(options: RegisterOptions): Promise<RegisterResult> {
  const rest = new REST({ ...(options.apiUrl ? { api: options.apiUrl } : {}) }).setToken(options.token);
  const route = options.guildId
    ? Routes.applicationGuildCommands(options.applicationId, options.guildId)
    : Routes.applicationCommands(options.applicationId);
  const before = RegisteredSchema.parse(await rest.get(route));
  const changes = describeChanges(before);
  if (changes.length > 0) await rest.put(route, { body: [OPS_COMMAND] });
  return { scope: options.guildId ? 'guild' : 'global', changes };
}

function describeChanges(before: z.infer<typeof RegisteredSchema>): string[] {
  const changes: string[] = [];
  const current = before.find((command) => command.name === OPS_COMMAND.name);
  if (!current) changes.push('created /ops');
  else if (!sameCommand(current)) changes.push('updated /ops');
  for (const other of before) if (other.name !== OPS_COMMAND.name) changes.push(`removed /${other.name}`);
  return changes;
}

function sameCommand(current: z.infer<typeof RegisteredSchema>[number]): boolean {
  const option = current.options?.[0];
  return (
    current.description === OPS_COMMAND.description &&
    current.options?.length === 1 &&
    option?.name === 'task' &&
    option.type === 3 &&
    option.description === OPS_COMMAND.options[0].description &&
    (option.required ?? false) === false
  );
}
