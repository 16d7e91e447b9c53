// Result and memory limits of statements (RESOURCE_LIMIT), embedded and over HTTP, and the
// request's own `timeout_ms`.
import { afterEach, describe, expect, it } from 'vitest';
import { type Connection, Database, GraphDBService } from '../../src/index.js';
import { rejection, request } from '../runtime/helpers.js';

const MiB = 2 ** 20;

/** Runs each query on `conn`, expecting each to fail with RESOURCE_LIMIT. */
async function expectResourceLimit(conn: Connection, queries: string[]): Promise<void> {
  for (const query of queries) {
    const error = await rejection(conn.query(query));
    expect(error.code, query).toBe('RESOURCE_LIMIT');
  }
}

describe('embedded limits', () => {
  it('refuses a result past maxResultBytes and keeps the connection usable', async () => {
    using db = new Database(':memory:', { maxResultBytes: 8 * MiB });
    using conn = db.connect();
    const error = await rejection(conn.query('UNWIND range(1, 100000000) AS x RETURN x'));
    expect(error.code).toBe('RESOURCE_LIMIT');
    expect(error.message).toContain(String(8 * MiB));
    // A result under the limit, and the same query with a LIMIT, are fine.
    expect((await conn.query('UNWIND range(1, 1000) AS x RETURN x')).rows).toHaveLength(1000);
    expect((await conn.query('UNWIND range(1, 100000000) AS x RETURN x LIMIT 2')).rows).toEqual([[1], [2]]);
  });

  it('stops sorts, aggregations, DISTINCT, collect and long range() lists past maxStatementMemoryBytes', async () => {
    using db = new Database(':memory:', { maxStatementMemoryBytes: 32 * MiB });
    using conn = db.connect();
    await expectResourceLimit(conn, [
      'UNWIND range(1, 10000000) AS x WITH x ORDER BY -x RETURN count(*)',
      'UNWIND range(1, 10000000) AS x RETURN x AS k, count(*)',
      'UNWIND range(1, 10000000) AS x WITH DISTINCT x RETURN count(*)',
      'UNWIND range(1, 10000000) AS x RETURN size(collect(x))',
      'RETURN size(range(1, 100000000))',
    ]);
    // What stays small passes: top-k keeps only its k rows, few groups, duplicates of DISTINCT.
    expect((await conn.query('UNWIND range(1, 3000000) AS x RETURN x ORDER BY x DESC LIMIT 2')).rows).toEqual(
      [[3000000], [2999999]],
    );
    expect(
      (await conn.query('UNWIND range(1, 3000000) AS x RETURN x % 3 AS k, count(*) ORDER BY k')).rows,
    ).toEqual([
      [0, 1000000],
      [1, 1000000],
      [2, 1000000],
    ]);
    expect((await conn.query('UNWIND range(1, 3000000) AS x RETURN count(DISTINCT x % 5)')).rows).toEqual([
      [5],
    ]);
  });

  it('counts the values aggregates keep: min/max of long values per group, DISTINCT arguments', async () => {
    using db = new Database(':memory:', { maxStatementMemoryBytes: 32 * MiB });
    using conn = db.connect();
    // 100,000 groups each keeping a 1 KB string: ~100 MB in min/max states, few bytes of keys.
    const long = `'${'x'.repeat(1000)}' + toString(x)`;
    await expectResourceLimit(conn, [
      `UNWIND range(1, 100000) AS x RETURN x AS k, min(${long})`,
      `UNWIND range(1, 100000) AS x RETURN x AS k, max(${long})`,
      `UNWIND range(1, 100000) AS x RETURN count(DISTINCT ${long})`,
      `UNWIND range(1, 100000) AS x RETURN size(collect(DISTINCT ${long}))`,
    ]);
    // The same states over few groups or few distinct values stay small.
    expect(
      (await conn.query(`UNWIND range(1, 100000) AS x RETURN x % 2 AS k, size(max(${long})) ORDER BY k`))
        .rows,
    ).toEqual([
      [0, 1005],
      [1, 1005],
    ]);
    expect(
      (
        await conn.query(
          `UNWIND range(1, 100000) AS x RETURN count(DISTINCT '${'y'.repeat(1000)}' + toString(x % 3))`,
        )
      ).rows,
    ).toEqual([[3]]);
  });

  it('applies the time and memory limits to querySync too', () => {
    // One database per limit: with both on one, a loaded machine could reach the time limit
    // before the aggregation reached the memory limit.
    {
      using bounded = new Database(':memory:', { maxStatementMemoryBytes: 16 * MiB });
      using boundedConn = bounded.connect();
      let memoryError: unknown;
      try {
        boundedConn.querySync('UNWIND range(1, 10000000) AS x RETURN x AS k, count(*)');
      } catch (e) {
        memoryError = e;
      }
      expect((memoryError as { code?: string }).code).toBe('RESOURCE_LIMIT');
      expect(boundedConn.querySync('RETURN 1').rows).toEqual([[1]]);
    }
    using db = new Database(':memory:', { queryTimeoutMs: 200 });
    using conn = db.connect();
    let error: unknown;
    const started = performance.now();
    try {
      conn.querySync('UNWIND range(1, 2000000000) AS x WITH x WHERE x < 0 RETURN count(*)');
      error = undefined;
    } catch (e) {
      error = e;
    }
    expect((error as { code?: string }).code).toBe('QUERY_TIMEOUT');
    expect(performance.now() - started).toBeLessThan(5000);
    // The limits are per statement: the next one runs as usual.
    expect(conn.querySync('RETURN 1').rows).toEqual([[1]]);
  });

  it('undoes the writes of a statement stopped by a limit', async () => {
    using db = new Database(':memory:', { maxStatementMemoryBytes: 16 * MiB });
    using conn = db.connect();
    await conn.query('CREATE NODE TABLE P(id INT64, PRIMARY KEY(id))');
    const error = await rejection(
      conn.query('UNWIND range(1, 2000000) AS i CREATE (:P {id: i}) WITH i ORDER BY -i RETURN count(*)'),
    );
    expect(error.code).toBe('RESOURCE_LIMIT');
    expect((await conn.query('MATCH (p:P) RETURN count(*)')).rows).toEqual([[0]]);
  });

  it('counts what expressions build and stops functions that loop long inside one row', async () => {
    using db = new Database(':memory:', { maxStatementMemoryBytes: 16 * MiB });
    using conn = db.connect();
    // Values built inside one expression: far more than 16 MiB in all, each less.
    await expectResourceLimit(conn, [
      'RETURN size([x IN range(1, 30000) | [y IN range(1, 30000) | y]])',
      "RETURN size(string_split(repeat('a,', 5000000), ','))",
      "RETURN size(list_reduce([x IN range(1, 200) | repeat('x', 100000)], (a, b) -> a + b))",
    ]);
    // What dies within its row or loop step is given back.
    expect(
      (await conn.query("UNWIND range(1, 100) AS i RETURN sum(size(repeat('x', 1000000)))")).rows,
    ).toEqual([[100000000]]);
    // Minutes of work inside one row end at the deadline, or when cancelled.
    const edits = "RETURN levenshtein(repeat('a', 300000), repeat('b', 300000))";
    expect((await rejection(conn.query(edits, {}, { timeoutMs: 100 }))).code).toBe('QUERY_TIMEOUT');
    const abort = new AbortController();
    setTimeout(() => abort.abort(), 100);
    expect((await rejection(conn.query(edits, {}, { signal: abort.signal }))).code).toBe('QUERY_CANCELLED');
    expect((await conn.query('RETURN 1')).rows).toEqual([[1]]);
  });

  it('checks the options', () => {
    expect(() => new Database(':memory:', { maxResultBytes: -1 })).toThrow(RangeError);
    expect(() => new Database(':memory:', { maxStatementMemoryBytes: 1.5 })).toThrow(TypeError);
  });
});

