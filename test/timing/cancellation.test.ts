// Time limits and cancellation of statements (docs/concurrency.md, "Time limits and
// cancellation"): timeoutMs, AbortSignal, Connection.interrupt(), the database default.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Connection, Database, type GraphDBError } from '../../src/index.js';
import { rejection } from '../runtime/helpers.js';

const RUNAWAY = 'UNWIND range(1, 10000000000) AS x RETURN count(x)';

/** Milliseconds `promise` takes to settle, and how. */
async function timed(promise: Promise<unknown>): Promise<{ ms: number; error: GraphDBError }> {
  const started = performance.now();
  const error = await rejection(promise);
  return { ms: performance.now() - started, error };
}

let tmp: string;
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'graphdb-cancel-'));
});
afterAll(() => {
  fs.rmSync(tmp, { recursive: true, force: true });
});

async function denseGraph(conn: Connection): Promise<void> {
  await conn.query('CREATE NODE TABLE N(id INT64, PRIMARY KEY(id))');
  await conn.query('CREATE REL TABLE E(FROM N TO N)');
  await conn.query('UNWIND range(0, 59) AS i CREATE (:N {id: i})');
  // Every node linked to every other: paths of up to 30 hops are astronomically many.
  await conn.query('MATCH (a:N), (b:N) WHERE a.id <> b.id CREATE (a)-[:E]->(b)');
}

