// Every process reads the same opsbot.yaml. One started with different settings (a deploy half done, a file
// edited on one machine) is told at start-up, naming the sections that differ from the others'.
import { createHash } from 'node:crypto';
import type { Logger } from '../../agent/logger.js';
import { stableJson } from '../../agent/stable-json.js';
import type { Store } from '../../agent/store/store.js';
import type { Settings } from '../config/settings-schema.js';
import type { ProcessRecord } from './process-presence.js';

const settingsKey = (hash: string) => `cluster:settings:${hash}`;
/** Settings by hash are kept as long as a process may run with them. */
const SETTINGS_TTL_MS = 30 * 86_400_000;

export function settingsHash(settings: Settings): string {
  return createHash('sha256').update(stableJson(settings)).digest('hex').slice(0, 12);
}

/** The keys (one or two levels deep) whose values differ between two settings trees. */
export function settingsDifferences(ours: unknown, theirs: unknown, path = '', depth = 0): string[] {
  const isTree = (value: unknown): value is Record<string, unknown> =>
    value !== null && typeof value === 'object' && !Array.isArray(value);
  if (stableJson(ours) === stableJson(theirs)) return [];
  if (depth >= 2 || !isTree(ours) || !isTree(theirs)) return [path || '(everything)'];
  const keys = [...new Set([...Object.keys(ours), ...Object.keys(theirs)])].sort();
  return keys.flatMap((key) =>
    settingsDifferences(ours[key], theirs[key], path ? `${path}.${key}` : key, depth + 1),
  );
}

/** Records this process's settings, and warns when live processes run with other ones. */
export async function warnOnSettingsDrift(
  store: Store,
  settings: Settings,
  others: ProcessRecord[],
  logger: Logger,
): Promise<string[]> {
  const hash = settingsHash(settings);
  await store.set(settingsKey(hash), settings, SETTINGS_TTL_MS);
  const warnings: string[] = [];
  for (const otherHash of new Set(
    others.map((other) => other.settingsHash).filter((other) => other !== hash),
  )) {
    const theirs = await store.get(settingsKey(otherHash));
    const processes = others.filter((other) => other.settingsHash === otherHash);
    const who = processes.map((other) => `${other.role} ${other.host}:${other.pid}`).join(', ');
    const differ =
      theirs === undefined
        ? ['(their settings are not in the store)']
        : settingsDifferences(settings, theirs);
    const warning = `this process's settings (${hash}) differ from those of ${who} (${otherHash}) in: ${differ.join(', ')}`;
    logger.warn({ settingsHash: hash, otherHash, differ }, warning);
    warnings.push(warning);
  }
  return warnings;
}
