import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // test/timing, test/browser and test/package run after the rest, alone (vitest.timing.config.ts).
    exclude: ['test/stress/**', 'test/timing/**', 'test/browser/**', 'test/package/**', 'node_modules/**'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Native threads per connection: keep test files in separate forked processes.
    pool: 'forks',
  },
});
