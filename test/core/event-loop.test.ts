import { describe, expect, it } from 'vitest';
import { Database } from '../../src/index.js';

describe('native execution', () => {
  it('runs a long query on a native thread while the event loop keeps running', async () => {
    using db = new Database(':memory:', { maxThreadNum: 1 });
    using conn = db.connect();
    let ticks = 0;
    const timer = setInterval(() => {
      ticks++;
    }, 5);
    const started = performance.now();
    // Heavy enough to take a few hundred milliseconds on this machine.
    const result = await conn.query('UNWIND range(1, 3000000) AS x RETURN sum(x * 2) AS s, count(*) AS c');
    const elapsed = performance.now() - started;
    clearInterval(timer);
    expect(result.rows).toEqual([[3000000 * 3000001, 3000000]]);
    expect(elapsed).toBeGreaterThan(50);
    // The timer fired throughout: at least a third of the 5 ms slots in the elapsed time.
    expect(ticks).toBeGreaterThan(elapsed / 5 / 3);
  });

  it('blocks the event loop with querySync (the inline variant), by contrast', () => {
    using db = new Database();
    using conn = db.connect();
    let ticks = 0;
    const timer = setInterval(() => {
      ticks++;
    }, 1);
    conn.querySync('UNWIND range(1, 300000) AS x RETURN sum(x)');
    clearInterval(timer);
    expect(ticks).toBe(0);
  });
});
