// Settings with a schema error are refused as a whole, but the checks that need the running tools (a patrol's
// arguments, an alert route's checks, a tool budget) can still look at the parts that are valid: "every problem in
// one pass" means a typo in limits does not hide a wrong patrol argument. Only those checks read these settings.
import { PatrolSchema } from '../../scheduled/patrol-settings.js';
import { type Settings, SettingsSchema } from './settings-schema.js';

/** The file's valid sections (and its valid patrols, in a patrols section that is not), with defaults for the rest. */
export function salvagedSettings(raw: Record<string, unknown>): Settings | undefined {
  const kept: Record<string, unknown> = {};
  for (const [key, section] of Object.entries(SettingsSchema.shape)) {
    if (!Object.hasOwn(raw, key)) continue;
    const value = raw[key];
    if (section.safeParse(value).success) kept[key] = value;
    else if (key === 'patrols' && isRecord(value)) {
      kept[key] = Object.fromEntries(
        Object.entries(value).filter(([, patrol]) => PatrolSchema.safeParse(patrol).success),
      );
    }
  }
  const parsed = SettingsSchema.safeParse(kept);
  return parsed.success ? parsed.data : undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
