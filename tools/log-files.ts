// Finds the log files a glob names under the configured roots, never leaving them through `..` or symlinks.
import type { Dirent } from 'node:fs';
import { lstat, readdir, stat } from 'node:fs/promises';
import { join, posix } from 'node:path';
import picomatch from 'picomatch';
import { errorText } from './call-limits.js';
import { assertCleanPathText, PathRefusal, type Root, realPathInside } from './safe-path.js';

export interface LogFile {
  /** The path as a person would name it: configured root plus the path below it. */
  display: string;
  /** The real path that is opened; checked to be inside a root. */
  real: string;
  size: number;
  mtimeMs: number;
}

export interface Skipped {
  path: string;
  reason: string;
}

export interface FoundLogFiles {
  files: LogFile[];
  refused: Skipped[];
  /** The walk stopped at a limit, so some files may have been missed. */
  incomplete: boolean;
}

export interface FindLimits {
  maxFiles: number;
  maxEntries: number;
  maxDepth: number;
}

export const DEFAULT_FIND_LIMITS: FindLimits = { maxFiles: 200, maxEntries: 20_000, maxDepth: 12 };

/** Splits an absolute glob into the root it lies under and the part below; relative globs apply to every root. */
function globsPerRoot(glob: string, roots: Root[]): { root: Root; relativeGlob: string }[] {
  if (!glob.startsWith('/')) return roots.map((root) => ({ root, relativeGlob: glob }));
  const matches: { root: Root; relativeGlob: string }[] = [];
  for (const root of roots) {
    for (const base of new Set([root.configured, root.real])) {
      const prefix = base.endsWith('/') ? base : `${base}/`;
      if (glob.startsWith(prefix)) {
        matches.push({ root, relativeGlob: glob.slice(prefix.length) });
        break;
      }
    }
  }
  if (matches.length === 0) {
    throw new PathRefusal(
      `${glob} is not under a log root (${roots.map((root) => root.configured).join(', ')})`,
    );
  }
  return matches;
}

class Walk {
  readonly files = new Map<string, LogFile>();
  readonly refused: Skipped[] = [];
  incomplete = false;
  private entries = 0;
  private readonly visitedDirectories = new Set<string>();

  constructor(private readonly limits: FindLimits) {}

  async addFile(display: string, roots: Root[]): Promise<void> {
    let real: string;
    try {
      real = await realPathInside(display, roots);
    } catch (error) {
      this.refused.push({ path: display, reason: errorText(error) });
      return;
    }
    const info = await stat(real).catch(() => undefined);
    if (!info?.isFile()) return;
    if (this.files.size >= this.limits.maxFiles) {
      this.incomplete = true;
      return;
    }
    if (!this.files.has(real))
      this.files.set(real, { display, real, size: info.size, mtimeMs: info.mtimeMs });
  }

  /** Breadth-first walk below `directory`, matching paths relative to the root's configured path. */
  async walk(
    root: Root,
    start: string,
    matches: (relativePath: string) => boolean,
    roots: Root[],
    maxDepth: number,
  ) {
    const queue: { path: string; depth: number }[] = [{ path: start, depth: 0 }];
    while (queue.length > 0) {
      const current = queue.shift()!;
      let real: string;
      try {
        real = await realPathInside(current.path, roots);
      } catch (error) {
        if (error instanceof PathRefusal)
          this.refused.push({ path: current.path, reason: `directory ${error.message}` });
        continue;
      }
      if (this.visitedDirectories.has(real)) continue;
      this.visitedDirectories.add(real);
      let entries: Dirent[];
      try {
        entries = await readdir(current.path, { withFileTypes: true });
      } catch (error) {
        this.refused.push({ path: current.path, reason: errorText(error) });
        continue;
      }
      entries.sort((a, b) => a.name.localeCompare(b.name));
      for (const entry of entries) {
        this.entries += 1;
        if (this.entries > this.limits.maxEntries) {
          this.incomplete = true;
          return;
        }
        const path = join(current.path, entry.name);
        const relativePath = posix.relative(root.configured, path);
        let isDirectory = entry.isDirectory();
        if (entry.isSymbolicLink())
          isDirectory = (await stat(path).catch(() => undefined))?.isDirectory() ?? false;
        if (isDirectory) {
          if (current.depth + 1 <= maxDepth) queue.push({ path, depth: current.depth + 1 });
          else if (maxDepth === this.limits.maxDepth) this.incomplete = true;
        } else if (matches(relativePath)) {
          await this.addFile(path, roots);
        }
      }
    }
  }
}

/** The files under `roots` that `glob` matches, newest first. Throws PathRefusal for a glob that tries to escape. */
export async function findLogFiles(
  glob: string,
  roots: Root[],
  limits: FindLimits = DEFAULT_FIND_LIMITS,
): Promise<FoundLogFiles> {
  assertCleanPathText(glob, 'the file glob');
  if (roots.length === 0) throw new PathRefusal('no log root exists on this machine');
  const search = new Walk(limits);
  for (const { root, relativeGlob } of globsPerRoot(glob, roots)) {
    const scanned = picomatch.scan(relativeGlob);
    if (!scanned.isGlob) {
      const path = join(root.configured, relativeGlob);
      const info = await lstat(path).catch(() => undefined);
      if (info) await search.addFile(path, roots);
      continue;
    }
    const matcher = picomatch(relativeGlob, { dot: true });
    // Without "**", a glob's files sit exactly as deep as its segments, so deeper directories need no visit.
    const belowBase = scanned.base ? relativeGlob.slice(scanned.base.length + 1) : relativeGlob;
    const depth = relativeGlob.includes('**') ? limits.maxDepth : belowBase.split('/').length - 1;
    await search.walk(
      root,
      join(root.configured, scanned.base),
      matcher,
      roots,
      Math.min(depth, limits.maxDepth),
    );
  }
  const files = [...search.files.values()].sort((a, b) => b.mtimeMs - a.mtimeMs);
  return { files, refused: search.refused, incomplete: search.incomplete };
}
