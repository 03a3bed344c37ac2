import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

/** The files that drive the playground in Chromium. */
const BROWSER_TESTS = 'tests/**/browser-*.test.ts';
/**
 * The files that replace a module of the product (vi.mock): each needs a module graph of its own, so they run
 * isolated. Every other unit file shares its worker's loaded modules with the files before it.
 */
const MODULE_MOCKS = ['tests/evals/no-pings-broken-renderer.test.ts'];

export default defineConfig({
  test: {
    // Starts a redis-server of the tests' own when it is installed (see tests/redis-global-setup.ts), and builds
    // the bundle that `npm start` and `opsbot` run when a source changed since its build (tests/bundle-global-setup.ts).
    globalSetup: ['tests/redis-global-setup.ts', 'tests/bundle-global-setup.ts'],
    pool: 'forks',
    // A worker per core, not vitest's one fewer: most tests wait on servers and processes, not on the CPU, and on
    // 2 cores one worker ran every file in turn.
    maxWorkers: availableParallelism(),
    // Every run saved in a test (and in the processes tests start) is checked against JSON.stringify: a message
    // or event changed in place after it was saved would otherwise be stored stale (agent/run-json.ts).
    env: { OPSBOT_CHECK_RUN_JSON: '1' },
    // The JSON report lets CI print one plain closing line with the counts.
    reporters: ['default', ['json', { outputFile: 'test-artifacts/vitest.json' }]],
    projects: [
      {
        // Modules load once per worker, not once per file: loading them took 1-4 s per file, for 0.3 s of tests.
        // So a file must leave nothing behind (servers closed, timers restored, environment as it found it).
        extends: true,
        test: {
          name: 'unit',
          include: ['tests/**/*.test.ts'],
          exclude: ['tests/scale/**', BROWSER_TESTS, ...MODULE_MOCKS],
          isolate: false,
          testTimeout: 30_000,
          hookTimeout: 30_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'mocks',
          include: MODULE_MOCKS,
          testTimeout: 30_000,
          hookTimeout: 30_000,
        },
      },
      {
        // Pages in headless Chromium: one Chromium for all of them (tests/browser-global-setup.ts), a fresh
        // context per file.
        extends: true,
        test: {
          name: 'browser',
          include: [BROWSER_TESTS],
          globalSetup: ['tests/browser-global-setup.ts'],
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      {
        // Several real opsbot processes per test (gateway, workers), killed and restarted: slower, one file at a
        // time so that their timings do not crowd each other. `npm test` runs both projects.
        extends: true,
        test: {
          name: 'scale',
          include: ['tests/scale/**/*.test.ts'],
          testTimeout: 180_000,
          hookTimeout: 60_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
