// The built-in vector index (docs/vector.md) through the embedded API: CREATE / QUERY / DROP
// with Kùzu's surface, and how the index follows the table: SET of an indexed embedding,
// ROLLBACK, DELETE, COPY, DOUBLE arrays, reopening and a SIGKILL after a commit, and filtered
// search through a projected graph.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Connection, Database } from '../../src/index.js';

const here = path.dirname(fileURLToPath(import.meta.url));

const rows = async (c: Connection, q: string) => (await c.query(q)).rows as unknown[][];
const nearest = async (c: Connection, q: string) => (await rows(c, q)).map((r) => r[0]);

// 200 points on a 4-dimensional grid-ish spiral: point i is far from the query [100,100,100,100]
// unless moved there.
const setup = async (c: Connection, type = 'FLOAT') => {
  await c.query(`CREATE NODE TABLE Doc(id INT64 PRIMARY KEY, year INT64, emb ${type}[4])`);
  await c.query(
    'UNWIND range(0, 199) AS i CREATE (:Doc {id: i, year: 1900 + i, emb: [cos(i), sin(i), i / 200.0, 1.0]})',
  );
  await c.query("CALL CREATE_VECTOR_INDEX('Doc', 'emb_idx', 'emb', metric := 'l2')");
};
const FAR = '[100.0, 100.0, 100.0, 100.0]';
const top = (k: number, v = FAR, target = 'Doc') =>
  `CALL QUERY_VECTOR_INDEX('${target}', 'emb_idx', ${v}, ${k}) RETURN node.id, distance ORDER BY distance`;

