// Resolves a program to an absolute path without a shell and requires its real path to be allow-listed.
import { constants } from 'node:fs';
import { access, realpath, stat } from 'node:fs/promises';
import { basename, delimiter, isAbsolute, join } from 'node:path';

/** A refusal: the program is not one the settings allow. */
export class ExecutableRefusal extends Error {
  override name = 'ExecutableRefusal';
}

/** The program is not installed here; whether it would be allowed cannot be judged until it is. */
export class ExecutableNotFound extends ExecutableRefusal {
  override name = 'ExecutableNotFound';
}

export interface ResolvedExecutable {
  /** The real path that is executed: the very file that was checked. */
  file: string;
  /** The allow-listed path it matched, passed as argv[0] so multi-call binaries (busybox) act as that program. */
  argv0: string;
}

async function isExecutableFile(path: string): Promise<boolean> {
  try {
    const info = await stat(path);
    if (!info.isFile()) return false;
    await access(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Finds `program` the way execvp would, but only in absolute PATH entries (an empty entry would mean "."). */
export async function findExecutable(
  program: string,
  pathVariable = process.env.PATH ?? '',
): Promise<string> {
  if (program.includes('\0')) throw new ExecutableRefusal('the program name contains a NUL byte');
  if (isAbsolute(program)) {
    if (await isExecutableFile(program)) return program;
    throw new ExecutableNotFound(`${program} does not exist or is not executable`);
  }
  if (program.includes('/')) {
    throw new ExecutableRefusal(
      `${program} is a relative path; give the program by name or by absolute path`,
    );
  }
  for (const directory of pathVariable.split(delimiter)) {
    if (!isAbsolute(directory)) continue;
    const candidate = join(directory, program);
    if (await isExecutableFile(candidate)) return candidate;
  }
  throw new ExecutableNotFound(`${program} was not found on PATH`);
}

export class ExecutableAllowList {
  private readonly entries: string[];

  /** Throws at start-up on a relative entry: an allow-list must not depend on the working directory. */
  constructor(entries: string[]) {
    for (const entry of entries) {
      if (!isAbsolute(entry)) {
        throw new ExecutableRefusal(`allowed_executables: ${JSON.stringify(entry)} must be an absolute path`);
      }
    }
    this.entries = [...new Set(entries)];
  }

  get size(): number {
    return this.entries.length;
  }

  /** Whether some entry names this program (same absolute path, or same file name for a bare name). */
  names(program: string): boolean {
    return this.entries.some((entry) =>
      isAbsolute(program) ? entry === program : basename(entry) === program,
    );
  }

  /**
   * Resolves `program` and matches its real path against the real paths of the allow-listed entries, so a
   * symlink to a program that is not allowed is refused, and `/bin/echo` matches `/usr/bin/echo` on merged-/usr
   * systems. Called at start-up and again before every run, since files can change in between.
   */
  async resolve(program: string, pathVariable?: string): Promise<ResolvedExecutable> {
    const found = await findExecutable(program, pathVariable);
    const real = await realpath(found);
    const candidates: string[] = [];
    for (const entry of this.entries) {
      const entryReal = await realpath(entry).catch(() => undefined);
      if (entryReal === real) candidates.push(entry);
    }
    if (candidates.length === 0) {
      const via = real === found ? '' : ` (it resolves to ${real})`;
      throw new ExecutableRefusal(`${found}${via} is not in allowed_executables`);
    }
    const chosen =
      candidates.find((entry) => entry === found) ??
      (candidates.length === 1
        ? candidates[0]
        : candidates.find((entry) => basename(entry) === basename(found)));
    if (!chosen) {
      throw new ExecutableRefusal(
        `${found} resolves to ${real}, which several allow-listed names share (${candidates.join(', ')}); name one of them`,
      );
    }
    return { file: real, argv0: chosen };
  }
}
