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

/** Lags (ms past due) of an interval while `work` runs: their 99th percentile, and the ticks. */
async function timerLags(
  intervalMs: number,
  work: () => Promise<void>,
): Promise<{ p99: number; ticks: number }> {
  const lags: number[] = [];
  let last = performance.now();
  const timer = setInterval(() => {
    const now = performance.now();
    lags.push(Math.max(0, now - last - intervalMs));
    last = now;
  }, intervalMs);
  try {
    await work();
  } finally {
    clearInterval(timer);
  }
  lags.sort((x, y) => x - y);
  const p99 = lags[Math.min(lags.length - 1, Math.floor(lags.length * 0.99))] ?? Number.POSITIVE_INFINITY;
  return { p99, ticks: lags.length };
}

/** Runs `step` over and over for `ms` milliseconds; returns how many times it ran. */
async function loopFor(ms: number, step: (i: number) => Promise<unknown> | unknown): Promise<number> {
  const end = performance.now() + ms;
  let i = 0;
  while (performance.now() < end) await step(i++);
  return i;
}

/** What inline reads must do, for a baseline: busy for a slice, then a turn of the loop. */
async function busySlice(): Promise<void> {
  const until = performance.now() + DEFAULT_INLINE_SLICE_US / 1000;
  while (performance.now() < until) {
    // CPU-bound, as a slice of inline reads is
  }
  await new Promise((r) => setImmediate(r));
}

// Every bound is relative to what this machine does meanwhile, so that a busy machine fails
// none: a baseline runs the same timer (and writer) beside a CPU-bound loop that yields to the
// event loop once a slice, which is what the inline reads must do. Without the slices the
// difference is no margin: the interval fired once in 3 s and the writer finished 1 transfer
// (docs/concurrency.md, "Fairness of inline reads").
describe('fairness of inline short reads', () => {
  it('keeps timers on time and writers moving while readers loop on awaited point reads', async () => {
    using db = new Database(':memory:');
    using setup = db.connect();
    await setup.query('CREATE NODE TABLE Bank(id INT64, bal INT64, PRIMARY KEY(id))');
    await setup.query('UNWIND range(0, 99) AS i CREATE (:Bank {id: i, bal: 1000})');
    using reader = db.connect();
    using writer = db.connect();
    // The reads are short reads that run inline (checked, or the test would prove nothing).
    const probe = reader.query('MATCH (x:Bank {id: $id}) RETURN x.bal', { id: 1 });
    // An inline result settles without a turn of the loop: a zero-delay race tells.
    const inline = await Promise.race([
      probe.then(() => true),
      new Promise<boolean>((r) => setImmediate(r, false)),
    ]);
    expect(inline).toBe(true);

    const read = (i: number) => reader.query('MATCH (x:Bank {id: $id}) RETURN x.bal', { id: i % 100 });
    const transfer = (i: number) => {
      const a = i % 100;
      const b = (a + 1 + (i % 7)) % 100;
      return writer.query(
        'MATCH (x:Bank {id: $a}), (y:Bank {id: $b}) SET x.bal = x.bal - 1, y.bal = y.bal + 1',
        { a, b },
      );
    };
    const ms = 2000;
    const readsAlone = await loopFor(ms / 4, read);
    let baselineTransfers = 0;
    const baseline = await timerLags(5, async () => {
      [, baselineTransfers] = await Promise.all([loopFor(ms, busySlice), loopFor(ms, transfer)]);
    });
    let reads = 0;
    let transfers = 0;
    const measured = await timerLags(5, async () => {
      [reads, transfers] = await Promise.all([loopFor(ms, read), loopFor(ms, transfer)]);
    });
    const summary = JSON.stringify({
      baseline,
      baselineTransfers,
      readsAlone,
      ...measured,
      reads,
      transfers,
    });
    // Against the baseline, allowing for the load to vary between the two: the interval's p99
    // lag within twice the baseline's plus 5 ms, half its ticks, a quarter of its transfers.
    expect(measured.p99, summary).toBeLessThanOrEqual(2 * baseline.p99 + 5);
    expect(measured.ticks, summary).toBeGreaterThanOrEqual(0.5 * baseline.ticks);
    expect(transfers, summary).toBeGreaterThanOrEqual(0.25 * baselineTransfers);
    // The reads keep a tenth of their rate alone.
    expect(reads, summary).toBeGreaterThanOrEqual(0.1 * readsAlone * 4);
    // Transfers keep the total.
    const total = await setup.query('MATCH (x:Bank) RETURN sum(x.bal)');
    expect(total.rows).toEqual([[100_000]]);
  }, 30_000);

  it('lets an interval fire between awaited reads of a tight loop', async () => {
    using db = new Database(':memory:');
    using conn = db.connect();
    await conn.query('CREATE NODE TABLE T(id INT64, PRIMARY KEY(id))');
    await conn.query('CREATE (:T {id: 1})');
    const baseline = await timerLags(1, async () => {
      await loopFor(200, busySlice);
    });
    const measured = await timerLags(1, async () => {
      await loopFor(200, () => conn.query('MATCH (t:T {id: 1}) RETURN t.id'));
    });
    // Without the slices the loop never turned and the interval fired at most once.
    expect(measured.ticks, JSON.stringify({ baseline, measured })).toBeGreaterThanOrEqual(
      Math.max(2, baseline.ticks / 4),
    );
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
