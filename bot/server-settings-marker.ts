// The server says, in its data folder, which settings file it runs with, so a CLI command on the same machine and
// data folder reads the same one: a patrol the server knows is not "not found" in the CLI, and a check is made
// against the URLs the server uses. Written at start, removed at a clean stop; a marker whose process is gone is
// ignored.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { alive } from './instance-id.js';

const MARKER = 'server-settings.json';

const MarkerSchema = z.object({
  pid: z.number().int(),
  host: z.string(),
  /** The settings file's absolute path; absent when the server runs on the built-in defaults. */
  settingsPath: z.string().optional(),
});
export type ServerSettingsMarker = z.infer<typeof MarkerSchema>;

export function writeServerSettingsMarker(dataDir: string, settingsPath: string | undefined): () => void {
  const file = join(dataDir, MARKER);
  const marker: ServerSettingsMarker = {
    pid: process.pid,
    host: hostname(),
    ...(settingsPath ? { settingsPath } : {}),
  };
  try {
    writeFileSync(file, `${JSON.stringify(marker)}\n`, { mode: 0o600 });
  } catch {
    // A read-only data folder: the CLI then reads its own settings, as before.
    return () => {};
  }
  return () => {
    if (readServerSettingsMarker(dataDir)?.pid === process.pid) rmSync(file, { force: true });
  };
}

/** The settings of a server running on this machine with this data folder, or undefined when none is. */
export function readServerSettingsMarker(dataDir: string): ServerSettingsMarker | undefined {
  let parsed: ReturnType<typeof MarkerSchema.safeParse>;
  try {
    parsed = MarkerSchema.safeParse(JSON.parse(readFileSync(join(dataDir, MARKER), 'utf8')));
  } catch {
    return undefined;
  }
  if (!parsed.success || parsed.data.host !== hostname() || !alive(parsed.data.pid)) return undefined;
  return parsed.data;
}
