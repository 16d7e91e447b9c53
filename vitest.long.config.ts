import { defineConfig } from 'vitest/config';

// The long suites, which `npm run test:all` (and CI) runs after `npm test`'s: the Kùzu
// conformance floor (minutes), Kùzu's Node.js API suite against quiverdb/kuzu (it loads dist/,
// after the package test rebuilt it), the timing tests (event-loop lag, how soon a cancelled statement
// stops: meaningful on a quiet machine only), the web console in a real browser and the npm
// package test (packs, which rebuilds dist/ that other tests load, and installs the tarball).
// One file at a time, so that no other test file takes the CPU they measure or the dist/ they
// rebuild. scripts/test.mjs runs this configuration.
export default defineConfig({
  test: {
    include: [
      'test/conformance/**/*.test.ts',
      'test/timing/**/*.test.ts',
      'test/browser/**/*.test.ts',
      'test/package/**/*.test.ts',
      'test/kuzu/kuzu-api-suite.test.ts',
      // Opt-in: skipped (with a message) unless GRAPHDB_KUZU_EXPORT=1 (npm run test:kuzu-export).
      'test/kuzu/kuzu-export.test.ts',
    ],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    fileParallelism: false,
  },
});