describe('vector index', () => {
  let dir: string;
  let db: Database;
  let conn: Connection;

  beforeEach(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'graphdb-vector-'));
    db = new Database(path.join(dir, 'db'));
    conn = db.connect();
    await setup(conn);
  });
  afterEach(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('finds the nearest rows, with Kùzu distances, and lists the index', async () => {
    const got = await rows(conn, top(3, '[1.0, 0.0, 0.0, 1.0]'));
    expect(got[0]).toEqual([0, 0]);
    // The same three as a full scan.
    const scan = await nearest(
      conn,
      'MATCH (d:Doc) RETURN d.id ORDER BY array_distance(d.emb, [1.0, 0.0, 0.0, 1.0]) LIMIT 3',
    );
    expect(got.map((r) => r[0])).toEqual(scan);
    expect(await rows(conn, 'CALL SHOW_INDEXES() RETURN index_type, index_definition')).toEqual([
      [
        'HNSW',
        "CALL CREATE_VECTOR_INDEX('Doc', 'emb_idx', 'emb', mu := 30, ml := 60, pu := 0.050000, metric := 'l2', alpha := 1.100000, efc := 200);",
      ],
    ]);
  });

  it('takes the query vector and k as parameters, each run its own values', async () => {
    const text = "CALL QUERY_VECTOR_INDEX('Doc', 'emb_idx', $q, $k) RETURN node.id ORDER BY distance";
    const ids = async (q: number[], k: number) =>
      ((await conn.query(text, { q, k })).rows as unknown[][]).map((r) => r[0]);
    expect(await ids([Math.cos(5), Math.sin(5), 5 / 200, 1], 1)).toEqual([5]);
    expect(await ids([Math.cos(9), Math.sin(9), 9 / 200, 1], 1)).toEqual([9]);
    expect((await ids([0, 0, 0, 0], 4)).length).toBe(4);
    await expect(conn.query(text, { q: [1, 2], k: 1 })).rejects.toThrow(
      'Binder exception: Cannot change literal expression data type from FLOAT[2] to FLOAT[4].',
    );
  });

  it('follows SET of an indexed embedding, and ROLLBACK undoes it', async () => {
    expect(await nearest(conn, top(1))).not.toEqual([7]);
    await conn.query(`MATCH (d:Doc {id: 7}) SET d.emb = ${FAR}`);
    expect(await rows(conn, top(1))).toEqual([[7, 0]]);
    await conn.query('BEGIN TRANSACTION');
    await conn.query(`MATCH (d:Doc {id: 9}) SET d.emb = ${FAR}`);
    await conn.query('MATCH (d:Doc {id: 7}) SET d.emb = [0.0, 0.0, 0.0, 0.0]');
    // Inside the transaction its own changes are seen; another connection sees the committed state.
    expect(await rows(conn, top(1))).toEqual([[9, 0]]);
    const other = db.connect();
    expect(await rows(other, top(1))).toEqual([[7, 0]]);
    await conn.query('ROLLBACK');
    expect(await rows(conn, top(1))).toEqual([[7, 0]]);
    expect(await nearest(conn, top(2))).not.toContain(9);
    other.close();
  });

  it('leaves deleted rows out, also inside the deleting transaction', async () => {
    await conn.query(`MATCH (d:Doc {id: 7}) SET d.emb = ${FAR}`);
    await conn.query('BEGIN TRANSACTION');
    await conn.query('MATCH (d:Doc {id: 7}) DELETE d');
    expect(await nearest(conn, top(1))).not.toEqual([7]);
    await conn.query('COMMIT');
    expect(await nearest(conn, top(200))).not.toContain(7);
    expect((await nearest(conn, top(500))).length).toBe(199);
    await conn.query(`CREATE (:Doc {id: 1000, emb: ${FAR}})`);
    expect(await rows(conn, top(1))).toEqual([[1000, 0]]);
  });

  it('indexes rows that COPY appends', async () => {
    const csv = path.join(dir, 'more.csv');
    writeFileSync(csv, '500,2001,"[100.0,100.0,100.0,100.0]"\n501,2002,"[99.0,100.0,100.0,100.0]"\n');
    await conn.query(`COPY Doc FROM '${csv}' (header=false)`);
    expect(await rows(conn, top(2))).toEqual([
      [500, 0],
      [501, 1],
    ]);
  });

  it('searches only the rows of a projected graph', async () => {
    await conn.query("CALL project_graph('recent', {'Doc': 'n.year >= 2050'}, [])");
    const ids = await nearest(conn, top(10, '[1.0, 0.0, 0.0, 1.0]', 'recent'));
    expect(ids.length).toBe(10);
    for (const id of ids) expect(id as number).toBeGreaterThanOrEqual(150);
    const scan = await nearest(
      conn,
      'MATCH (d:Doc) WHERE d.year >= 2050 RETURN d.id ORDER BY array_distance(d.emb, [1.0, 0.0, 0.0, 1.0]) LIMIT 10',
    );
    expect(ids).toEqual(scan);
    await expect(conn.query(top(1, FAR, 'nograph'))).rejects.toThrow(
      'Binder exception: Cannot find table or graph named as nograph.',
    );
  });

  it('keeps a committed update across a reopen', async () => {
    await conn.query(`MATCH (d:Doc {id: 11}) SET d.emb = ${FAR}`);
    db.close();
    db = new Database(path.join(dir, 'db'));
    conn = db.connect();
    expect(await rows(conn, top(1))).toEqual([[11, 0]]);
    await conn.query("CALL DROP_VECTOR_INDEX('Doc', 'emb_idx')");
    await expect(conn.query(top(1))).rejects.toThrow(
      "Binder exception: Table Doc doesn't have an index with name emb_idx.",
    );
  });

  it('keeps a committed update after a SIGKILL of the writing process', async () => {
    db.close();
    const dbPath = path.join(dir, 'db');
    const child = path.join(here, 'fixtures', 'vector-kill-writer.mjs');
    const output = await new Promise<string>((resolve, reject) => {
      const proc = spawn(process.execPath, [child, dbPath], { stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      let err = '';
      proc.stdout.setEncoding('utf8');
      proc.stdout.on('data', (chunk: string) => {
        out += chunk;
        if (out.includes('committed')) proc.kill('SIGKILL');
      });
      proc.stderr.on('data', (chunk) => {
        err += chunk;
      });
      const timer = setTimeout(() => proc.kill('SIGKILL'), 20_000);
      proc.on('error', reject);
      proc.on('close', (_code, signal) => {
        clearTimeout(timer);
        if (signal !== 'SIGKILL' || !out.includes('committed')) reject(new Error(`writer: ${out} ${err}`));
        else resolve(out);
      });
    });
    expect(output).toContain('committed');
    db = new Database(dbPath);
    conn = db.connect();
    expect(await rows(conn, top(1))).toEqual([[13, 0]]);
  }, 30_000);
});

describe('the vector extension', () => {
  it('is built in: INSTALL and LOAD do nothing, UNINSTALL is refused', async () => {
    const db = new Database(':memory:');
    const conn = db.connect();
    for (const statement of ['INSTALL vector', 'LOAD EXTENSION vector', 'LOAD vector']) {
      expect((await rows(conn, statement))[0]?.[0], statement).toMatch(/^Extension vector is built in/);
    }
    await expect(conn.query('UNINSTALL vector')).rejects.toThrow('built in');
    db.close();
  });
});

describe('vector index over DOUBLE arrays', () => {
  it('indexes DOUBLE[n] and reports distances in double', async () => {
    const db = new Database(':memory:');
    const conn = db.connect();
    await setup(conn, 'DOUBLE');
    await conn.query(`MATCH (d:Doc {id: 3}) SET d.emb = [100.0, 100.0, 100.0, 99.9]`);
    const got = await rows(conn, top(1));
    expect(got[0]![0]).toBe(3);
    expect(got[0]![1]).toBeCloseTo(0.1, 12);
    db.close();
  });
});
