import { defineConfig } from 'vitest/config';

// The tests whose assertions are about time (event-loop lag, how soon a cancelled statement
// stops, the web console's page-load budget in a real browser, how long the package takes to
// install): run after the rest, one file at a time, so that other test files do not take the
// CPU they measure. test/package also rebuilds dist/ (npm pack), which other tests load. `npm
// test` runs both configurations (scripts/test.mjs).
export default defineConfig({
  test: {
    include: ['test/timing/**/*.test.ts', 'test/browser/**/*.test.ts', 'test/package/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    fileParallelism: false,
  },
});
