import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Connection, Database, GraphDBError, QueryResult } from '../../src/index.js';

describe('Connection', () => {
  let db: Database;
  let conn: Connection;

  beforeEach(() => {
    db = new Database(':memory:', { maxThreadNum: 2 });
    conn = db.connect();
  });

  afterEach(() => {
    db.close();
  });

  it('returns columns, types, rows and a summary', async () => {
    const r = await conn.query('RETURN 1 + 2 AS x, "a" AS s, true AS b, 1.5 AS d, NULL AS n');
    expect(r).toBeInstanceOf(QueryResult);
    expect(r.columns).toEqual(['x', 's', 'b', 'd', 'n']);
    expect(r.types.slice(0, 4)).toEqual(['INT64', 'STRING', 'BOOL', 'DOUBLE']);
    expect(r.rows).toEqual([[3, 'a', true, 1.5, null]]);
    expect(r.toObjects()).toEqual([{ x: 3, s: 'a', b: true, d: 1.5, n: null }]);
    expect(r.summary.rowCount).toBe(1);
    expect(r.summary.elapsedMs).toBeGreaterThanOrEqual(0);
  });

  it('names unaliased columns by the expression text', async () => {
    const r = await conn.query('RETURN 1 + 2');
    expect(r.columns).toEqual(['1 + 2']);
  });

  it('evaluates arithmetic, comparison and three-valued logic', () => {
    const r = conn.querySync(
      'RETURN 7 / 2 AS a, 7 % 3 AS b, 2 * (3 + 4) AS c, -5 AS d, 1 < 2 AS e, 2 <> 2 AS f, ' +
        'NULL AND false AS g, NULL OR true AS h, NULL AND true AS i, NOT false AS j, 1 = NULL AS k',
    );
    expect(r.rows).toEqual([[3, 1, 14, -5, true, false, false, true, null, true, null]]);
  });

  it('binds $parameters of every JS type', async () => {
    const r = await conn.query('RETURN $i AS i, $d AS d, $s AS s, $b AS b, $n AS n, $l AS l, $big AS big', {
      i: 41,
      d: 0.25,
      s: 'hé',
      b: false,
      n: null,
      l: [1, 2, 3],
      big: 2n ** 62n,
    });
    expect(r.rows).toEqual([[41, 0.25, 'hé', false, null, [1, 2, 3], 2n ** 62n]]);
    const sum = await conn.query('RETURN $a + $b AS s', { a: 40, b: 2 });
    expect(sum.rows).toEqual([[42]]);
  });

  it('reports a missing parameter as INVALID_REQUEST', async () => {
    await expect(conn.query('RETURN $missing')).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
  });

  it('rejects parameters that are not a plain object', async () => {
    await expect(conn.query('RETURN 1', [] as never)).rejects.toThrow(TypeError);
    expect(() => conn.querySync('RETURN 1', 5 as never)).toThrow(TypeError);
    expect(() => conn.querySync(5 as never)).toThrow(/query text must be a string/);
    await expect(conn.query('RETURN $f', { f: () => 1 })).rejects.toThrow(/cannot be query parameters/);
  });

  it('reports syntax errors with code, line and column', async () => {
    const error = await conn.query('RETURN 1 +\n  )').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GraphDBError);
    const e = error as GraphDBError;
    expect(e.code).toBe('QUERY_SYNTAX');
    expect(e.line).toBe(2);
    expect(e.column).toBeGreaterThan(0);
    expect(e.message).toMatch(/\)/);
  });

  it('reports unknown variables and functions as QUERY_BINDING', async () => {
    await expect(conn.query('RETURN x')).rejects.toMatchObject({
      code: 'QUERY_BINDING',
      message: expect.stringMatching(/Variable x is not in scope/),
    });
    await expect(conn.query('RETURN nosuchfunction(1)')).rejects.toMatchObject({ code: 'QUERY_BINDING' });
  });

  it('reports integer overflow and division errors as QUERY_RUNTIME', async () => {
    await expect(conn.query('RETURN 9223372036854775807 + 1')).rejects.toMatchObject({
      code: 'QUERY_RUNTIME',
    });
  });

  it('returns INT64 beyond 2^53 as bigint and exact', async () => {
    const r = await conn.query('RETURN 9007199254740993 AS big, 9007199254740991 AS safe');
    expect(r.rows).toEqual([[9007199254740993n, 9007199254740991]]);
  });

  it('returns DECIMAL as its exact text, with its type', async () => {
    const r = await conn.query(
      "RETURN CAST('12345678901234567890.123456789012345678' AS DECIMAL(38, 18)) AS d, " +
        'CAST(2 AS DECIMAL(5, 2)) * 3 AS p, CAST(NULL AS DECIMAL) AS n',
    );
    expect(r.types).toEqual(['DECIMAL(38, 18)', 'DECIMAL(10, 4)', 'DECIMAL(18, 3)']);
    expect(r.rows).toEqual([['12345678901234567890.123456789012345678', '6.0000', null]]);
  });

  it('runs statements in submission order, one at a time', async () => {
    const order: number[] = [];
    const promises = Array.from({ length: 20 }, (_, i) =>
      // range(): never a short read, so each goes to the native thread's queue.
      conn.query(`UNWIND range(${i}, ${i}) AS i RETURN i`).then((r) => order.push(r.rows[0]?.[0] as number)),
    );
    expect(conn.pending).toBeGreaterThan(0);
    await Promise.all(promises);
    expect(order).toEqual(Array.from({ length: 20 }, (_, i) => i));
    expect(conn.pending).toBe(0);
  });

  it('runs querySync after statements already queued', async () => {
    const first = conn.query('UNWIND range(1, 1) AS x RETURN x');
    const sync = conn.querySync('RETURN 2 AS x');
    expect(sync.rows).toEqual([[2]]);
    expect((await first).rows).toEqual([[1]]);
  });

  it('closes idempotently, refuses later use and rejects queued statements', async () => {
    const queued = Array.from({ length: 50 }, () => conn.query('UNWIND range(1, 2000) AS x RETURN sum(x)'));
    conn.close();
    conn.close();
    const settled = await Promise.allSettled(queued);
    const rejected = settled.filter((s) => s.status === 'rejected');
    for (const r of rejected) {
      expect((r as PromiseRejectedResult).reason).toMatchObject({ code: 'CONNECTION_CLOSED' });
    }
    // The statement already running when close() was called may finish; the rest are refused.
    expect(rejected.length).toBeGreaterThanOrEqual(48);
    await expect(conn.query('RETURN 1')).rejects.toMatchObject({ code: 'CONNECTION_CLOSED' });
    expect(() => conn.querySync('RETURN 1')).toThrow(GraphDBError);
  });

  it('supports several connections on one database', async () => {
    const other = db.connect();
    const [a, b] = await Promise.all([conn.query('RETURN 1 AS x'), other.query('RETURN 2 AS x')]);
    expect(a.rows).toEqual([[1]]);
    expect(b.rows).toEqual([[2]]);
    other.close();
  });
});