describe('service limits', () => {
  let db: Database | undefined;
  let service: GraphDBService | undefined;
  afterEach(async () => {
    await service?.close();
    db?.close();
  });

  async function post(url: string, body: string) {
    const response = await fetch(`${url}/cypher`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    return { status: response.status, body: JSON.parse(await response.text()) };
  }

  it('answers a 100-million-row result with 400 RESOURCE_LIMIT and bounded memory', async () => {
    db = new Database(':memory:', { maxThreadNum: 1 });
    service = new GraphDBService(db, { queryPort: 0, autoCompaction: false });
    const url = await service.start();
    const before = process.memoryUsage().rss;
    const answer = await post(url, request('UNWIND range(1, 100000000) AS x RETURN x'));
    const grown = process.memoryUsage().rss - before;
    expect(answer.status).toBe(400);
    expect(answer.body.error.code).toBe('RESOURCE_LIMIT');
    expect(grown).toBeLessThan(500 * MiB);
    expect((await post(url, request('RETURN 1 AS x'))).body.rows).toEqual([[1]]);
  });

  it('takes a request timeout_ms that lowers the service limit, and checks it', async () => {
    db = new Database(':memory:', { maxThreadNum: 1 });
    service = new GraphDBService(db, { queryPort: 0, autoCompaction: false, queryTimeoutMs: 60_000 });
    const url = await service.start();
    const started = performance.now();
    const body = JSON.stringify({
      query: 'UNWIND range(1, 10000000000) AS x RETURN count(x)',
      timeout_ms: 150,
    });
    const answer = await post(url, body);
    expect(answer.status).toBe(408);
    expect(answer.body.error.message).toContain('150 ms');
    expect(performance.now() - started).toBeLessThan(1000);
    for (const bad of [0, -5, 1.5, '100', 2 ** 31]) {
      const refused = await post(url, JSON.stringify({ query: 'RETURN 1', timeout_ms: bad }));
      expect(refused.status, String(bad)).toBe(400);
      expect(refused.body.error.message).toContain('timeout_ms');
    }
  });

  it('stops a statement that loops inside one row when the service stops', async () => {
    db = new Database(':memory:', { maxThreadNum: 1 });
    service = new GraphDBService(db, { queryPort: 0, autoCompaction: false, stopTimeoutMs: 100 });
    const url = await service.start();
    // Minutes of work in one function call, with no time limit of its own.
    const answer = post(url, request("RETURN levenshtein(repeat('a', 300000), repeat('b', 300000))"));
    await new Promise((resolve) => setTimeout(resolve, 200));
    const started = performance.now();
    await service.stop();
    // Generous: the statement runs for minutes unless the stop reaches it.
    expect(performance.now() - started).toBeLessThan(30_000);
    const settled = await answer.then(
      (a) => a.status,
      () => 'closed',
    );
    expect(settled).not.toBe(200);
  });

  it('never raises the service limit with timeout_ms', async () => {
    db = new Database(':memory:', { maxThreadNum: 1 });
    service = new GraphDBService(db, { queryPort: 0, autoCompaction: false, queryTimeoutMs: 150 });
    const url = await service.start();
    const body = JSON.stringify({
      query: 'UNWIND range(1, 10000000000) AS x RETURN count(x)',
      timeout_ms: 100_000,
    });
    const started = performance.now();
    const answer = await post(url, body);
    expect(answer.status).toBe(408);
    expect(answer.body.error.message).toContain('150 ms');
    expect(performance.now() - started).toBeLessThan(1000);
  });
});
