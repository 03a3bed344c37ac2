// Which audit entries a reader asked for: since a time, of one run, by one person, about one tool, of some kinds.
import type { AuditEntry, AuditKind } from './audit-log.js';
import { matchesAnyToolPattern } from './tool-globs.js';

export interface AuditFilter {
  /** Epoch ms: entries at or after it. */
  since?: number;
  runId?: string;
  /** A person as the settings name them (`local:alice`, `slack:U123`), or their name as shown ("Alice"). */
  who?: string;
  /** A tool name or glob (`restart_*`). */
  tool?: string;
  kinds?: readonly AuditKind[];
}

export function matchesAuditFilter(entry: AuditEntry, filter: AuditFilter): boolean {
  if (filter.since !== undefined && entry.at < filter.since) return false;
  if (filter.runId !== undefined && entry.runId !== filter.runId) return false;
  if (filter.kinds !== undefined && !filter.kinds.includes(entry.kind)) return false;
  if (filter.tool !== undefined && !(entry.tool && matchesAnyToolPattern([filter.tool], entry.tool)))
    return false;
  if (filter.who !== undefined && !isPerson(entry, filter.who)) return false;
  return true;
}

function isPerson(entry: AuditEntry, who: string): boolean {
  const wanted = who.toLowerCase();
  const { key, displayName } = entry.actor;
  return key.toLowerCase() === wanted || displayName.toLowerCase() === wanted;
}
