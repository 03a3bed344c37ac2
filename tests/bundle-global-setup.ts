// Vitest global setup: the tests that start `npm start` or `opsbot` as processes run the bundle in dist/, which those
// commands build again first when a source has changed since (bin/program.js). Built here once, before any test
// file starts, so that no test waits for a build or finds its note on stderr.
import { buildBundle, bundleStatus } from '../bin/bundle.js';

export async function setup(): Promise<void> {
  if (!bundleStatus().fresh) await buildBundle();
}
