// A checkpoint after a few writes appends segment files (docs/storage-format.md, "Segments")
// instead of rewriting the tables: the base files stay, the data reads back after a reopen,
// CALL verify_storage() checks the segments, and enough writes fold them into new bases.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Database } from '../../src/index.js';

describe('append segments', () => {
  const dirs: string[] = [];
  const tempDir = () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'graphdb-segments-'));
    dirs.push(dir);
    return path.join(dir, 'db');
  };
  afterEach(() => {
    for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
  });

  const dataFiles = (dir: string) =>
    fs
      .readdirSync(dir)
      .filter((n) => n.endsWith('.gdb'))
      .sort();
  const bases = (dir: string, prefix: string) =>
    dataFiles(dir).filter((n) => n.startsWith(prefix) && !n.endsWith('-seg.gdb'));
  const segments = (dir: string) => dataFiles(dir).filter((n) => n.endsWith('-seg.gdb'));

  async function populate(dir: string): Promise<void> {
    const db = new Database(dir);
    const conn = db.connect();
    await conn.query('CREATE NODE TABLE P(id INT64, name STRING, PRIMARY KEY(id))');
    await conn.query('CREATE REL TABLE K(FROM P TO P, w DOUBLE)');
    await conn.query('UNWIND range(0, 999) AS i CREATE (:P {id: i, name: "person " + string(i)})');
    await conn.query(
      'UNWIND range(1, 999) AS i MATCH (a:P {id: i - 1}), (b:P {id: i}) CREATE (a)-[:K {w: i / 2.0}]->(b)',
    );
    await conn.query('CHECKPOINT');
    db.close();
  }

  it('writes the changed rows as segments, which read back after a reopen', async () => {
    const dir = tempDir();
    await populate(dir);
    const nodeBase = bases(dir, 'node-');
    const relBase = bases(dir, 'rel-');
    expect(segments(dir)).toEqual([]);
    let db = new Database(dir);
    let conn = db.connect();
    for (let i = 0; i < 20; i++) {
      await conn.query('CREATE (:P {id: $i, name: $n})', { i: 5000 + i, n: `new ${i}` });
    }
    await conn.query("MATCH (p:P {id: 7}) SET p.name = 'renamed'");
    await conn.query('MATCH (p:P {id: 8}) DETACH DELETE p');
    await conn.query('MATCH (a:P {id: 5000}), (b:P {id: 0}) CREATE (a)-[:K {w: 9.5}]->(b)');
    await conn.query('MATCH (:P {id: 20})-[k:K]->() SET k.w = -1.0');
    await conn.query('CHECKPOINT');
    // The bases stay; a segment per changed table joins them.
    expect(bases(dir, 'node-')).toEqual(nodeBase);
    expect(bases(dir, 'rel-')).toEqual(relBase);
    expect(segments(dir)).toHaveLength(2);
    const checked = (await conn.query('CALL verify_storage() RETURN file')).rows.map((r) => r[0]);
    for (const segment of segments(dir)) expect(checked).toContain(segment);
    db.close();

    db = new Database(dir);
    conn = db.connect();
    expect((await conn.query('MATCH (p:P) RETURN count(*)')).rows).toEqual([[1019]]);
    expect((await conn.query('MATCH (p:P {id: 5019}) RETURN p.name')).rows).toEqual([['new 19']]);
    expect((await conn.query('MATCH (p:P {id: 7}) RETURN p.name')).rows).toEqual([['renamed']]);
    expect((await conn.query('MATCH (p:P {id: 8}) RETURN p.name')).rows).toEqual([]);
    expect((await conn.query('MATCH (:P {id: 5000})-[k:K]->(q:P) RETURN q.id, k.w')).rows).toEqual([
      [0, 9.5],
    ]);
    expect((await conn.query('MATCH (:P {id: 20})-[k:K]->(q:P) RETURN q.id, k.w')).rows).toEqual([[21, -1]]);
    // 999 edges, 2 of them at the deleted person, one new.
    expect((await conn.query('MATCH ()-[k:K]->() RETURN count(*)')).rows).toEqual([[998]]);
    expect((await conn.query('MATCH (a:P {id: 0})-[:K]->()-[:K]->(c) RETURN c.id')).rows).toEqual([[2]]);

    // More than a quarter of the base's rows: the checkpoint folds the segments into a new base.
    await conn.query('UNWIND range(10000, 10299) AS i CREATE (:P {id: i, name: "bulk"})');
    await conn.query('CHECKPOINT');
    expect(bases(dir, 'node-')).not.toEqual(nodeBase);
    expect(segments(dir).filter((n) => n.startsWith('node-'))).toEqual([]);
    expect(segments(dir).filter((n) => n.startsWith('rel-'))).toHaveLength(1);
    db.close();
    db = new Database(dir);
    conn = db.connect();
    expect((await conn.query('MATCH (p:P) RETURN count(*)')).rows).toEqual([[1319]]);
    expect((await conn.query('MATCH (p:P {id: 10299}) RETURN p.name')).rows).toEqual([['bulk']]);
    expect((await conn.query('CALL verify_storage() RETURN count(*)')).rows[0][0]).toBe(
      dataFiles(dir).length,
    );
    db.close();
  });
});
