// Full-text search through the embedded API (docs/fts.md): the index follows every commit, a
// transaction sees its own changes and a rollback undoes them, it survives a reopen and a kill
// of a process that committed, COPY feeds it, and an indexed table cannot be dropped. Scores
// are Kùzu 0.11.3's.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { type Connection, Database } from '../../src/index.js';

const distIndex = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../dist/index.js');

const rows = async (c: Connection, q: string) => (await c.query(q)).rows as unknown[][];
const search = (c: Connection, q: string) =>
  rows(c, `CALL QUERY_FTS_INDEX('Doc', 'idx', '${q}') RETURN node.id, score ORDER BY node.id`);
const ids = async (c: Connection, q: string) => (await search(c, q)).map((r) => r[0]);

async function setup(conn: Connection) {
  await conn.query('CREATE NODE TABLE Doc(id INT64 PRIMARY KEY, body STRING)');
  await conn.query("CREATE (:Doc {id: 1, body: 'alice running'})");
  await conn.query("CREATE (:Doc {id: 2, body: 'bob'})");
  await conn.query("CREATE (:Doc {id: 3, body: 'the'})");
  await conn.query("CALL CREATE_FTS_INDEX('Doc', 'idx', ['body'])");
}

describe('full-text search', () => {
  const dirs: string[] = [];
  const tempDir = () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'graphdb-fts-'));
    dirs.push(dir);
    return dir;
  };
  afterEach(() => {
    for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
  });

  it("scores with Kùzu's BM25 and follows each commit", async () => {
    const db = new Database(':memory:');
    const conn = db.connect();
    await setup(conn);
    // N = 2 (a row without terms does not count at creation), avgdl = 1.5.
    const [[id, score]] = (await search(conn, 'alice')) as [[number, number]];
    expect(id).toBe(1);
    expect(score).toBeCloseTo(0.2649063961843035, 12);
    await conn.query("CREATE (:Doc {id: 4, body: 'the'})");
    expect((await search(conn, 'alice'))[0]![1]).toBeCloseTo(0.3023003906448447, 12);
    await conn.query("MATCH (d:Doc {id: 2}) SET d.body = 'Alice'");
    expect(await ids(conn, 'alice')).toEqual([1, 2]);
    await conn.query('MATCH (d:Doc {id: 1}) DELETE d');
    expect(await ids(conn, 'alice')).toEqual([2]);
    db.close();
  });

  it("takes Kùzu's parameters: stemmers, stop words, wildcards, conjunctive, top", async () => {
    const db = new Database(':memory:');
    const conn = db.connect();
    await conn.query('CREATE NODE TABLE Doc(id INT64 PRIMARY KEY, body STRING)');
    await conn.query('CREATE NODE TABLE Stop(w STRING PRIMARY KEY)');
    await conn.query("CREATE (:Stop {w: 'waterloo'})");
    for (const [id, body] of [
      [0, 'alice studys in waterloo and toronto'],
      [3, 'bob is studying in vancouver'],
      [20, 'dan has not study at any places'],
    ] as const) {
      await conn.query('CREATE (:Doc {id: $id, body: $body})', { id, body });
    }
    await conn.query(
      "CALL CREATE_FTS_INDEX('Doc', 'idx', ['body'], stemmer := 'porter', stopWords := 'Stop')",
    );
    expect(await ids(conn, 'waterloo')).toEqual([]);
    expect(await ids(conn, 'studies')).toEqual([0, 3, 20]);
    expect(await ids(conn, 'tor* v?ncouv*')).toEqual([0, 3]);
    expect(
      await rows(
        conn,
        "CALL QUERY_FTS_INDEX('Doc', 'idx', 'alice study', conjunctive := true) RETURN node.id",
      ),
    ).toEqual([[0]]);
    expect(
      await rows(conn, "CALL QUERY_FTS_INDEX('Doc', 'idx', 'study alice', top := 1) RETURN node.id"),
    ).toEqual([[0]]);
    expect(await rows(conn, 'CALL SHOW_INDEXES() RETURN index_type, index_definition')).toEqual([
      ['FTS', "CALL CREATE_FTS_INDEX('Doc', 'idx', ['body'], stemmer := 'porter', stopWords := 'Stop');"],
    ]);
    // The stop words were copied: the table may go.
    await conn.query('DROP TABLE Stop');
    expect(await ids(conn, 'waterloo')).toEqual([]);
    await expect(
      conn.query("CALL CREATE_FTS_INDEX('Doc', 'x', ['body'], stemmer := 'german1')"),
    ).rejects.toThrow("Binder exception: Unrecognized stemmer 'german1'.");
    await expect(conn.query("CALL QUERY_FTS_INDEX('Doc', 'idx', 'a', B := 2) RETURN node")).rejects.toThrow(
      'Binder exception: BM25 model requires the Document Length Normalization(b) value to be in the range [0,1].',
    );
    await expect(conn.query('ALTER TABLE Doc DROP body')).rejects.toThrow(
      'Binder exception: Cannot drop property body in table Doc because it is used in one or more indexes.',
    );
    // The query may be a parameter; each value gets its own answer (no plan reuse across them).
    const byParam = async (q: string) =>
      (await conn.query("CALL QUERY_FTS_INDEX('Doc', 'idx', $q, top := $k) RETURN node.id", { q, k: 5 }))
        .rows;
    expect(await byParam('alice')).toEqual([[0]]);
    expect(await byParam('vancouver')).toEqual([[3]]);
    await conn.query('INSTALL fts');
    await conn.query('LOAD EXTENSION fts');
    db.close();
  });

  it('folds constant expressions in arguments, as Kùzu does', async () => {
    const db = new Database(':memory:');
    const conn = db.connect();
    await setup(conn);
    await conn.query("CREATE (:Doc {id: 5, body: 'alice alice'})");
    const top = (arg: string) =>
      rows(conn, `CALL QUERY_FTS_INDEX('Doc', 'idx', 'ali' + 'ce', top := ${arg}) RETURN node.id`);
    expect(await top('1 + 2 * 3 - 6')).toEqual([[5]]);
    expect(await top('CAST(2 AS INT32)')).toHaveLength(2);
    await expect(top('-1 - 3')).rejects.toThrow('Overflow exception: Value -4 is not within UINT64 range');
    await expect(top('NULL + 1')).rejects.toThrow("requires a positive non-zero value for the 'top'");
    await expect(top("upper('a')")).rejects.toThrow(
      'Expression A has data type STRING but expected UINT64. Implicit cast is not supported.',
    );
    // Not constants: a value that may differ each time, a variable.
    await expect(top('CAST(random() * 3 AS INT64) + 1')).rejects.toThrow('but LITERAL was expected');
    db.close();
  });

  it('shows a transaction its own changes and forgets them on rollback', async () => {
    const db = new Database(':memory:');
    const conn = db.connect();
    const other = db.connect();
    await setup(conn);
    await conn.query('BEGIN TRANSACTION');
    await conn.query("MATCH (d:Doc {id: 2}) SET d.body = 'alice zebra'");
    await conn.query("CREATE (:Doc {id: 5, body: 'zebra crossing'})");
    expect(await ids(conn, 'zebra')).toEqual([2, 5]);
    expect(await ids(conn, 'alice')).toEqual([1, 2]);
    // Another connection's snapshot does not see them.
    expect(await ids(other, 'zebra')).toEqual([]);
    await conn.query('ROLLBACK');
    expect(await ids(conn, 'zebra')).toEqual([]);
    expect(await ids(conn, 'alice')).toEqual([1]);
    await expect(conn.query("CALL CREATE_FTS_INDEX('Doc', 'idx2', ['body'])")).resolves.toBeDefined();
    await conn.query('BEGIN TRANSACTION');
    await expect(conn.query("CALL CREATE_FTS_INDEX('Doc', 'idx3', ['body'])")).rejects.toThrow(
      'Binder exception: CREATE_FTS_INDEX is only supported in auto transaction mode.',
    );
    db.close();
  });

  it('survives a reopen, and COPY into the table is searchable', async () => {
    const dir = tempDir();
    const csv = path.join(dir, 'docs.csv');
    fs.writeFileSync(csv, '10,quantum machines\n11,learning machines\n');
    let db = new Database(path.join(dir, 'db'));
    let conn = db.connect();
    await setup(conn);
    await conn.query(`COPY Doc FROM '${csv}'`);
    expect(await ids(conn, 'machine')).toEqual([10, 11]);
    await conn.query("CREATE (:Doc {id: 6, body: 'machine'})");
    const before = await search(conn, 'machine alice');
    db.close();
    db = new Database(path.join(dir, 'db'));
    conn = db.connect();
    expect(await search(conn, 'machine alice')).toEqual(before);
    await expect(conn.query('DROP TABLE Doc')).rejects.toThrow(
      'Binder exception: Cannot delete node table Doc because it is referenced by index idx.',
    );
    await conn.query("CALL DROP_FTS_INDEX('Doc', 'idx')");
    await conn.query('DROP TABLE Doc');
    db.close();
  });

  it('keeps what a killed process committed', async () => {
    const dir = tempDir();
    const dbPath = path.join(dir, 'db');
    {
      const db = new Database(dbPath);
      await setup(db.connect());
      db.close();
    }
    const script = `
      import { Database } from ${JSON.stringify(distIndex)};
      const db = new Database(${JSON.stringify(dbPath)});
      const conn = db.connect();
      await conn.query("CREATE (:Doc {id: 7, body: 'walrus'})");
      await conn.query("MATCH (d:Doc {id: 1}) SET d.body = 'walruses swimming'");
      process.stdout.write('committed\\n');
      setInterval(() => {}, 1000);
    `;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        if (chunk.toString().includes('committed')) resolve();
      });
      child.on('exit', (code) => reject(new Error(`child exited with ${code}`)));
    });
    child.kill('SIGKILL');
    await new Promise((resolve) => child.on('exit', resolve));
    const db = new Database(dbPath);
    const conn = db.connect();
    expect(await ids(conn, 'walrus')).toEqual([1, 7]);
    expect(await ids(conn, 'alice')).toEqual([]);
    db.close();
  }, 30_000);
});
