import os from 'node:os';
import { defineConfig } from 'vitest/config';

// `npm test`: the suites a contributor runs after every change, in a few minutes, and whose
// outcome does not depend on how busy the machine is. The long suites (conformance, timing,
// browser, package) are vitest.long.config.ts's, run by `npm run test:all`.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: [
      'test/stress/**',
      'test/conformance/**',
      'test/timing/**',
      'test/browser/**',
      'test/package/**',
      'test/kuzu/kuzu-api-suite.test.ts',
      'test/kuzu/kuzu-export.test.ts',
      'node_modules/**',
    ],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Native threads per connection: keep test files in separate forked processes.
    pool: 'forks',
    // Two files at once even on 2 cores (vitest's default there is one): most of a file's time
    // is spent waiting (on native threads, child processes, sockets), not on the CPU.
    maxWorkers: Math.max(2, os.availableParallelism() - 1),
  },
});
