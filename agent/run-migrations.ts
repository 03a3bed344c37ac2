// Upgrades stored runs from older schema versions, so an upgrade never strands a run that was waiting.
import { CallerError, ErrorCode } from './errors.js';
import { RUN_SCHEMA_VERSION, type Run, RunSchema } from './run.js';

type RawRun = Record<string, unknown>;

/**
 * Changelog of the stored run shape:
 * - v1: first stored version: `status` plus an independent `pending` (question, approval or executing).
 * - v2: a union on `status`. `executing` is a status; a waiting run carries its `question` or `approval`;
 *   `answer`, `error`, `cancelled`, `expired` and `unknownCall` live only on their own end states.
 * - v3: `failedActions`, the write and danger calls that ran and failed (none for older runs).
 * - v4: a run waiting for an approval holds what the approval book held: `approval.bindingHash`, `approvers`,
 *   `reason` and `displayArgs`. A v3 run gets them at start from its book record (approval-fields-backfill.ts).
 *   Later, still v4: `approval.approvals` (1 or 2, the two-person rule) and `approval.approvedBy` (the approvals
 *   counted so far). Both have defaults (1 and []), which is what every run stored before them meant, so no
 *   migration.
 *   Later, still v4: `conversation.workspaceId` (Slack's team id, Discord's guild id), optional. A run stored
 *   without it is read as it was: its cards take clicks from their channel, whichever workspace names it.
 *   Later, still v4: `stepPlan`, the plan engine's plan, optional. Runs stored before it ran on other engines.
 * Add `migrations[n]` turning a vN record into vN+1 when the shape changes.
 */
const migrations: Record<number, (raw: RawRun) => RawRun> = {
  1: fromV1,
  2: fromV2,
  3: fromV3,
};

function fromV3(raw: RawRun): RawRun {
  return { ...raw, schemaVersion: 4 };
}

function fromV2(raw: RawRun): RawRun {
  return { ...raw, schemaVersion: 3, failedActions: [] };
}

function fromV1(raw: RawRun): RawRun {
  const { pending, cancelRequestedBy, answer, error, ...rest } = raw as RawRun & {
    pending?: { kind?: string } | null;
    cancelRequestedBy?: string;
  };
  const record: RawRun = { ...rest, schemaVersion: 2 };
  const events = Array.isArray(raw.events) ? (raw.events as { type?: string; at?: number }[]) : [];
  const last = (type: string) => [...events].reverse().find((event) => event.type === type);
  const at = typeof raw.updatedAt === 'number' ? raw.updatedAt : 0;
  switch (raw.status) {
    case 'running': {
      if (pending?.kind === 'executing') {
        const { kind: _kind, ...executing } = pending;
        return { ...record, status: 'executing', executing };
      }
      return record;
    }
    case 'waiting_for_user': {
      const { kind: _kind, ...question } = pending ?? {};
      return { ...record, question };
    }
    case 'waiting_for_approval': {
      const { kind: _kind, ...approval } = pending ?? {};
      return { ...record, approval };
    }
    case 'finished':
      return { ...record, answer: answer ?? '', ok: true };
    case 'failed':
      return { ...record, error: error ?? { code: 'unknown', message: 'The run failed.' } };
    case 'cancelled': {
      const event = last('cancelled') as { by?: string; at?: number } | undefined;
      return {
        ...record,
        cancelled: { by: event?.by ?? cancelRequestedBy ?? 'someone', at: event?.at ?? at },
      };
    }
    case 'expired': {
      const event = last('expired') as { message?: string; at?: number } | undefined;
      return { ...record, expired: { message: event?.message ?? 'The run expired.', at: event?.at ?? at } };
    }
    case 'outcome_unknown': {
      const event = last('outcome_unknown') as { callId?: string; tool?: string } | undefined;
      const call = {
        id: event?.callId ?? 'unknown',
        name: event?.tool ?? 'unknown',
        rawArguments: '{}',
        args: {},
      };
      return { ...record, unknownCall: call };
    }
    default:
      return record;
  }
}

export function loadRunRecord(raw: unknown, where: string): Run {
  if (typeof raw !== 'object' || raw === null) {
    throw new CallerError(ErrorCode.RunSchema, `${where} is not a stored run`);
  }
  let record = raw as RawRun;
  let version = typeof record.schemaVersion === 'number' ? record.schemaVersion : 0;
  if (version > RUN_SCHEMA_VERSION) {
    throw new CallerError(
      ErrorCode.RunSchema,
      `${where} was written by a newer opsbot (run schema v${version}; this one reads up to v${RUN_SCHEMA_VERSION})`,
    );
  }
  while (version < RUN_SCHEMA_VERSION) {
    const migrate = migrations[version];
    if (!migrate) {
      throw new CallerError(
        ErrorCode.RunSchema,
        `${where} has run schema v${version}, which cannot be upgraded`,
      );
    }
    record = migrate(record);
    version += 1;
  }
  const parsed = RunSchema.safeParse(record);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new CallerError(
      ErrorCode.RunSchema,
      `${where} is damaged: ${issue?.path.join('.') || '(root)'}: ${issue?.message ?? 'invalid'}`,
    );
  }
  return parsed.data;
}
