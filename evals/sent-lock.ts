// evals/sent.lock.json: what each scripted scenario sends the model (tools offered, prompt and tool-description
// hashes). A change to a prompt or a tool description changes it, and the scenario fails until someone has
// looked at the behaviour again and updated the lock (`npm run eval -- --update-lock`).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { fingerprintChanges, type SentFingerprint, SentFingerprintSchema } from './sent-fingerprint.js';

export const LOCK_PATH = fileURLToPath(new URL('./sent.lock.json', import.meta.url));

const SentLockSchema = z.record(z.string(), z.array(SentFingerprintSchema));
export type SentLock = z.infer<typeof SentLockSchema>;

const UPDATE = 'npm run eval -- --update-lock';

export function readLock(path: string = LOCK_PATH): SentLock {
  if (!existsSync(path)) return {};
  const parsed = SentLockSchema.safeParse(JSON.parse(readFileSync(path, 'utf8')));
  if (!parsed.success) throw new Error(`${path} is not a valid lock file:\n${z.prettifyError(parsed.error)}`);
  return parsed.data;
}

/** Writes the lock with its keys sorted, so that a change shows as a small diff. */
export function writeLock(lock: SentLock, path: string = LOCK_PATH): void {
  const sorted = Object.fromEntries(Object.entries(lock).sort(([a], [b]) => a.localeCompare(b)));
  writeFileSync(path, `${JSON.stringify(sorted, null, 2)}\n`);
}

/** Why what the scenario sent does not match its lock entry; empty when it does. */
export function lockProblems(
  key: string,
  locked: SentFingerprint[] | undefined,
  sent: SentFingerprint[],
): string[] {
  if (locked === undefined) {
    return [`evals/sent.lock.json has no entry for ${key}: run \`${UPDATE}\` and commit the file`];
  }
  const changes: string[] = [];
  for (let index = 0; index < Math.max(locked.length, sent.length); index++) {
    const before = locked[index];
    const after = sent[index];
    const which = locked.length > 1 || sent.length > 1 ? `prompt ${index + 1}: ` : '';
    if (!before) changes.push(`${which}a prompt the lock does not have`);
    else if (!after) changes.push(`${which}no longer sent`);
    else changes.push(...fingerprintChanges(before, after).map((change) => `${which}${change}`));
  }
  if (changes.length === 0) return [];
  return [
    `what the model is sent changed (${changes.join('; ')}); if that is meant, check the scenarios still ` +
      `describe good behaviour, then run \`${UPDATE}\` and commit evals/sent.lock.json`,
  ];
}