describe('timeoutMs', () => {
  it('stops a runaway UNWIND within 100 ms of its deadline; the connection is usable at once', async () => {
    using db = new Database();
    using conn = db.connect();
    const { ms, error } = await timed(conn.query(RUNAWAY, {}, { timeoutMs: 200 }));
    expect(error.code).toBe('QUERY_TIMEOUT');
    expect(error.message).toContain('200 ms');
    expect(ms).toBeGreaterThanOrEqual(195);
    expect(ms).toBeLessThan(300);
    expect((await conn.query('RETURN 41 + 1 AS x')).rows).toEqual([[42]]);
  });

  it('stops a variable-length expansion over a dense graph', async () => {
    using db = new Database();
    using conn = db.connect();
    await denseGraph(conn);
    const { ms, error } = await timed(
      conn.query('MATCH (a:N)-[:E*1..30]->(b:N) RETURN count(*)', {}, { timeoutMs: 150 }),
    );
    expect(error.code).toBe('QUERY_TIMEOUT');
    expect(ms).toBeLessThan(250);
    const trail = await timed(
      conn.query('MATCH p = (a:N)-[:E* TRAIL 1..30]->(b:N) RETURN count(*)', {}, { timeoutMs: 150 }),
    );
    expect(trail.error.code).toBe('QUERY_TIMEOUT');
    expect(trail.ms).toBeLessThan(250);
    expect((await conn.query('MATCH (a:N {id: 0})-[:E]->(b:N) RETURN count(*)')).rows).toEqual([[59]]);
  });

  it('stops a large sort, a hash aggregation and a cross product', async () => {
    using db = new Database();
    using conn = db.connect();
    for (const query of [
      'UNWIND range(1, 100000000) AS x WITH x ORDER BY -x RETURN x LIMIT 1',
      'UNWIND range(1, 100000000) AS x RETURN x % 1000 AS k, count(*) ORDER BY k',
      'UNWIND range(1, 100000) AS x UNWIND range(1, 100000) AS y RETURN count(*)',
      'RETURN size(range(1, 2000000000)) AS n',
    ]) {
      const { ms, error } = await timed(conn.query(query, {}, { timeoutMs: 150 }));
      expect(error.code, query).toBe('QUERY_TIMEOUT');
      // A list being built may be in the middle of growing (a copy of all its values) when the
      // deadline comes: range() gets a wider margin than the operators.
      expect(ms, query).toBeLessThan(query.startsWith('RETURN size(range') ? 400 : 250);
    }
  });

  it('undoes the writes of a statement stopped midway', async () => {
    using db = new Database(path.join(tmp, 'writes'));
    using conn = db.connect();
    await conn.query('CREATE NODE TABLE P(id INT64, v INT64, PRIMARY KEY(id))');
    await conn.query('UNWIND range(1, 1000) AS i CREATE (:P {id: i, v: 0})');
    const created = await rejection(
      conn.query('UNWIND range(1001, 100000000) AS i CREATE (:P {id: i, v: 1})', {}, { timeoutMs: 150 }),
    );
    expect(created.code).toBe('QUERY_TIMEOUT');
    const updated = await rejection(
      conn.query('MATCH (p:P) UNWIND range(1, 100000) AS r SET p.v = r', {}, { timeoutMs: 150 }),
    );
    expect(updated.code).toBe('QUERY_TIMEOUT');
    const check = await conn.query('MATCH (p:P) RETURN count(*), sum(p.v), max(p.id)');
    expect(check.rows).toEqual([[1000, 0, 1000]]);
    conn.close();
    db.close();
    // Nothing of them reached the log either.
    using again = new Database(path.join(tmp, 'writes'));
    using conn2 = again.connect();
    expect((await conn2.query('MATCH (p:P) RETURN count(*), sum(p.v)')).rows).toEqual([[1000, 0]]);
  });

  it('rolls back an explicit transaction whose statement timed out', async () => {
    using db = new Database();
    using conn = db.connect();
    await conn.query('CREATE NODE TABLE P(id INT64, PRIMARY KEY(id))');
    await conn.query('BEGIN TRANSACTION');
    await conn.query('CREATE (:P {id: 1})');
    const error = await rejection(
      conn.query('UNWIND range(2, 100000000) AS i CREATE (:P {id: i})', {}, { timeoutMs: 100 }),
    );
    expect(error.code).toBe('QUERY_TIMEOUT');
    // As after any failed statement in a transaction: it is rolled back, nothing is left.
    await conn.query('ROLLBACK').catch(() => undefined);
    expect((await conn.query('MATCH (p:P) RETURN count(*)')).rows).toEqual([[0]]);
  });

  it("counts time queued behind the connection's other statements", async () => {
    using db = new Database();
    using conn = db.connect();
    const first = conn.query(RUNAWAY, {}, { timeoutMs: 400 });
    const { ms, error } = await timed(conn.query('RETURN 1', {}, { timeoutMs: 100 }));
    expect(error.code).toBe('QUERY_TIMEOUT');
    expect(ms).toBeLessThan(200);
    expect((await rejection(first)).code).toBe('QUERY_TIMEOUT');
  });

  it("stops a write waiting for another connection's transaction", async () => {
    using db = new Database();
    using a = db.connect();
    using b = db.connect();
    await a.query('CREATE NODE TABLE P(id INT64, PRIMARY KEY(id))');
    await a.query('BEGIN TRANSACTION');
    await a.query('CREATE (:P {id: 1})');
    const { ms, error } = await timed(b.query('CREATE (:P {id: 2})', {}, { timeoutMs: 150 }));
    expect(error.code).toBe('QUERY_TIMEOUT');
    expect(ms).toBeLessThan(250);
    await a.query('COMMIT');
    expect((await b.query('MATCH (p:P) RETURN p.id')).rows).toEqual([[1]]);
  });

  it('applies the database default, which a statement may override', async () => {
    using db = new Database(':memory:', { queryTimeoutMs: 100 });
    expect(db.queryTimeoutMs).toBe(100);
    using conn = db.connect();
    const { ms, error } = await timed(conn.query(RUNAWAY));
    expect(error.code).toBe('QUERY_TIMEOUT');
    expect(ms).toBeLessThan(200);
    // A longer limit of its own lets a statement that needs it finish.
    const result = await conn.query(
      'UNWIND range(1, 2000000) AS x RETURN count(x)',
      {},
      { timeoutMs: 60_000 },
    );
    expect(result.rows).toEqual([[2000000]]);
    expect((await conn.queryText('RETURN 1', {}, { timeoutMs: 0 })).rows).toEqual([['1']]);
  });

  it('rejects bad options with a clear error', async () => {
    using db = new Database();
    using conn = db.connect();
    await expect(conn.query('RETURN 1', {}, { timeoutMs: -1 })).rejects.toThrow(RangeError);
    await expect(conn.query('RETURN 1', {}, { timeoutMs: Number.NaN })).rejects.toThrow(/timeoutMs/);
    await expect(conn.query('RETURN 1', {}, { timeoutMs: '5' as never })).rejects.toThrow(TypeError);
    await expect(conn.query('RETURN 1', {}, { signal: {} as never })).rejects.toThrow(/AbortSignal/);
    await expect(conn.query('RETURN 1', {}, { timeout: 5 } as never)).rejects.toThrow(
      /unknown query option 'timeout'/,
    );
    expect(() => new Database(':memory:', { queryTimeoutMs: 2 ** 40 })).toThrow(RangeError);
  });
});

