// A 1,000,000-row result pulled over Bolt with fetchSize 1,000: every row arrives once, in
// batches, and the JavaScript heap (server and driver together) grows by less than 100 MB: the
// Bolt layer keeps the engine's packed cells and makes rows only for the batch pulled. (The
// process's RSS still grows by the engine's materialised result, some 160 MB for these rows,
// until a streaming cursor feeds PULL: src/bolt/results.ts.) It takes some seconds, so it runs
// only with GRAPHDB_LARGE_TESTS=1.
import neo4j from 'neo4j-driver';
import { describe, expect, it } from 'vitest';
import { startBolt } from './helpers.js';

const enabled = process.env.GRAPHDB_LARGE_TESTS === '1';
if (!enabled)
  process.stderr.write('test/bolt/large-result.test.ts: skipped (set GRAPHDB_LARGE_TESTS=1 to run it)\n');

describe.skipIf(!enabled)('a large result over Bolt', () => {
  it('pulls 1,000,000 rows with fetchSize 1,000 with a bounded heap', async () => {
    const f = await startBolt({ threadNum: 1 });
    try {
      const session = f.driver.session({ fetchSize: 1000 });
      global.gc?.();
      const before = process.memoryUsage().heapUsed;
      let peak = before;
      let count = 0;
      let sum = 0;
      const result = session.run('UNWIND range(1, 1000000) AS i RETURN i');
      for await (const record of result) {
        count++;
        sum += neo4j.integer.toNumber(record.get('i'));
        if (count % 50_000 === 0) peak = Math.max(peak, process.memoryUsage().heapUsed);
      }
      await session.close();
      expect(count).toBe(1_000_000);
      expect(sum).toBe((1_000_000 * 1_000_001) / 2);
      expect((peak - before) / 2 ** 20).toBeLessThan(100);
    } finally {
      await f.close();
    }
  }, 120_000);
});
