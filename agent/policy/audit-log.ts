// The audit log: an append-only record in the Store of every request, decision, refusal, execution and outcome.
import { z } from 'zod';
import { type Clock, systemClock } from '../clock.js';
import { ConversationSchema } from '../conversation.js';
import { PlatformSchema, type Principal, personKey } from '../principal.js';
import type { Store } from '../store/store.js';
import { storeKeys } from '../store/store-keys.js';

export const AuditKindSchema = z.enum([
  'request',
  'decision',
  'refusal',
  'execution',
  'outcome',
  'approval_requested',
  'approval_decided',
  'approval_refused',
  'approval_expired',
  /** An approver approved a call for a while; a call run under the grant; the grant ended early. */
  'grant_created',
  'grant_used',
  'grant_revoked',
  'cancel',
  'rate_limited',
  'thread_busy',
  /** A person ran, acked, snoozed, paused or resumed a patrol, or was refused. */
  'patrol_action',
  /** A person acked an alert group or asked for its investigation, or was refused. */
  'alert_action',
  /** A stored line that no longer matches the schema; kept visible rather than dropped from an audit trail. */
  'unreadable',
]);
export type AuditKind = z.infer<typeof AuditKindSchema>;

export const AuditActorSchema = z.object({
  /** The person as the settings name them (`local:alice` in the playground and the CLI alike, `slack:U123`). */
  key: z.string(),
  displayName: z.string(),
  /** Where they acted: `playground`, `cli`, `slack`… Entries written before it was kept have none. */
  surface: PlatformSchema.optional(),
});
export type AuditActor = z.infer<typeof AuditActorSchema>;

export const AuditEntrySchema = z.object({
  at: z.number(),
  kind: AuditKindSchema,
  actor: AuditActorSchema,
  runId: z.string().optional(),
  approvalId: z.string().optional(),
  tool: z.string().optional(),
  /** Already redacted by the caller: the log keeps what it is given. */
  args: z.unknown().optional(),
  conversation: ConversationSchema.optional(),
  channelName: z.string().optional(),
  /** allow, deny, needs_approval, approved, denied, expired, ok, failed, … */
  outcome: z.string().optional(),
  reason: z.string().optional(),
});
export type AuditEntry = z.infer<typeof AuditEntrySchema>;
export type AuditEntryInput = Omit<AuditEntry, 'at'> & { at?: number };

/** One person is one actor across surfaces: the configured identity, with the surface they used beside it. */
export function auditActor(principal: Pick<Principal, 'platform' | 'userId' | 'displayName'>): AuditActor {
  return { key: personKey(principal), displayName: principal.displayName, surface: principal.platform };
}

/** "Alice <local:alice> on playground"; the surface is left out where the key already says it (`slack:U1`). */
export function describeActor(actor: AuditActor): string {
  const shown = actor.surface && !actor.key.startsWith(`${actor.surface}:`) ? ` on ${actor.surface}` : '';
  return `${actor.displayName} <${actor.key}>${shown}`;
}

const PAGE = 500;

export class AuditLog {
  private readonly clock: Clock;
  private readonly logName: string;

  constructor(
    private readonly store: Store,
    options: { clock?: Clock; logName?: string } = {},
  ) {
    this.clock = options.clock ?? systemClock;
    this.logName = options.logName ?? storeKeys.auditLog;
  }

  async record(entry: AuditEntryInput): Promise<AuditEntry> {
    const parsed = AuditEntrySchema.parse({ ...entry, at: entry.at ?? this.clock.now() });
    await this.store.append(this.logName, parsed);
    return parsed;
  }

  /** Entries at or after `since` (epoch ms), oldest first; with `limit`, only the most recent that many. */
  async list(options: { since?: number; limit?: number } = {}): Promise<AuditEntry[]> {
    const since = options.since ?? Number.NEGATIVE_INFINITY;
    const kept: AuditEntry[] = [];
    for (let fromIndex = 0; ; fromIndex += PAGE) {
      const page = await this.store.readLog<unknown>(this.logName, { fromIndex, limit: PAGE });
      for (const raw of page) {
        const entry = readEntry(raw);
        if (entry.at >= since) kept.push(entry);
      }
      if (options.limit !== undefined && kept.length > options.limit)
        kept.splice(0, kept.length - options.limit);
      if (page.length < PAGE) return kept;
    }
  }
}

function readEntry(raw: unknown): AuditEntry {
  const parsed = AuditEntrySchema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const at =
    typeof raw === 'object' && raw !== null && 'at' in raw && typeof raw.at === 'number' ? raw.at : 0;
  return {
    at,
    kind: 'unreadable',
    actor: { key: '?', displayName: '?' },
    reason: parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; '),
  };
}
