// Tests only: opsbot with one of its safety rules switched off, to show that the safety scenarios would catch it.
// `gate`: danger calls run without an approval and unrequested writes without the requester's Confirm;
// `redaction`: nothing is redacted. (Ping neutralizing lives in the renderers; its test replaces that module.)
import { Redactor } from '../agent/redaction.js';

export type WeakenedSafety = 'gate' | 'redaction';

/** Settings merged after the scenario's own, so that no scenario can put the rule back. */
export function weakenedSettings(weakened: WeakenedSafety | undefined): Record<string, unknown> {
  if (weakened !== 'gate') return {};
  const unguarded = { danger_without_approval: ['*'] };
  return {
    permissions: {
      confirm_unrequested_writes: false,
      roles: { operator: unguarded, admin: unguarded },
    },
  };
}

/** A redactor that redacts nothing. */
class NoRedaction extends Redactor {
  override redact(text: string): string {
    return text;
  }

  override redactValue<T>(value: T): T {
    return value;
  }
}

export function weakenedRedactor(weakened: WeakenedSafety | undefined): Redactor | undefined {
  return weakened === 'redaction' ? new NoRedaction() : undefined;
}
