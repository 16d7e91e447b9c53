import os from 'node:os';
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

  it('rejects unknown options and bad paths', () => {
    expect(() => new Database(':memory:', { threads: 2 } as never)).toThrow(
      /unknown database option 'threads'/,
    );
    expect(() => new Database(42 as unknown as string)).toThrow(/path must be a string/);
    expect(() => new Database(':memory:', null as never)).toThrow(/options must be an object/);
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
