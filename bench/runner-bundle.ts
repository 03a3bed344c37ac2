// The runner process as opsbot ships: bundled with esbuild the way `npm run build` bundles the program
// (bin/bundle-options.js), into bench/.build/, and run with source maps on as bin/program.js runs the program
// (fresh-process.ts). Under tsx every function the kernel creates would pay for tsx's keepNames wrapper, which the
// shipped bundle does not have; bundling the bare and peer runners the same way keeps the comparison even.
// `--source` runs them through tsx instead.
import { mkdirSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { bundleOptions, copyAssets } from '../bin/bundle-options.js';

const buildDir = fileURLToPath(new URL('./.build/', import.meta.url));

/** Builds the runner process and returns the file to start it from. */
export function buildRunnerBundle(): Promise<string> {
  return buildBenchBundle('runner-process', 'bench/runner-process.ts');
}

/** Builds one bench's child process, `entry` (from the repository's root), into `bench/.build/<folder>`. */
export async function buildBenchBundle(name: string, entry: string, folder = ''): Promise<string> {
  const outdir = `${buildDir}${folder}`;
  rmSync(outdir, { recursive: true, force: true });
  mkdirSync(outdir, { recursive: true });
  await build(bundleOptions({ [name]: entry }, outdir));
  copyAssets(outdir);
  return `${outdir}${name}.js`;
}
