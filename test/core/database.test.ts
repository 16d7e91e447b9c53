import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Database, GraphDBError } from '../../src/index.js';

describe('Database', () => {
  it('opens in memory by default and for ":memory:" and ""', () => {
    for (const path of [undefined, ':memory:', '']) {
      const db = new Database(path);
      expect(db.inMemory).toBe(true);
      db.close();
    }
  });

  it('resolves maxThreadNum 0 or omitted to the machine parallelism', () => {
    const expected = os.availableParallelism();
    expect(new Database(':memory:').maxThreadNum).toBe(expected);
    expect(new Database(':memory:', { maxThreadNum: 0 }).maxThreadNum).toBe(expected);
    expect(new Database(':memory:', {}).maxThreadNum).toBe(expected);
  });

  it('keeps an explicit maxThreadNum', () => {
    expect(new Database(':memory:', { maxThreadNum: 1 }).maxThreadNum).toBe(1);
    expect(new Database(':memory:', { maxThreadNum: 7 }).maxThreadNum).toBe(7);
  });

  it('rejects invalid maxThreadNum values with a message naming the option', () => {
    expect(() => new Database(':memory:', { maxThreadNum: -1 })).toThrow(RangeError);
    expect(() => new Database(':memory:', { maxThreadNum: 1.5 })).toThrow(/maxThreadNum must be an integer/);
    expect(() => new Database(':memory:', { maxThreadNum: 100000 })).toThrow(/maxThreadNum must be between/);
    expect(() => new Database(':memory:', { maxThreadNum: '4' as unknown as number })).toThrow(TypeError);
    expect(() => new Database(':memory:', { maxThreadNum: Number.NaN })).toThrow(TypeError);
  });

  it("waits writeWaitMs for another connection's transaction, then fails with TX_CONFLICT", async () => {
    expect(new Database(':memory:', { maxThreadNum: 1 }).writeWaitMs).toBe(10_000);
    expect(() => new Database(':memory:', { writeWaitMs: -1 })).toThrow(RangeError);
    expect(() => new Database(':memory:', { writeWaitMs: 2 ** 31 })).toThrow(/writeWaitMs must be between/);
    expect(() => new Database(':memory:', { writeWaitMs: 1.5 })).toThrow(
      /writeWaitMs must be a whole number/,
    );
    expect(() => new Database(':memory:', { writeWaitMs: '5' as unknown as number })).toThrow(TypeError);
    for (const wait of [0, 150]) {
      const db = new Database(':memory:', { maxThreadNum: 2, writeWaitMs: wait });
      expect(db.writeWaitMs).toBe(wait);
      const holder = db.connect();
      const other = db.connect();
      await holder.query('CREATE NODE TABLE T(id INT64, PRIMARY KEY(id))');
      await holder.query('BEGIN TRANSACTION');
      await holder.query('CREATE (:T {id: 1})');
      const started = Date.now();
      const error = await other.query('CREATE (:T {id: 2})').catch((e: unknown) => e);
      const waited = Date.now() - started;
      expect(error).toBeInstanceOf(GraphDBError);
      expect((error as GraphDBError).code).toBe('TX_CONFLICT');
      expect(waited).toBeGreaterThanOrEqual(wait - 5);
      expect(waited).toBeLessThan(wait + 2000);
      await holder.query('COMMIT');
      await other.query('CREATE (:T {id: 2})');
      expect((await other.query('MATCH (t:T) RETURN count(*) AS n')).rows).toEqual([[2]]);
      db.close();
    }
  });

  it('rejects unknown options and bad paths', () => {
    expect(() => new Database(':memory:', { threads: 2 } as never)).toThrow(
      /unknown database option 'threads'/,
    );
    expect(() => new Database(42 as unknown as string)).toThrow(/path must be a string/);
    expect(() => new Database(':memory:', null as never)).toThrow(/options must be an object/);
  });

  it('refuses a path with a NUL character, which would open another folder', () => {
    const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'graphdb-nul-'));
    try {
      const nul = `${parent}/db\0suffix`;
      expect(() => new Database(nul)).toThrow(TypeError);
      expect(() => new Database(nul)).toThrow(/must not contain NUL/);
      expect(fs.existsSync(path.join(parent, 'db'))).toBe(false);
    } finally {
      fs.rmSync(parent, { recursive: true, force: true });
    }
  });

  it('refuses a folder that holds other things and no database, writing nothing into it', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'graphdb-foreign-'));
    try {
      fs.writeFileSync(path.join(dir, 'thesis.tex'), 'mine');
      let error: unknown;
      try {
        new Database(dir);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(GraphDBError);
      expect((error as GraphDBError).code).toBe('INVALID_REQUEST');
      expect((error as GraphDBError).message).toMatch(/not empty and holds no GraphDB database.*thesis\.tex/);
      expect(fs.readdirSync(dir)).toEqual(['thesis.tex']);
      expect(() => new Database(path.join(dir, 'thesis.tex'))).toThrow(/it is a file, not a folder/);
      // An empty folder becomes a database.
      const empty = path.join(dir, 'empty');
      fs.mkdirSync(empty);
      new Database(empty).close();
      expect(fs.readdirSync(empty)).toContain('MANIFEST');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('closes idempotently and refuses use after close', () => {
    const db = new Database();
    db.close();
    db.close();
    expect(db.closed).toBe(true);
    expect(() => db.connect()).toThrow(GraphDBError);
    try {
      db.connect();
    } catch (error) {
      expect((error as GraphDBError).code).toBe('CONNECTION_CLOSED');
    }
  });

  it('closes its connections when it closes', async () => {
    const db = new Database();
    const conn = db.connect();
    db.close();
    expect(conn.closed).toBe(true);
    await expect(conn.query('RETURN 1')).rejects.toMatchObject({ code: 'CONNECTION_CLOSED' });
  });

  it('supports using declarations', () => {
    let captured: Database | undefined;
    {
      using db = new Database();
      captured = db;
      using conn = db.connect();
      expect(conn.querySync('RETURN 1 AS x').rows).toEqual([[1]]);
    }
    expect(captured?.closed).toBe(true);
  });
});
