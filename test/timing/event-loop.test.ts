import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { DEFAULT_LOOP_SPIN_US, parseLoopSpinMicros } from '../../src/core/loop-poll.js';
import { Database } from '../../src/index.js';

const distIndex = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../dist/index.js');

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
    const during = ticks;
    // The baseline: as long again with the loop idle, which is as often as this machine, as
    // busy as it is now, fires the timer.
    await new Promise((r) => setTimeout(r, elapsed));
    const idle = ticks - during;
    clearInterval(timer);
    expect(result.rows).toEqual([[3000000 * 3000001, 3000000]]);
    expect(elapsed).toBeGreaterThan(50);
    // The timer fired throughout: at least a third as often as with the loop idle (querySync,
    // below, lets it fire not once).
    expect(during, JSON.stringify({ elapsed, during, idle })).toBeGreaterThanOrEqual(Math.max(2, idle / 3));
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

describe('event-loop polling while a statement is in flight', () => {
  it('parses GRAPHDB_LOOP_SPIN_US and names a wrong value', () => {
    const warnings: string[] = [];
    const warn = (message: string) => warnings.push(message);
    expect(parseLoopSpinMicros(undefined, warn)).toBe(DEFAULT_LOOP_SPIN_US);
    expect(parseLoopSpinMicros('', warn)).toBe(DEFAULT_LOOP_SPIN_US);
    expect(parseLoopSpinMicros('0', warn)).toBe(0);
    expect(parseLoopSpinMicros('750', warn)).toBe(750);
    expect(parseLoopSpinMicros('100000', warn)).toBe(100_000);
    expect(warnings).toEqual([]);
    for (const wrong of ['abc', '-1', '1.5', '20us', '100001', ' 5', '1e3']) {
      expect(parseLoopSpinMicros(wrong, warn)).toBe(DEFAULT_LOOP_SPIN_US);
      expect(warnings.pop()).toContain(`GRAPHDB_LOOP_SPIN_US='${wrong}'`);
    }
  });

  it('keeps timers and other callbacks running between back-to-back statements', async () => {
    using db = new Database(':memory:', { maxThreadNum: 1 });
    using conn = db.connect();
    await conn.query('CREATE NODE TABLE P(id INT64, PRIMARY KEY(id))');
    let ticks = 0;
    const timer = setInterval(() => {
      ticks++;
    }, 2);
    const started = performance.now();
    let statements = 0;
    while (performance.now() - started < 300) {
      await conn.query('CREATE (:P {id: $id})', { id: statements });
      const result = await conn.query('MATCH (p:P {id: $id}) RETURN p.id', { id: statements });
      expect(result.rows).toEqual([[statements]]);
      statements++;
    }
    clearInterval(timer);
    expect(statements).toBeGreaterThan(10);
    // A loop kept polling for results still runs its timers: most of the 2 ms slots fired. On
    // a machine so loaded that a turn of the loop takes longer than a slot, a timer fires at
    // most once per turn, and each statement takes at least one turn: then a third of them.
    expect(ticks).toBeGreaterThan(Math.min(300 / 2 / 3, statements / 3));
  });

  it('settles every statement of several connections, errors included', async () => {
    using db = new Database(':memory:', { maxThreadNum: 4 });
    const connections = Array.from({ length: 4 }, () => db.connect());
    const outcomes = await Promise.allSettled(
      connections.flatMap((conn, c) =>
        Array.from({ length: 25 }, (_, i) =>
          i % 5 === 4 ? conn.query('RETURN nosuchfunction(1)') : conn.query('RETURN $c * 100 + $i', { c, i }),
        ),
      ),
    );
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(80);
    const rejected = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
    expect(rejected).toHaveLength(20);
    for (const r of rejected) expect((r.reason as { code: string }).code).toBe('QUERY_BINDING');
    for (const conn of connections) conn.close();
  });

  it('lets the process exit once the last result is in, with polling on or off or misconfigured', () => {
    const script = [
      `const { Database } = await import(${JSON.stringify(pathToFileURL(distIndex).href)});`,
      "const db = new Database(':memory:');",
      'const conn = db.connect();',
      // range(): never run inline, so these go to the worker thread (which reads its knob).
      "for (let i = 0; i < 50; i++) await conn.query('UNWIND range($i, $i) AS x RETURN x + 1', { i });",
      "const r = await conn.query('UNWIND range(41, 41) AS x RETURN x + 1');",
      'console.log(String(r.rows[0][0]));',
    ].join('\n');
    for (const [value, warning] of [
      [undefined, false],
      ['0', false],
      ['5000', false],
      ['fast', true],
    ] as const) {
      const env = { ...process.env };
      delete env.GRAPHDB_LOOP_SPIN_US;
      delete env.GRAPHDB_WORKER_SPIN_US;
      if (value !== undefined) {
        env.GRAPHDB_LOOP_SPIN_US = value;
        env.GRAPHDB_WORKER_SPIN_US = value;
      }
      const started = performance.now();
      const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
        env,
        encoding: 'utf8',
        timeout: 30_000,
      });
      expect(child.status, child.stderr).toBe(0);
      expect(child.stdout.trim()).toBe('42');
      expect(performance.now() - started).toBeLessThan(30_000);
      if (warning) {
        expect(child.stderr).toContain("GRAPHDB_LOOP_SPIN_US='fast'");
        expect(child.stderr).toContain("GRAPHDB_WORKER_SPIN_US='fast'");
      } else {
        expect(child.stderr).not.toContain('SPIN_US');
      }
    }
  });
});
