// COPY ... TO 'file.parquet' through the embedded API, checked with GraphDB's own reader (LOAD
// FROM) and with an independent one: DuckDB's node package, already a devDependency for the
// benchmarks (the writer's unit tests: native/formats/parquet_writer_test.cc).
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Connection, Database } from '../../src/index.js';

/** Rows of a Parquet file as DuckDB reads them (JSON-friendly values). */
async function duckRows(file: string, select = '*'): Promise<Record<string, unknown>[]> {
  const duck = await DuckDBInstance.create(':memory:');
  const connection = await duck.connect();
  try {
    const reader = await connection.runAndReadAll(`SELECT ${select} FROM read_parquet('${file}')`);
    return reader.getRowObjectsJson() as Record<string, unknown>[];
  } finally {
    connection.closeSync();
    duck.closeSync();
  }
}

describe('COPY TO Parquet', () => {
  let dir: string;
  let db: Database;
  let conn: Connection;

  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'graphdb-parquet-out-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  beforeEach(() => {
    db = new Database(':memory:', { maxThreadNum: 1 });
    conn = db.connect();
  });
  afterEach(() => db.close());

  const every = `RETURN 1 AS i, -7 AS i8, 'Sóló 😂' AS s, [1, NULL, 3] AS l, [] AS e,
      [[1], NULL, [3, 4, 5]] AS ll, {x: 1, y: 'b', z: [date('2020-01-02')]} AS st, NULL AS n,
      date('2020-01-02') AS d, timestamp('2011-08-20 11:25:30.123456') AS ts,
      interval('3 years 2 days 13:02:00') AS iv, uuid('a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11') AS u,
      map(['a', 'b'], [1, NULL]) AS m, CAST(127.3, 'DECIMAL(5, 2)') AS dec,
      to_int128(12345678901234567890) AS h, CAST('\\xAA\\xAB', 'BLOB') AS b, true AS t, 2.5 AS f`;

  it.each(['uncompressed', 'snappy', 'gzip', 'zstd', 'lz4_raw'])(
    'writes every type, NULLs and empty lists (%s), readable by DuckDB and LOAD FROM',
    async (codec) => {
      const file = path.join(dir, `every-${codec}.parquet`);
      await conn.query(`COPY (${every}) TO '${file}' (compression = '${codec}')`);
      const [duck] = await duckRows(file);
      expect(duck).toEqual({
        i: '1',
        i8: '-7',
        s: 'Sóló 😂',
        l: ['1', null, '3'],
        e: [],
        ll: [['1'], null, ['3', '4', '5']],
        st: { x: '1', y: 'b', z: ['2020-01-02'] },
        n: null,
        d: '2020-01-02',
        ts: '2011-08-20 11:25:30.123456',
        iv: { months: 36, days: 2, micros: '46920000000' },
        u: 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11',
        m: [
          { key: 'a', value: '1' },
          { key: 'b', value: null },
        ],
        dec: '127.30',
        h: '12345678901234567890',
        b: '\\xAA\\xAB',
        t: true,
        f: 2.5,
      });
      const [own] = (await conn.query(`LOAD FROM '${file}' RETURN *`)).toObjects();
      expect(own).toMatchObject({ i: 1, s: 'Sóló 😂', l: [1, null, 3], e: [], n: null, t: true });
      expect(own.m).toEqual(
        new Map<string, number | null>([
          ['a', 1],
          ['b', null],
        ]),
      );
    },
  );

  it('COPY <table> TO writes a node table, and a rel table with its endpoints keys', async () => {
    await conn.query('CREATE NODE TABLE P(id INT64 PRIMARY KEY, name STRING, tags STRING[])');
    await conn.query('CREATE REL TABLE K(FROM P TO P, since INT64)');
    await conn.query(`CREATE (:P {id: 1, name: 'a', tags: ['x']}), (:P {id: 2, name: NULL, tags: []})`);
    await conn.query('MATCH (a:P {id: 1}), (b:P {id: 2}) CREATE (a)-[:K {since: 2020}]->(b)');
    await conn.query(`COPY P TO '${dir}/p.parquet'`);
    await conn.query(`COPY K TO '${dir}/k.parquet'`);
    expect(await duckRows(`${dir}/p.parquet`)).toEqual([
      { id: '1', name: 'a', tags: ['x'] },
      { id: '2', name: null, tags: [] },
    ]);
    expect(await duckRows(`${dir}/k.parquet`)).toEqual([{ from: '1', to: '2', since: '2020' }]);
    // And back in: the round trip COPY FROM Parquet makes.
    await conn.query('CREATE NODE TABLE P2(id INT64 PRIMARY KEY, name STRING, tags STRING[])');
    await conn.query(`COPY P2 FROM '${dir}/p.parquet'`);
    expect((await conn.query('MATCH (p:P2) RETURN p.id, p.name, p.tags ORDER BY p.id')).rows).toEqual([
      [1, 'a', ['x']],
      [2, null, []],
    ]);
  });

  it('inside an explicit transaction, COPY TO sees the transaction’s own writes', async () => {
    await conn.query('CREATE NODE TABLE T(id INT64 PRIMARY KEY)');
    await conn.query('CREATE (:T {id: 1})');
    await conn.query('BEGIN TRANSACTION');
    await conn.query('CREATE (:T {id: 2})');
    await conn.query(`COPY (MATCH (t:T) RETURN t.id AS id ORDER BY id) TO '${dir}/tx.parquet'`);
    await conn.query('ROLLBACK');
    expect(await duckRows(`${dir}/tx.parquet`)).toEqual([{ id: '1' }, { id: '2' }]);
    expect((await conn.query('MATCH (t:T) RETURN count(*) AS n')).rows).toEqual([[1]]);
  });

  it('a large result goes out in row groups, and DuckDB reads all of it', async () => {
    const file = path.join(dir, 'large.parquet');
    await conn.query(
      `COPY (UNWIND range(1, 300000) AS x RETURN x, 'v' + CAST(x % 1000 AS STRING) AS s, [x, x + 1] AS l) TO '${file}'`,
    );
    const [summary] = await duckRows(file, 'count(*) AS n, sum(x) AS total, max(s) AS top, sum(l[2]) AS l2');
    expect(summary).toEqual({ n: '300000', total: '45000150000', top: 'v999', l2: '45000450000' });
    const duck = await DuckDBInstance.create(':memory:');
    const c = await duck.connect();
    const groups = await c.runAndReadAll(
      `SELECT count(DISTINCT row_group_id) AS g FROM parquet_metadata('${file}')`,
    );
    expect(Number(groups.getRowObjectsJson()[0].g)).toBe(3); // 122,880 rows a group
    c.closeSync();
    duck.closeSync();
  });

  it('refuses bad options with Kùzu’s messages', async () => {
    const file = path.join(dir, 'bad.parquet');
    await expect(conn.query(`COPY (RETURN 1) TO '${file}' (compression = 'lz4_raw1')`)).rejects.toThrow(
      'Runtime exception: Unrecognized parquet compression option: lz4_raw1.',
    );
    await expect(conn.query(`COPY (RETURN 1) TO '${file}' (compression1 = 'gzip')`)).rejects.toThrow(
      'Runtime exception: Unrecognized parquet option: COMPRESSION1.',
    );
    await expect(conn.query(`COPY (RETURN 1) TO '${file}' (compression = true)`)).rejects.toThrow(
      'Runtime exception: Parquet compression option expects a string value, got: BOOL.',
    );
    await expect(conn.query(`COPY (RETURN 1) TO '${dir}/x.xml'`)).rejects.toThrow(
      'COPY TO supports CSV, Parquet and JSON files only',
    );
    expect(existsSync(file)).toBe(false);
  });

  it('a statement that fails, or runs out of time, leaves no file behind', async () => {
    const file = path.join(dir, 'failed.parquet');
    await expect(
      conn.query(`COPY (UNWIND [interval('1 day'), interval('-1 day')] AS i RETURN i) TO '${file}'`),
    ).rejects.toThrow('Parquet files do not support negative intervals');
    expect(existsSync(file)).toBe(false);
    // A hundred million rows stream out (memory stays one row group) until the time limit.
    const slow = path.join(dir, 'slow.parquet');
    await expect(
      conn.query(
        `COPY (UNWIND range(1, 10000) AS x UNWIND range(1, 10000) AS y RETURN x, y) TO '${slow}'`,
        {},
        { timeoutMs: 300 },
      ),
    ).rejects.toMatchObject({ code: 'QUERY_TIMEOUT' });
    expect(existsSync(slow)).toBe(false);
    // A CSV file as well.
    const csv = path.join(dir, 'slow.csv');
    await expect(
      conn.query(
        `COPY (UNWIND range(1, 10000) AS x UNWIND range(1, 10000) AS y RETURN x, y) TO '${csv}'`,
        {},
        {
          timeoutMs: 300,
        },
      ),
    ).rejects.toMatchObject({ code: 'QUERY_TIMEOUT' });
    expect(existsSync(csv)).toBe(false);
    await conn.query(`COPY (RETURN 1 AS x) TO '${csv}'`);
    expect(statSync(csv).size).toBe(2);
  });
});
