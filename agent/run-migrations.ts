// Upgrades stored runs from older schema versions, so an upgrade never strands a run that was waiting.
import { CallerError, ErrorCode } from './errors.js';
import { RUN_SCHEMA_VERSION, type Run, RunSchema } from './run.js';

/**
 * Changelog of the stored run shape:
 * - v1: first stored version.
 * Add `migrations[n]` turning a vN record into vN+1 when the shape changes.
 */
const migrations: Record<number, (raw: Record<string, unknown>) => Record<string, unknown>> = {};

export function loadRunRecord(raw: unknown, where: string): Run {
  if (typeof raw !== 'object' || raw === null) {
    throw new CallerError(ErrorCode.RunSchema, `${where} is not a stored run`);
  }
  let record = raw as Record<string, unknown>;
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
