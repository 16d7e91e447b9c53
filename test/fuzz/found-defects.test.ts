// Defects the fuzz suites found in the C++ engine (native/), kept as regression tests now that
// they are fixed. A new finding goes here as an `it.fails` until its fix lands.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Connection, Database } from '../../src/index.js';

let db: Database;
let conn: Connection;

beforeAll(() => {
  db = new Database(':memory:', { maxThreadNum: 1 });
  conn = db.connect();
});

afterAll(() => {
  db.close();
});

const rowsOf = async (query: string) => (await conn.query(query)).rows;

describe('ORDER BY with SKIP + LIMIT near 2^63 (found by test/fuzz/query.fuzz.test.ts)', () => {
  // SortOp (native/exec/basic_operators.cc) keeps skip + limit rows in a top-k heap that it
  // trimmed once it held `2 * keep + 64` rows; for keep >= 2^63 - 32 that sum wrapped around to
  // a small number, the trim ran after a few dozen rows and `rows_.resize(keep)` grew the vector
  // to 2^63 elements: INTERNAL ("vector::_M_default_append", a 500 over HTTP). Now skip + limit
  // saturates and a limit too large to double keeps every row.
  it('answers the statements that work on fewer rows', async () => {
    expect(
      await rowsOf('UNWIND range(1, 50) AS x RETURN x ORDER BY x SKIP 9223372036854775807 LIMIT 2'),
    ).toEqual([]);
    expect(
      await rowsOf('UNWIND range(1, 50) AS x RETURN x ORDER BY x LIMIT 9223372036854775807'),
    ).toHaveLength(50);
    expect(
      await rowsOf('UNWIND range(1, 100) AS x RETURN x ORDER BY x LIMIT 2305843009213693952'),
    ).toHaveLength(100);
  });

  it('skips past every row of a sort of a hundred rows', async () => {
    expect(
      await rowsOf('UNWIND range(1, 100) AS x RETURN x ORDER BY x SKIP 9223372036854775807 LIMIT 2'),
    ).toEqual([]);
  });

  it('returns every row under LIMIT 2^63 - 1', async () => {
    const rows = await rowsOf('UNWIND range(1, 100) AS x RETURN x ORDER BY x DESC LIMIT 9223372036854775807');
    expect(rows).toHaveLength(100);
    expect(rows[0]).toEqual([100]);
  });

  it('takes SKIP 1 LIMIT 2^63 - 1 in a WITH', async () => {
    expect(
      await rowsOf(
        'UNWIND range(1, 100) AS x WITH x ORDER BY x SKIP 1 LIMIT 9223372036854775807 RETURN count(*)',
      ),
    ).toEqual([[99]]);
  });

  it('answers SKIP 2^63 - 2 LIMIT 2 over a cross product', async () => {
    expect(
      await rowsOf(
        'UNWIND range(1, 10) AS a UNWIND range(1, 10) AS b RETURN a * b AS p ORDER BY p SKIP 9223372036854775806 LIMIT 2',
      ),
    ).toEqual([]);
  });
});

describe('repeat(), lpad() and rpad() past the statement memory limit (found by test/fuzz/query.fuzz.test.ts)', () => {
  // range() and collect() count their lists against maxStatementMemoryBytes; the string
  // builders did not: a generated `repeat('Oslo', 4294967296)` or `lpad('a', 500000000, '*')`
  // grew the fuzz process past 3 GB before it was killed (with a 64 MiB statement limit and a
  // 1 s time limit). Now they refuse a string past the limit before building it, and any past
  // 2^31 - 1 bytes.
  let limited: Database;
  let small: Connection;

  beforeAll(() => {
    limited = new Database(':memory:', { maxThreadNum: 1, maxStatementMemoryBytes: 1024 * 1024 });
    small = limited.connect();
  });

  afterAll(() => {
    limited.close();
  });

  const codeOf = async (query: string) => {
    try {
      await small.query(query);
      return 'ok';
    } catch (error) {
      return (error as { code?: string }).code;
    }
  };

  it('refuses the lists of range() and collect() past it', async () => {
    expect(await codeOf('RETURN size(range(1, 1000000)) AS n')).toBe('RESOURCE_LIMIT');
    expect(await codeOf('UNWIND range(1, 200000) AS x RETURN size(collect(x)) AS n')).toBe('RESOURCE_LIMIT');
    expect(await codeOf("RETURN size(repeat('ab', 1000)) AS n")).toBe('ok');
  });

  it('refuses a repeat() past it', async () => {
    expect(await codeOf("RETURN size(repeat('ab', 1000000)) AS n")).toBe('RESOURCE_LIMIT');
  });

  it('refuses an lpad() past it', async () => {
    expect(await codeOf("RETURN size(lpad('a', 2000000, '*')) AS n")).toBe('RESOURCE_LIMIT');
  });

  it('refuses an rpad() past it', async () => {
    expect(await codeOf("RETURN size(rpad('a', 2000000, '*')) AS n")).toBe('RESOURCE_LIMIT');
  });

  it('refuses a string past the largest one, with or without a limit', async () => {
    const unlimited = db.connect();
    try {
      await expect(unlimited.query("RETURN size(repeat('Oslo', 4294967296)) AS n")).rejects.toMatchObject({
        code: 'QUERY_RUNTIME',
      });
      await expect(
        unlimited.query("RETURN size(lpad('a', 9223372036854775807, '*')) AS n"),
      ).rejects.toMatchObject({
        code: 'QUERY_RUNTIME',
      });
      expect((await unlimited.query("RETURN size(rpad('a', 5, 'xy')) AS n")).rows).toEqual([[5]]);
      // An empty string repeated any number of times is empty, at once (the fuzz run found a
      // loop of 2^63 appends).
      expect((await unlimited.query("RETURN repeat('', 9223372036854775807) AS s")).rows).toEqual([['']]);
      expect((await unlimited.query("RETURN repeat('ab', 0) AS s, repeat('ab', -3) AS t")).rows).toEqual([
        ['', ''],
      ]);
    } finally {
      unlimited.close();
    }
  });
});
