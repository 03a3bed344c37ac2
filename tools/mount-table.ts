// Which mount a path is on, read from /proc/self/mountinfo (Linux); absent elsewhere.
import { readFile } from 'node:fs/promises';
import { isInside } from './safe-path.js';

export interface Mount {
  mountPoint: string;
  fileSystem: string;
  source: string;
}

/** mountinfo escapes space, tab, newline and backslash as octal (\040). */
function unescapeOctal(text: string): string {
  return text.replace(/\\([0-7]{3})/g, (_match, octal: string) =>
    String.fromCharCode(Number.parseInt(octal, 8)),
  );
}

export async function readMounts(path = '/proc/self/mountinfo'): Promise<Mount[]> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch {
    return [];
  }
  const mounts: Mount[] = [];
  for (const line of text.split('\n')) {
    const [before, after] = line.split(' - ');
    if (!before || !after) continue;
    const mountPoint = before.split(' ')[4];
    const [fileSystem = '', source = ''] = after.split(' ');
    if (mountPoint)
      mounts.push({ mountPoint: unescapeOctal(mountPoint), fileSystem, source: unescapeOctal(source) });
  }
  return mounts;
}

/** The mount a real path lives on: the deepest mount point containing it (the last one wins when stacked). */
export function mountOf(realPath: string, mounts: Mount[]): Mount | undefined {
  let best: Mount | undefined;
  for (const mount of mounts) {
    if (!isInside(realPath, mount.mountPoint)) continue;
    if (!best || mount.mountPoint.length >= best.mountPoint.length) best = mount;
  }
  return best;
}