describe('AbortSignal', () => {
  it('stops a running statement within 100 ms of the abort', async () => {
    using db = new Database();
    using conn = db.connect();
    const controller = new AbortController();
    const reason = new Error('user pressed stop');
    setTimeout(() => controller.abort(reason), 150);
    const { ms, error } = await timed(conn.query(RUNAWAY, {}, { signal: controller.signal }));
    expect(error.code).toBe('QUERY_CANCELLED');
    expect(error.cause).toBe(reason);
    expect(ms).toBeLessThan(250);
    expect((await conn.query('RETURN 7')).rows).toEqual([[7]]);
  });

  it('stops a queued statement before it starts, and refuses an already aborted signal', async () => {
    using db = new Database();
    using conn = db.connect();
    await conn.query('CREATE NODE TABLE P(id INT64, PRIMARY KEY(id))');
    const controller = new AbortController();
    const running = conn.query(RUNAWAY, {}, { timeoutMs: 300 });
    const queued = conn.query('CREATE (:P {id: 1})', {}, { signal: controller.signal });
    controller.abort();
    expect((await rejection(queued)).code).toBe('QUERY_CANCELLED');
    expect((await rejection(running)).code).toBe('QUERY_TIMEOUT');
    expect((await conn.query('MATCH (p:P) RETURN count(*)')).rows).toEqual([[0]]);
    const before = await rejection(conn.query('CREATE (:P {id: 2})', {}, { signal: AbortSignal.abort() }));
    expect(before.code).toBe('QUERY_CANCELLED');
    expect(before.message).toContain('before it started');
    expect((await conn.query('MATCH (p:P) RETURN count(*)')).rows).toEqual([[0]]);
  });

  it('works with AbortSignal.timeout and leaves finished statements alone', async () => {
    using db = new Database();
    using conn = db.connect();
    const error = await rejection(conn.query(RUNAWAY, {}, { signal: AbortSignal.timeout(100) }));
    expect(error.code).toBe('QUERY_CANCELLED');
    const controller = new AbortController();
    const result = await conn.query(
      'UNWIND range(1, 10) AS x RETURN sum(x)',
      {},
      { signal: controller.signal },
    );
    controller.abort();
    expect(result.rows).toEqual([[55]]);
  });

  it('stops a COPY FROM and leaves the table as it was', async () => {
    const csv = path.join(tmp, 'big.csv');
    const fd = fs.openSync(csv, 'w');
    const chunk: string[] = [];
    for (let i = 0; i < 2_000_000; i++) {
      chunk.push(`${i},name-${i}`);
      if (chunk.length === 100_000) {
        fs.writeSync(fd, `${chunk.join('\n')}\n`);
        chunk.length = 0;
      }
    }
    fs.closeSync(fd);
    using db = new Database();
    using conn = db.connect();
    await conn.query('CREATE NODE TABLE P(id INT64, name STRING, PRIMARY KEY(id))');
    const copy = await timed(conn.query(`COPY P FROM '${csv}'`, {}, { timeoutMs: 50 }));
    expect(copy.error.code).toBe('QUERY_TIMEOUT');
    expect(copy.ms).toBeLessThan(150);
    expect((await conn.query('MATCH (p:P) RETURN count(*)')).rows).toEqual([[0]]);
    const load = await timed(conn.query(`LOAD FROM '${csv}' RETURN count(*)`, {}, { timeoutMs: 50 }));
    expect(load.error.code).toBe('QUERY_TIMEOUT');
    expect(load.ms).toBeLessThan(150);
  });
});

describe('Connection.interrupt()', () => {
  it('stops the running and the queued statements, and only those', async () => {
    using db = new Database();
    using conn = db.connect();
    const running = conn.query(RUNAWAY);
    const queued = conn.query('RETURN 1');
    running.catch(() => undefined);
    queued.catch(() => undefined);
    await new Promise((r) => setTimeout(r, 50));
    const started = performance.now();
    expect(conn.interrupt()).toBe(2);
    const [a, b] = await Promise.allSettled([running, queued]);
    expect(performance.now() - started).toBeLessThan(100);
    for (const settled of [a, b]) {
      expect(settled.status).toBe('rejected');
      const reason = (settled as PromiseRejectedResult).reason as GraphDBError;
      expect(reason.code).toBe('QUERY_CANCELLED');
      expect(reason.message).toContain('interrupt');
    }
    expect(conn.interrupt()).toBe(0);
    expect((await conn.query('RETURN 3')).rows).toEqual([[3]]);
    conn.close();
    expect(conn.interrupt()).toBe(0);
  });
});
