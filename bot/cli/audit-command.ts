// `opsbot audit [--since 24h|2026-11-30] [--run <id>] [--who <person>] [--tool <name|glob>] [--kind <k,k>]
// [--all] [--json]`: prints or exports the audit log. Printed, a patrol run that changed nothing since the
// patrol's run before it is folded into one line (--all lists every line); --json exports every matching entry.

import { didYouMean } from '../../agent/did-you-mean.js';
import { type AuditFilter, matchesAuditFilter } from '../../agent/policy/audit-filter.js';
import { type AuditKind, AuditKindSchema, AuditLog } from '../../agent/policy/audit-log.js';
import { foldUnchangedPatrolRuns } from '../../agent/policy/audit-patrol-summary.js';
import { formatAuditRows } from '../../agent/policy/audit-table.js';
import { parseDuration } from '../../agent/policy/duration.js';
import { openStore } from '../../agent/store/open-store.js';
import type { CliContext } from './cli-context.js';
import type { CliIo } from './cli-io.js';
import { EXIT } from './run-task.js';

export interface AuditOptions {
  since?: string;
  run?: string;
  who?: string;
  tool?: string;
  kind?: string;
  all?: boolean;
  json?: boolean;
}

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

/** `--kind refusal,approval_decided`, each a kind the log writes. */
export function parseKinds(text: string | undefined): AuditKind[] | undefined {
  if (text === undefined) return undefined;
  return text.split(',').map((word) => {
    const kind = AuditKindSchema.safeParse(word.trim());
    if (kind.success) return kind.data;
    throw new Error(
      `--kind "${word.trim()}" is not an audit kind${didYouMean(word.trim(), AuditKindSchema.options)}; the kinds are ${AuditKindSchema.options.join(', ')}`,
    );
  });
}

export async function auditCommand(context: CliContext, io: CliIo, options: AuditOptions): Promise<number> {
  let filter: AuditFilter;
  try {
    const since = parseSince(options.since, Date.now());
    const kinds = parseKinds(options.kind);
    filter = {
      ...(since !== undefined ? { since } : {}),
      ...(options.run ? { runId: options.run } : {}),
      ...(options.who ? { who: options.who } : {}),
      ...(options.tool ? { tool: options.tool } : {}),
      ...(kinds ? { kinds } : {}),
    };
  } catch (error) {
    io.stderr.write(`opsbot: ${(error as Error).message}\n`);
    return EXIT.usage;
  }
  const store = await openStore(context.environment.OPSBOT_STORE_URL, { logger: context.logger });
  try {
    const listed = await new AuditLog(store).list(filter.since === undefined ? {} : { since: filter.since });
    const entries = listed.filter((entry) => matchesAuditFilter(entry, filter));
    if (options.json) {
      for (const entry of entries) io.stdout.write(`${JSON.stringify(entry)}\n`);
    } else if (entries.length === 0) {
      io.stdout.write(listed.length === 0 ? 'No audit entries.\n' : 'No audit entries match.\n');
    } else {
      const rows = options.all
        ? entries.map((entry) => ({ kind: 'entry' as const, entry }))
        : foldUnchangedPatrolRuns(entries);
      io.stdout.write(`${formatAuditRows(rows)}\n`);
    }
    return EXIT.ok;
  } finally {
    await store.close();
  }
}
