// Types for bin/bundle-options.js, for the TypeScript that imports it (the bench).
import type { BuildOptions } from 'esbuild';

export declare const ROOT: string;
export declare const EXTERNAL: string[];
export declare function bundleOptions(entryPoints: Record<string, string>, outdir: string): BuildOptions;
export declare function copyAssets(outdir: string): void;
