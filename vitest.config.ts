import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/stress/**', 'node_modules/**'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Native threads per connection: keep test files in separate forked processes.
    pool: 'forks',
  },
});
