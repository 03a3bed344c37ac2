import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Starts a redis-server of the tests' own when it is installed (see tests/redis-global-setup.ts).
    globalSetup: ['tests/redis-global-setup.ts'],
    pool: 'forks',
    // The JSON report lets CI print one plain closing line with the counts.
    reporters: ['default', ['json', { outputFile: 'test-artifacts/vitest.json' }]],
  },
});
