// `opsbot audit [--since 24h|2026-11-30] [--json]`: prints or exports the audit log.

import { AuditLog, formatAuditEntries } from '../../agent/policy/audit-log.js';
import { parseDuration } from '../../agent/policy/duration.js';
import { openStore } from '../../agent/store/open-store.js';
import type { CliContext } from './cli-context.js';
import type { CliIo } from './cli-io.js';
import { EXIT } from './run-task.js';

/** `24h`, `15m` (ago) or an ISO date/time; undefined means from the beginning. */
export function parseSince(text: string | undefined, now: number): number | undefined {
  if (text === undefined) return undefined;
  if (/^\d+(ms|s|m|h|d)$/.test(text)) return now - parseDuration(text);
  const at = Date.parse(text);
  if (Number.isNaN(at))
    throw new Error(
      `--since takes a duration such as 24h or 7d, or a date such as 2026-11-30; got "${text}"`,
    );
  return at;
}

export async function auditCommand(
  context: CliContext,
  io: CliIo,
  options: { since?: string; json?: boolean },
): Promise<number> {
  let since: number | undefined;
  try {
    since = parseSince(options.since, Date.now());
  } catch (error) {
    io.stderr.write(`opsbot: ${(error as Error).message}\n`);
    return EXIT.usage;
  }
  const store = await openStore(context.environment.OPSBOT_STORE_URL, { logger: context.logger });
  try {
    const entries = await new AuditLog(store).list(since === undefined ? {} : { since });
    if (options.json) {
      for (const entry of entries) io.stdout.write(`${JSON.stringify(entry)}\n`);
    } else if (entries.length === 0) {
      io.stdout.write('No audit entries.\n');
    } else {
      io.stdout.write(`${formatAuditEntries(entries)}\n`);
    }
    return EXIT.ok;
  } finally {
    await store.close();
  }
}
