import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Connection, Database, PreparedStatement, RowStream } from '../../src/index.js';
import { rejection } from '../runtime/helpers.js';

async function collect(stream: RowStream): Promise<unknown[][]> {
  const rows: unknown[][] = [];
  for await (const row of stream) rows.push(row);
  return rows;
}

describe('conn.stream', () => {
  let db: Database;
  let conn: Connection;

  beforeEach(async () => {
    db = new Database(':memory:', { maxThreadNum: 2 });
    conn = db.connect();
    await conn.query('CREATE NODE TABLE P(id INT64, name STRING, PRIMARY KEY(id))');
    await conn.query('UNWIND range(1, 2500) AS i CREATE (:P {id: i, name: "p" + CAST(i AS STRING)})');
  });

  afterEach(() => {
    db.close();
  });

  it('hands out every row in order, across batches, with columns, types and a summary', async () => {
    const stream = conn.stream(
      'MATCH (p:P) WHERE p.id % 2 = 0 RETURN p.id AS id, p.name AS name ORDER BY id',
      {},
      {
        batchSize: 100,
      },
    );
    expect(stream).toBeInstanceOf(RowStream);
    const rows = await collect(stream);
    expect(rows.length).toBe(1250);
    expect(rows[0]).toEqual([2, 'p2']);
    expect(rows[1249]).toEqual([2500, 'p2500']);
    expect(stream.columns).toEqual(['id', 'name']);
    expect(stream.types).toEqual(['INT64', 'STRING']);
    expect(stream.summary?.rowCount).toBe(1250);
    expect(stream.closed).toBe(true);
    // The same rows as query() gives.
    const all = await conn.query(
      'MATCH (p:P) WHERE p.id % 2 = 0 RETURN p.id AS id, p.name AS name ORDER BY id',
    );
    expect(rows).toEqual(all.rows);
  });

  it('takes parameters, and batch sizes of 1 and larger than the result', async () => {
    for (const batchSize of [1, 7, 5000]) {
      const rows = await collect(conn.stream('UNWIND range(1, $n) AS x RETURN x', { n: 20 }, { batchSize }));
      expect(rows.map((r) => r[0])).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    }
    expect(await collect(conn.stream('MATCH (p:P) WHERE p.id < 0 RETURN p.id'))).toEqual([]);
  });

  it('streams writing statements too: they run and commit when the stream opens', async () => {
    const stream = conn.stream(
      'UNWIND range(1, 30) AS i CREATE (p:P {id: 10000 + i}) RETURN p.id',
      undefined,
      {
        batchSize: 8,
      },
    );
    const rows = await collect(stream);
    expect(rows.length).toBe(30);
    expect(stream.summary?.counters.nodesCreated).toBe(30);
    expect((await conn.query('MATCH (p:P) WHERE p.id > 10000 RETURN count(*)')).rows).toEqual([[30]]);
  });

  it('break closes the stream and frees the connection', async () => {
    let seen = 0;
    for await (const row of conn.stream('UNWIND range(1, 100000000) AS x RETURN x', {}, { batchSize: 10 })) {
      seen = row[0] as number;
      if (seen === 25) break;
    }
    expect(seen).toBe(25);
    // The connection runs statements again at once.
    expect((await conn.query('RETURN 1 AS one')).rows).toEqual([[1]]);
  });

  it('refuses other statements, and a second stream, while one is open; close() ends it', async () => {
    const stream = conn.stream('UNWIND range(1, 100) AS x RETURN x', {}, { batchSize: 10 });
    expect((await stream.next()).value).toEqual([1]);
    expect((await rejection(conn.query('RETURN 1'))).code).toBe('SLOT_BUSY');
    const second = conn.stream('RETURN 2');
    expect((await rejection(second.next())).code).toBe('SLOT_BUSY');
    await stream.close();
    await stream.close(); // idempotent
    expect(await stream.next()).toEqual({ value: undefined, done: true });
    expect((await conn.query('RETURN 3 AS x')).rows).toEqual([[3]]);
  });

  it('reports errors: at open (syntax), and while running (a runtime error midway)', async () => {
    expect((await rejection(conn.stream('MATCH (n RETURN n').next())).code).toBe('QUERY_SYNTAX');
    const stream = conn.stream('UNWIND range(1, 5000) AS x RETURN 10 / (x - 3000)', {}, { batchSize: 100 });
    let seen = 0;
    const error = await rejection(
      (async () => {
        for await (const _row of stream) seen++;
      })(),
    );
    expect(error.code).toBe('QUERY_RUNTIME');
    expect(seen).toBeGreaterThanOrEqual(2900);
    expect(seen).toBeLessThan(3000);
    expect((await conn.query('RETURN 1 AS x')).rows).toEqual([[1]]);
  });

  it('a time limit covers the whole stream, the time between fetches included', async () => {
    const stream = conn.stream(
      'UNWIND range(1, 1000000) AS x RETURN x',
      {},
      { batchSize: 10, timeoutMs: 150 },
    );
    expect((await stream.next()).value).toEqual([1]);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const error = await rejection(collect(stream));
    expect(error.code).toBe('QUERY_TIMEOUT');
    expect((await conn.query('RETURN 1 AS x')).rows).toEqual([[1]]);
    // A stream that finishes within its limit is unaffected.
    expect(
      (await collect(conn.stream('UNWIND range(1, 50) AS x RETURN x', {}, { timeoutMs: 10000 }))).length,
    ).toBe(50);
  });

  it('a time limit stops a long fetch midway', async () => {
    // One fetch asks for rows the filter almost never lets through: the engine runs until the
    // deadline inside that fetch.
    const stream = conn.stream(
      'UNWIND range(1, 100000000000) AS x WITH x WHERE x = -1 RETURN x',
      {},
      {
        timeoutMs: 100,
      },
    );
    const started = Date.now();
    expect((await rejection(stream.next())).code).toBe('QUERY_TIMEOUT');
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('an AbortSignal stops the stream between fetches and within one', async () => {
    const controller = new AbortController();
    const stream = conn.stream(
      'UNWIND range(1, 100000000000) AS x WITH x WHERE x % 100000000 = 1 RETURN x',
      {},
      {
        signal: controller.signal,
        batchSize: 1,
      },
    );
    expect((await stream.next()).value).toEqual([1]);
    setTimeout(() => controller.abort(new Error('enough')), 50);
    const error = await rejection(collect(stream));
    expect(error.code).toBe('QUERY_CANCELLED');
    expect((error.cause as Error).message).toBe('enough');
  });

  it('interrupt() stops an open stream', async () => {
    const stream = conn.stream('UNWIND range(1, 1000000) AS x RETURN x', {}, { batchSize: 5 });
    await stream.next();
    expect(conn.interrupt()).toBe(1);
    expect((await rejection(collect(stream))).code).toBe('QUERY_CANCELLED');
  });

  it('closing the connection ends its stream', async () => {
    const stream = conn.stream('UNWIND range(1, 1000000) AS x RETURN x', {}, { batchSize: 5 });
    await stream.next();
    conn.close();
    const error = await rejection(collect(stream));
    expect(error.code).toBe('CONNECTION_CLOSED');
  });

  it('keeps reading its snapshot while other connections write, and schema changes wait for it', async () => {
    const other = db.connect();
    const stream = conn.stream('MATCH (p:P) RETURN p.id ORDER BY p.id', {}, { batchSize: 100 });
    const first = await stream.next();
    expect(first.value).toEqual([1]);
    await other.query('UNWIND range(1, 100) AS i CREATE (:P {id: 5000 + i})');
    await other.query('MATCH (p:P) WHERE p.id = 2 DELETE p');
    const rest = await collect(stream);
    expect(rest.length + 1).toBe(2500); // its snapshot: neither the new rows nor the deletion
    expect(rest[0]).toEqual([2]);
    // A schema change waits for an open stream (reads of other connections go on meanwhile),
    // and runs once the stream is closed.
    const open = conn.stream('MATCH (p:P) RETURN p.id', {}, { batchSize: 10 });
    await open.next();
    let altered = false;
    const alter = other.query('ALTER TABLE P ADD extra INT64').then(() => {
      altered = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(altered).toBe(false);
    const third = db.connect();
    expect((await third.query('MATCH (p:P) RETURN count(*)')).rows).toEqual([[2599]]);
    expect((await open.next()).done).toBe(false);
    await open.close();
    await alter;
    expect(altered).toBe(true);
  });

  it('CHECKPOINT runs while a stream is open, which reads on undisturbed', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'graphdb-stream-'));
    const disk = new Database(path.join(dir, 'db'), { maxThreadNum: 2 });
    try {
      const a = disk.connect();
      const b = disk.connect();
      await a.query('CREATE NODE TABLE T(id INT64, PRIMARY KEY(id))');
      await a.query('UNWIND range(1, 100) AS i CREATE (:T {id: i})');
      const open = a.stream('MATCH (t:T) RETURN t.id', {}, { batchSize: 10 });
      const ids: unknown[] = [];
      const first = await open.next();
      ids.push(first.value[0]);
      await b.query('CREATE (:T {id: 101})');
      await b.query('CHECKPOINT');
      for await (const row of open) ids.push(row[0]);
      expect(ids).toHaveLength(100); // its snapshot: not the row created after it opened
    } finally {
      disk.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('validates its options', () => {
    expect(() => conn.stream('RETURN 1', {}, { batchSize: 0 })).toThrow(RangeError);
    expect(() => conn.stream('RETURN 1', {}, { batchSize: 1.5 })).toThrow(RangeError);
    expect(() => conn.stream('RETURN 1', {}, { bogus: 1 } as never)).toThrow(/unknown query option 'bogus'/);
    expect(() => conn.stream(42 as never)).toThrow(TypeError);
  });

  // GRAPHDB_STREAM_ROWS=100000000 runs the 100-million-row case (some 40 s).
  const bigRows = Number(process.env.GRAPHDB_STREAM_ROWS ?? 10_000_000);
  it(`holds one batch at a time: ${bigRows.toLocaleString('en')} rows with bounded memory`, async () => {
    const before = process.memoryUsage().rss;
    let peak = before;
    let count = 0;
    let sum = 0n;
    let chunk = 0;
    for await (const row of conn.stream(
      `UNWIND range(1, ${bigRows}) AS x RETURN x`,
      {},
      { batchSize: 4096 },
    )) {
      count++;
      chunk += row[0] as number;
      if ((count & 0xfffff) === 0) {
        peak = Math.max(peak, process.memoryUsage().rss);
        sum += BigInt(chunk);
        chunk = 0;
      }
    }
    sum += BigInt(chunk);
    peak = Math.max(peak, process.memoryUsage().rss);
    expect(count).toBe(bigRows);
    expect(sum).toBe((BigInt(bigRows) * BigInt(bigRows + 1)) / 2n);
    // Materialised, the rows would take several hundred MB in the engine alone (a Value and a
    // row vector per row) and as much again as JS arrays.
    expect(peak - before).toBeLessThan(100 * 2 ** 20);
  }, 600_000);
});

describe('conn.prepare', () => {
  let db: Database;
  let conn: Connection;

  beforeEach(() => {
    db = new Database(':memory:', { maxThreadNum: 2 });
    conn = db.connect();
  });

  afterEach(() => {
    db.close();
  });

  it('runs and streams a prepared statement with new parameters each time', async () => {
    await conn.query('CREATE NODE TABLE P(id INT64, PRIMARY KEY(id))');
    const insert = await conn.prepare('CREATE (:P {id: $id})');
    expect(insert).toBeInstanceOf(PreparedStatement);
    for (let id = 1; id <= 50; id++) await insert.run({ id });
    insert.close();
    using find = await conn.prepare('MATCH (p:P) WHERE p.id >= $min RETURN p.id ORDER BY p.id');
    expect((await find.run({ min: 48 })).rows).toEqual([[48], [49], [50]]);
    expect((await find.run({ min: 50 })).rows).toEqual([[50]]);
    const streamed = await collect(find.stream({ min: 41 }, { batchSize: 3 }));
    expect(streamed.map((r) => r[0])).toEqual([41, 42, 43, 44, 45, 46, 47, 48, 49, 50]);
    // Another parameter type compiles another plan, and still answers.
    expect((await find.run({ min: 49.5 })).rows).toEqual([[50]]);
  });

  it('keeps its plan across a schema change (compiled again) and other queries', async () => {
    await conn.query('CREATE NODE TABLE P(id INT64, PRIMARY KEY(id))');
    await conn.query('CREATE (:P {id: 1})');
    const read = await conn.prepare('MATCH (p:P) RETURN count(*) AS n');
    expect((await read.run()).rows).toEqual([[1]]);
    await conn.query('ALTER TABLE P ADD name STRING');
    for (let i = 0; i < 20; i++) await conn.query(`RETURN ${i} AS other`);
    expect((await read.run()).rows).toEqual([[1]]);
    read.close();
  });

  it('reports errors: syntax at prepare, several statements, closed statements and connections', async () => {
    expect((await rejection(conn.prepare('MATCH (n RETURN n'))).code).toBe('QUERY_SYNTAX');
    expect((await rejection(conn.prepare('RETURN 1; RETURN 2'))).code).toBe('INVALID_REQUEST');
    expect((await rejection(conn.prepare('   '))).code).toBe('INVALID_REQUEST');
    const statement = await conn.prepare('RETURN $x AS x');
    expect((await statement.run({ x: 'a' })).rows).toEqual([['a']]);
    const missing = await rejection(conn.query('RETURN $x AS x', {}));
    expect((await rejection(statement.run({}))).code).toBe(missing.code);
    statement[Symbol.dispose]();
    expect(statement.closed).toBe(true);
    expect((await rejection(statement.run({ x: 1 }))).code).toBe('CONNECTION_CLOSED');
    expect(() => statement.stream({ x: 1 })).toThrow(/closed/);
    const other = await conn.prepare('RETURN 1 AS one');
    conn.close();
    expect((await rejection(other.run())).code).toBe('CONNECTION_CLOSED');
  });

  it('runs a prepared statement under a time limit and an explicit transaction', async () => {
    await conn.query('CREATE NODE TABLE P(id INT64, PRIMARY KEY(id))');
    const insert = await conn.prepare('CREATE (:P {id: $id})');
    await conn.query('BEGIN TRANSACTION');
    await insert.run({ id: 1 });
    await insert.run({ id: 2 });
    await conn.query('ROLLBACK');
    expect((await conn.query('MATCH (p:P) RETURN count(*)')).rows).toEqual([[0]]);
    const slow = await conn.prepare('UNWIND range(1, 100000000000) AS x WITH x WHERE x < 0 RETURN x');
    expect((await rejection(slow.run({}, { timeoutMs: 50 }))).code).toBe('QUERY_TIMEOUT');
  });
});

describe('a stream dropped without close', () => {
  const here = path.dirname(fileURLToPath(import.meta.url));
  it('has its cursor closed once garbage collection finds it, freeing the connection', () => {
    // In a child process with --expose-gc (test/core/fixtures/dropped-stream.mjs), on the built
    // package: the test runner's own heap decides nothing there.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'graphdb-dropped-stream-'));
    try {
      const result = spawnSync(
        process.execPath,
        [
          '--expose-gc',
          path.join(here, 'fixtures', 'dropped-stream.mjs'),
          path.resolve(here, '../../dist/index.js'),
          path.join(dir, 'db'),
        ],
        { encoding: 'utf8', timeout: 60_000 },
      );
      expect(result.stderr).toBe('');
      expect(JSON.parse(result.stdout)).toEqual({
        first: 1,
        whileOpen: 'SLOT_BUSY', // the dropped stream's cursor holds the connection ...
        afterGc: 'ok', // ... until it is collected
        checkpoint: 'ok',
        keptRows: 1000, // a collected stream that was closed leaves the next one alone
      });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
