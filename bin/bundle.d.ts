// Types for bin/bundle.js, for the TypeScript that imports it (the tests' global set-up and bundle tests).
export declare const ENTRIES: Record<string, string>;
export type BundleStatus = { fresh: true; builtAt: string } | { fresh: false; why: string };
export declare function buildBundle(): Promise<string>;
export declare function bundleStatus(root?: string): BundleStatus;
export declare function builtTime(builtAt: unknown): string;
export declare function stampFiles(root: string, files: string[], startedAt: number): Record<string, string>;
