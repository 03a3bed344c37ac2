// `opsbot grants` and `opsbot revoke`: the approval grants in force, and ending one before its time.
import type { Grant, GrantResult } from '../../agent/kernel.js';
import { describePattern } from '../../agent/policy/grant-patterns.js';
import { grantArgumentsText, grantChannelText, grantEndedText } from '../../agent/policy/grant-text.js';
import type { Principal } from '../../agent/principal.js';
import { readableUtc } from '../../agent/utc-time.js';
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
    cell(
      grant.pattern
        ? `${grantArgumentsText(grant)} but ${describePattern(grant.pattern)}`
        : grantArgumentsText(grant),
      grant.pattern ? 90 : 60,
    ),
    cell(grant.requester.displayName),
    cell(grantChannelText(grant.channel)),
    cell(grant.grantedBy.displayName),
    readableUtc(grant.until),
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

/** What `revoke` prints: what ended and what it covered, or why nothing did. */
export function formatRevoked(result: GrantResult): string {
  const text =
    result.ok && result.grant ? `${result.message} ${grantEndedText(result.grant)}` : result.message;
  return text.replace(CONTROL, ' ');
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
    io.stdout.write(`${context.redactor.redact(formatRevoked(result))}\n`);
    return result.ok ? EXIT.ok : EXIT.failed;
  } finally {
    await opsbot.close();
  }
}
