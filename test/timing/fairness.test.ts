// The promise API keeps the event loop turning while a caller awaits one short read after
// another (docs/concurrency.md, "Fairness of inline reads").
import { describe, expect, it } from 'vitest';
import {
  CLOCK_EVERY,
  DEFAULT_INLINE_SLICE_US,
  parseInlineSliceMicros,
  settleInline,
} from '../../src/core/loop-poll.js';
import { Database } from '../../src/index.js';

describe('fairness of inline short reads', () => {
  it('keeps timers on time and writers moving while readers loop on awaited point reads', async () => {
    using db = new Database(':memory:');
    using setup = db.connect();
    await setup.query('CREATE NODE TABLE Bank(id INT64, bal INT64, PRIMARY KEY(id))');
    await setup.query('UNWIND range(0, 99) AS i CREATE (:Bank {id: i, bal: 1000})');
    using reader = db.connect();
    using writer = db.connect();
    // The reads are short reads that run inline (checked, or the test would prove nothing).
    let inline = false;
    const probe = reader.query('MATCH (x:Bank {id: $id}) RETURN x.bal', { id: 1 });
    // An inline result settles without a turn of the loop: a zero-delay race tells.
    inline = await Promise.race([
      probe.then(() => true),
      new Promise<boolean>((r) => setImmediate(r, false)),
    ]);
    expect(inline).toBe(true);

    const durationMs = 3000;
    const intervalMs = 5;
    const end = performance.now() + durationMs;
    let reads = 0;
    let transfers = 0;
    const lags: number[] = [];
    let last = performance.now();
    const timer = setInterval(() => {
      const now = performance.now();
      lags.push(Math.max(0, now - last - intervalMs));
      last = now;
    }, intervalMs);
    const readLoop = async () => {
      let i = 0;
      while (performance.now() < end) {
        await reader.query('MATCH (x:Bank {id: $id}) RETURN x.bal', { id: i++ % 100 });
        reads++;
      }
    };
    const writeLoop = async () => {
      let i = 0;
      while (performance.now() < end) {
        const a = i % 100;
        const b = (a + 1 + (i % 7)) % 100;
        i++;
        await writer.query(
          'MATCH (x:Bank {id: $a}), (y:Bank {id: $b}) SET x.bal = x.bal - 1, y.bal = y.bal + 1',
          { a, b },
        );
        transfers++;
      }
    };
    await Promise.all([readLoop(), writeLoop()]);
    clearInterval(timer);
    lags.sort((x, y) => x - y);
    const p99 = lags[Math.min(lags.length - 1, Math.floor(lags.length * 0.99))] ?? Number.POSITIVE_INFINITY;
    const summary = { reads, transfers, ticks: lags.length, p99 };
    expect(lags.length, JSON.stringify(summary)).toBeGreaterThanOrEqual(0.8 * (durationMs / intervalMs));
    expect(p99, JSON.stringify(summary)).toBeLessThanOrEqual(5);
    expect(transfers, JSON.stringify(summary)).toBeGreaterThanOrEqual(1000);
    expect(reads, JSON.stringify(summary)).toBeGreaterThanOrEqual(100_000);
    // Transfers keep the total.
    const total = await setup.query('MATCH (x:Bank) RETURN sum(x.bal)');
    expect(total.rows).toEqual([[100_000]]);
  }, 20_000);

  it('lets an interval fire between awaited reads of a tight loop', async () => {
    using db = new Database(':memory:');
    using conn = db.connect();
    await conn.query('CREATE NODE TABLE T(id INT64, PRIMARY KEY(id))');
    await conn.query('CREATE (:T {id: 1})');
    let fired = 0;
    const timer = setInterval(() => {
      fired++;
    }, 1);
    const end = performance.now() + 200;
    while (performance.now() < end) await conn.query('MATCH (t:T {id: 1}) RETURN t.id');
    clearInterval(timer);
    // Without the slices the loop never turned and the interval fired at most once.
    expect(fired).toBeGreaterThan(20);
  });

  it('settles an inline result at once within a slice, and through the loop past it', async () => {
    // Past a slice's worth of synchronous work, the next settlement that reads the clock (every
    // CLOCK_EVERY-th) and all after it wait for a loop turn.
    await new Promise((r) => setImmediate(r));
    const order: string[] = [];
    void settleInline('first').then((v) => order.push(v));
    const busyUntil = performance.now() + (DEFAULT_INLINE_SLICE_US / 1000) * 2;
    while (performance.now() < busyUntil) {
      // keep the thread busy past the slice
    }
    const names = Array.from({ length: CLOCK_EVERY + 1 }, (_, i) => `r${i + 1}`);
    for (const name of names) void settleInline(name).then((v) => order.push(v));
    setImmediate(() => order.push('immediate'));
    for (let i = 0; i < 5; i++) await Promise.resolve();
    expect(order).toEqual(['first', ...names.slice(0, CLOCK_EVERY - 1)]);
    await new Promise((r) => setTimeout(r, 5));
    expect(order).toEqual(['first', ...names, 'immediate']);
  });

  it('parses GRAPHDB_INLINE_SLICE_US and names a wrong value', () => {
    const warnings: string[] = [];
    const warn = (message: string) => warnings.push(message);
    expect(parseInlineSliceMicros(undefined, warn)).toBe(DEFAULT_INLINE_SLICE_US);
    expect(parseInlineSliceMicros('0', warn)).toBe(0);
    expect(parseInlineSliceMicros('2500', warn)).toBe(2500);
    expect(warnings).toEqual([]);
    for (const wrong of ['x', '-1', '1.5', '100001']) {
      expect(parseInlineSliceMicros(wrong, warn)).toBe(DEFAULT_INLINE_SLICE_US);
      expect(warnings.pop()).toContain(`GRAPHDB_INLINE_SLICE_US='${wrong}'`);
    }
  });
});
