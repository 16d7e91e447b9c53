// Opening maps the tables' files (docs/storage-format.md, data file version 3): what a
// database held reads back after a reopen, takes writes, and CALL verify_storage() checks the
// checksums that opening does not read.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Database, GraphDBError } from '../../src/index.js';

describe('mapped storage', () => {
  const dirs: string[] = [];
  const tempDir = () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'graphdb-mapped-'));
    dirs.push(dir);
    return path.join(dir, 'db');
  };
  afterEach(() => {
    for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
  });

  async function populate(dir: string): Promise<void> {
    const db = new Database(dir);
    const conn = db.connect();
    await conn.query('CREATE NODE TABLE P(id INT64, name STRING, PRIMARY KEY(id))');
    await conn.query('CREATE REL TABLE K(FROM P TO P, w DOUBLE)');
    for (let i = 0; i < 300; i++) {
      await conn.query('CREATE (:P {id: $i, name: $n})', { i, n: `person ${i} with a longer name` });
    }
    for (let i = 1; i < 300; i++) {
      await conn.query('MATCH (a:P {id: $a}), (b:P {id: $b}) CREATE (a)-[:K {w: $w}]->(b)', {
        a: i - 1,
        b: i,
        w: i / 2,
      });
    }
    db.close();
  }

  it('reads back after a reopen, takes writes and keeps them across the next', async () => {
    const dir = tempDir();
    await populate(dir);
    let db = new Database(dir);
    let conn = db.connect();
    expect((await conn.query('MATCH (p:P {id: 123}) RETURN p.name')).rows).toEqual([
      ['person 123 with a longer name'],
    ]);
    expect((await conn.query('MATCH (:P {id: 5})-[k:K]->(q:P) RETURN q.id, k.w')).rows).toEqual([[6, 3]]);
    await conn.query("MATCH (p:P {id: 7}) SET p.name = 'renamed after a mapped open'");
    await conn.query('MATCH (p:P {id: 8}) DETACH DELETE p');
    await conn.query("CREATE (:P {id: 1000, name: 'new'})");
    await conn.query('MATCH (a:P {id: 1000}), (b:P {id: 0}) CREATE (a)-[:K {w: 9.5}]->(b)');
    db.close();
    db = new Database(dir);
    conn = db.connect();
    expect((await conn.query('MATCH (p:P) RETURN count(*)')).rows).toEqual([[300]]);
    expect((await conn.query('MATCH (p:P {id: 7}) RETURN p.name')).rows).toEqual([
      ['renamed after a mapped open'],
    ]);
    expect((await conn.query('MATCH (p:P {id: 8}) RETURN p.name')).rows).toEqual([]);
    expect((await conn.query('MATCH (:P {id: 1000})-[k:K]->(q:P) RETURN q.id, k.w')).rows).toEqual([
      [0, 9.5],
    ]);
    expect((await conn.query('MATCH ()-[k:K]->() RETURN count(*)')).rows).toEqual([[298]]);
    db.close();
  });

  it('CALL verify_storage() lists the files, and names a damaged one', async () => {
    const dir = tempDir();
    await populate(dir);
    let db = new Database(dir);
    let conn = db.connect();
    const checked = (await conn.query('CALL verify_storage() RETURN file, bytes')).rows;
    const names = fs.readdirSync(dir).filter((n) => n.endsWith('.gdb'));
    expect(checked.map((r) => r[0]).sort()).toEqual(names.sort());
    for (const [file, bytes] of checked) expect(bytes).toBe(fs.statSync(path.join(dir, file as string)).size);
    db.close();
    // One byte of the first section of the node table's file (its data starts at 4096).
    const node = names.find((n) => n.startsWith('node-')) as string;
    const bytes = fs.readFileSync(path.join(dir, node));
    bytes[4096 + 3] ^= 0x10;
    fs.writeFileSync(path.join(dir, node), bytes);
    db = new Database(dir); // opening does not read the section
    conn = db.connect();
    const error = await conn.query('CALL verify_storage() RETURN file').then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(GraphDBError);
    expect((error as GraphDBError).code).toBe('CORRUPTION');
    expect((error as GraphDBError).message).toContain(`${node}: checksum mismatch in section 0`);
    db.close();
  });

  // The sections of a data file (docs/storage-format.md): offset and length of each.
  function sections(bytes: Buffer): { offset: number; length: number }[] {
    const end = bytes.length - 20; // the footer
    const count = bytes.readUInt32LE(end - 4);
    const table = end - 20 - count * 20;
    return Array.from({ length: count }, (_, i) => ({
      offset: Number(bytes.readBigUInt64LE(table + i * 20)),
      length: Number(bytes.readBigUInt64LE(table + i * 20 + 8)),
    }));
  }

  it('answers CORRUPTION, not a crash, for an adjacency entry out of range', async () => {
    const dir = tempDir();
    await populate(dir);
    const rel = fs.readdirSync(dir).find((n) => n.startsWith('rel-')) as string;
    const file = path.join(dir, rel);
    const original = fs.readFileSync(file);
    // The last four sections: forward offsets and entries, backward offsets and entries.
    const all = sections(original);
    const queries = [
      'MATCH (:P {id: 5})-[k:K]->(q:P) RETURN q.id, k.w',
      'MATCH (:P {id: 5})<-[k:K]-(q:P) RETURN q.name',
      'MATCH (a:P)-[:K]->(b:P) WHERE a.id < 50 RETURN count(b.name)',
      'MATCH (a:P)<-[:K]-(b:P) WHERE a.id < 50 RETURN count(b.name)',
    ];
    for (const which of [all.length - 3, all.length - 1]) {
      const bytes = Buffer.from(original);
      const { offset, length } = all[which] as { offset: number; length: number };
      bytes.fill(0xff, offset, offset + length); // neighbours far past the 300 persons
      fs.writeFileSync(file, bytes);
      const db = new Database(dir); // opening reads no entry
      const conn = db.connect();
      const failed: number[] = [];
      for (const [i, q] of queries.entries()) {
        const error = await conn.query(q).then(
          () => undefined,
          (e: unknown) => e,
        );
        if (error !== undefined) {
          expect(error).toBeInstanceOf(GraphDBError);
          expect((error as GraphDBError).code).toBe('CORRUPTION');
          expect((error as GraphDBError).message).toContain('adjacency entry is out of range');
          failed.push(i);
        }
      }
      // The expansion from person 5 in the damaged direction fails (the others may, by the
      // direction the plan expands); the rest of the database still answers.
      expect(failed).toContain(which === all.length - 3 ? 0 : 1);
      expect((await conn.query('MATCH (p:P {id: 5}) RETURN p.name')).rows).toEqual([
        ['person 5 with a longer name'],
      ]);
      const verify = await conn.query('CALL verify_storage() RETURN file').then(
        () => undefined,
        (e: unknown) => e,
      );
      expect((verify as GraphDBError).code).toBe('CORRUPTION');
      expect((verify as GraphDBError).message).toContain(`${rel}: checksum mismatch in section ${which}`);
      db.close();
    }
    fs.writeFileSync(file, original);
    const db = new Database(dir);
    expect((await db.connect().query('MATCH ()-[k:K]->() RETURN count(*)')).rows).toEqual([[299]]);
    db.close();
  });

  it('refuses a truncated file at open with CORRUPTION naming it', async () => {
    const dir = tempDir();
    await populate(dir);
    const rel = fs.readdirSync(dir).find((n) => n.startsWith('rel-')) as string;
    const file = path.join(dir, rel);
    fs.truncateSync(file, Math.floor(fs.statSync(file).size / 2));
    expect(() => new Database(dir)).toThrow(new RegExp(`corruption in .*${rel}`));
  });
});
