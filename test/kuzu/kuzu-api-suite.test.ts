// Kùzu's own Node.js API test suite (../shared/conformance/kuzu/tools/nodejs_api) against the
// `quiverdb/kuzu` API, through scripts/kuzu-api-tests.mjs (`npm run test:kuzu-api`). At least
// 102 of its 103 tests pass; docs/migrating-from-kuzu.md explains the other. Skipped, with a
// message, when ../shared is absent. It loads dist/kuzu: vitest.long.config.ts runs it, after
// the package test has rebuilt dist/ (or `npm run build:ts`).
import { describe, expect, it } from 'vitest';
// @ts-expect-error a JavaScript module without declarations
import { DEFAULT_MIN_PASSING, runKuzuApiSuite, skipReason } from '../../scripts/kuzu-api-tests.mjs';

interface SuiteRun {
  status: number;
  passing?: number;
  failing?: number;
  skipped?: string;
  output?: string;
}

const skipped = skipReason() as string | undefined;
if (skipped) console.warn(`Kùzu Node.js API suite skipped: ${skipped}`);

describe.skipIf(skipped !== undefined)("Kùzu's Node.js API suite against quiverdb/kuzu", () => {
  it(`passes at least ${DEFAULT_MIN_PASSING} of its tests`, { timeout: 5 * 60_000 }, () => {
    const run = runKuzuApiSuite({ quiet: true }) as SuiteRun;
    if ((run.passing ?? 0) < DEFAULT_MIN_PASSING) console.log(run.output);
    expect(run.passing).toBeGreaterThanOrEqual(DEFAULT_MIN_PASSING);
  });
});
