// Keeps file access inside configured roots: refuses traversal, encoded characters, NUL bytes and symlinks out.
import { realpath } from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';

/** A refusal the model should read: the path is not one it may use. */
export class PathRefusal extends Error {
  override name = 'PathRefusal';
}

/**
 * Refuses path text that tries to escape before any file system call: NUL bytes, `..` segments, and any
 * percent-encoding (%2e%2e, %2f, %00, %252e...). Log paths are plain text, so no escaping is ever needed.
 */
export function assertCleanPathText(text: string, what = 'path'): void {
  if (text.includes('\0')) throw new PathRefusal(`${what} contains a NUL byte`);
  if (/%[0-9a-f]{2}/i.test(text)) {
    throw new PathRefusal(`${what} contains percent-encoded characters; give the path as plain text`);
  }
  if (text.split(/[/\\]/).some((segment) => segment === '..')) {
    throw new PathRefusal(`${what} contains a ".." segment`);
  }
}

/** Whether `path` is `root` or below it; both must already be absolute and normalized. */
export function isInside(path: string, root: string): boolean {
  if (path === root) return true;
  const rel = relative(root, path);
  return rel !== '' && !rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel);
}

export interface Root {
  /** The root as configured (made absolute), for display and matching absolute globs. */
  configured: string;
  /** The root's real path, the one containment is checked against. */
  real: string;
}

/** Resolves configured roots to real paths; roots that do not exist are left out, not fatal. */
export async function resolveRoots(roots: string[], cwd = process.cwd()): Promise<Root[]> {
  const result: Root[] = [];
  for (const root of roots) {
    const configured = resolve(cwd, root);
    try {
      result.push({ configured, real: await realpath(configured) });
    } catch {
      // A missing root simply has no files; log_search reports the roots it could use.
    }
  }
  return result;
}

/**
 * The real path of `path` if it lies inside one of the roots, following every symlink first.
 * Throws PathRefusal when the real path is outside, so a symlink pointing out is refused. The text of `path`
 * is not checked here: names read from a directory are whatever the file system holds, and user text is
 * checked with assertCleanPathText before it becomes a path.
 */
export async function realPathInside(path: string, roots: Root[]): Promise<string> {
  const real = await realpath(path);
  if (!roots.some((root) => isInside(real, root.real))) {
    throw new PathRefusal(`resolves to ${real}, outside the log roots`);
  }
  return real;
}
