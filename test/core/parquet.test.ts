// COPY FROM and LOAD FROM over Parquet files through the embedded API, on the conformance
// suite's files (the native reader's own tests build their files: native/formats/parquet_reader_test.cc).
import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Connection, Database } from '../../src/index.js';

const dataset = path.resolve(__dirname, '../../../shared/conformance/kuzu/dataset');
const haveShared = existsSync(dataset);
if (!haveShared) console.warn(`parquet.test.ts: SKIPPED (${dataset} is not available)`);

describe.skipIf(!haveShared)('Parquet input', () => {
  let db: Database;
  let conn: Connection;

  beforeEach(() => {
    db = new Database(':memory:', { maxThreadNum: 1 });
    conn = db.connect();
  });

  afterEach(() => {
    db.close();
  });

  it('LOAD FROM takes the columns from the file', async () => {
    const r = await conn.query(`LOAD FROM '${dataset}/demo-db/parquet/user.parquet' RETURN *`);
    expect(r.columns).toEqual(['f0', 'f1']); // the file's own names
    expect(r.toObjects()).toEqual([
      { f0: 'Adam', f1: 30 },
      { f0: 'Karissa', f1: 40 },
      { f0: 'Zhang', f1: 50 },
      { f0: 'Noura', f1: 25 },
    ]);
  });

  it('LOAD WITH HEADERS names and converts the columns, as many as the file has', async () => {
    const file = `${dataset}/demo-db/parquet/user.parquet`;
    const r = await conn.query(`LOAD WITH HEADERS (n STRING, a INT32) FROM '${file}' RETURN * LIMIT 1`);
    expect(r.toObjects()).toEqual([{ n: 'Adam', a: 30 }]);
    await expect(conn.query(`LOAD WITH HEADERS (n STRING) FROM '${file}' RETURN *`)).rejects.toMatchObject({
      code: 'QUERY_BINDING',
      message: expect.stringContaining('names 1 columns but'),
    });
    await expect(
      conn.query(`LOAD WITH HEADERS (n STRING, a DATE) FROM '${file}' RETURN *`),
    ).rejects.toMatchObject({
      message: expect.stringContaining('Could not convert "30" to DATE'),
    });
  });

  it('COPY FROM fills node and rel tables, nested columns included', async () => {
    await conn.query('CREATE NODE TABLE User(name STRING PRIMARY KEY, age INT64)');
    await conn.query('CREATE REL TABLE Follows(FROM User TO User, since INT64)');
    await conn.query(`COPY User FROM '${dataset}/demo-db/parquet/user.parquet'`);
    await conn.query(`COPY Follows FROM '${dataset}/demo-db/parquet/follows.parquet'`);
    const r = await conn.query(
      'MATCH (a:User)-[f:Follows]->(b:User) RETURN a.name, b.name, f.since ORDER BY a.name, b.name LIMIT 1',
    );
    expect(r.toObjects()).toEqual([{ 'a.name': 'Adam', 'b.name': 'Karissa', 'f.since': 2020 }]);
    const lists = await conn.query(`LOAD FROM '${dataset}/parquet/issue3481.parquet' RETURN *`);
    const [first] = lists.toObjects() as Array<{ a: number; b: number[] }>;
    expect(first.a).toBeCloseTo(1.11, 6); // a FLOAT column
    expect(first.b).toEqual([2.3, 3.3]);
  });

  it('refuses codecs it does not read, naming the codec and the file', async () => {
    const file = `${dataset}/reader/parquet/compression/zstd.parquet`;
    await expect(conn.query(`LOAD FROM '${file}' RETURN *`)).rejects.toMatchObject({
      code: 'NOT_SUPPORTED',
      message: expect.stringMatching(/zstd\.parquet.*ZSTD codec/),
    });
  });
});
