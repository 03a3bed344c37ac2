// `opsbot grants` and `opsbot revoke`: the approval grants in force, and ending one before its time.
import type { Grant } from '../../agent/kernel.js';
import type { Principal } from '../../agent/principal.js';
import { formatClock } from '../../agent/run-state-words.js';
import { type CliContext, terminalOpsbot } from './cli-context.js';
import type { CliIo } from './cli-io.js';
import { EXIT } from './run-task.js';

// Model and tool text can carry terminal escape sequences; a printed grant must not run them.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;

function cell(text: string, max = 60): string {
  const clean = text.replace(CONTROL, ' ');
  return clean.length > max ? `${clean.slice(0, max - 1)}…` : clean;
}

/** One line per live grant: id, tool, arguments, requester, channel, who granted it, and until when. */
export function formatGrants(grants: readonly Grant[]): string {
  if (grants.length === 0) return 'No approval grants in force.';
  const header = ['grant', 'tool', 'arguments', 'requester', 'channel', 'by', 'until'];
  const rows = grants.map((grant) => [
    grant.id,
    cell(grant.tool),
    cell(JSON.stringify(grant.displayArgs ?? JSON.parse(grant.args))),
    cell(grant.requester.displayName),
    cell(
      grant.channel.channelName
        ? `#${grant.channel.channelName}`
        : `${grant.channel.platform}:${grant.channel.channelId}`,
    ),
    cell(grant.grantedBy.displayName),
    `${new Date(grant.until).toISOString().replace('T', ' ').slice(0, 16)} UTC`,
  ]);
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => row[column]!.length)),
  );
  const line = (row: string[]) =>
    row
      .map((text, column) => (column === row.length - 1 ? text : text.padEnd(widths[column]!)))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)].join('\n');
}

export async function grantsCommand(context: CliContext, io: CliIo): Promise<number> {
  const opsbot = await terminalOpsbot(context, () => {});
  try {
    io.stdout.write(`${context.redactor.redact(formatGrants(await opsbot.kernel.listGrants()))}\n`);
    return EXIT.ok;
  } finally {
    await opsbot.close();
  }
}

/** Exit 0 when the grant was ended, 1 when it was refused or there is no such grant. */
export async function revokeCommand(
  context: CliContext,
  io: CliIo,
  grantId: string,
  principal: Principal,
): Promise<number> {
  const opsbot = await terminalOpsbot(context, () => {});
  try {
    const result = await opsbot.kernel.revokeGrant(grantId, principal);
    const until =
      result.ok && result.grant ? ` It would have lasted until ${formatClock(result.grant.until)}.` : '';
    io.stdout.write(`${result.message}${until}\n`);
    return result.ok ? EXIT.ok : EXIT.failed;
  } finally {
    await opsbot.close();
  }
}
