// Scalar macros (CREATE MACRO / DROP MACRO / CALL show_macros()), and how they follow explicit
// transactions and reopens.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Database } from '../../src/index.js';
import { rejection } from '../service/helpers.js';

describe('CREATE MACRO', () => {
  it('expands a macro where it is called, with defaults, named arguments and nesting', async () => {
    using db = new Database(':memory:');
    using conn = db.connect();
    await conn.query('CREATE NODE TABLE P(id INT64, age INT64, PRIMARY KEY(id))');
    await conn.query('CREATE (:P {id: 1, age: 35}), (:P {id: 2, age: 20})');
    await conn.query('CREATE MACRO case_macro(x) AS CASE x WHEN 35 THEN x + 1 ELSE x - 5 END');
    await conn.query('create macro addWithDefault(a, b := 3) as a + b');
    await conn.query('CREATE MACRO twice(x) AS addWithDefault(x, x)');
    await conn.query('CREATE MACRO prop(n) AS n.age');
    await conn.query('CREATE MACRO over(x) AS [y IN [1, 2] | y + x]');
    const rows = (
      await conn.query(
        'MATCH (p:P) RETURN case_macro(p.age), addWithDefault(p.id), addWithDefault(p.id, b := 10), ' +
          'twice(p.id + 1), prop(p), over(p.id) ORDER BY p.id',
      )
    ).rows;
    expect(rows).toEqual([
      [36, 4, 11, 4, 35, [2, 3]],
      [15, 5, 12, 6, 20, [3, 4]],
    ]);
    // An argument is one expression: the operators around the call do not reach into it.
    expect((await conn.query('RETURN addWithDefault(1, 2) * 2, twice(1 + 1) * 3')).rows).toEqual([[6, 12]]);
  });

  it('refuses wrong calls and definitions with clear errors', async () => {
    using db = new Database(':memory:');
    using conn = db.connect();
    await conn.query('CREATE MACRO add5(x) AS x + 5');
    expect((await rejection(conn.query('RETURN add5(1, 2)'))).message).toBe(
      'Binder exception: Invalid number of arguments for macro ADD5.',
    );
    expect((await rejection(conn.query('RETURN add5()'))).message).toContain('Invalid number of arguments');
    expect((await rejection(conn.query('CREATE MACRO ADD5(x, y) AS x + y'))).message).toBe(
      'Binder exception: Macro ADD5 already exists.',
    );
    await conn.query('CREATE MACRO loop(x) AS loop(x)');
    expect((await rejection(conn.query('RETURN loop(1)'))).message).toContain('calls itself');
    await conn.query('CREATE MACRO shadow(x) AS [x IN [1] | x]');
    expect((await rejection(conn.query('RETURN shadow(1)'))).message).toContain('binds its parameter x');
    expect((await rejection(conn.query("CREATE MACRO draw(s) AS nextval('s')"))).message).toContain(
      'cannot call nextval',
    );
    expect((await rejection(conn.query('CREATE MACRO bad(x, y := 1, z) AS x'))).code).toBe('QUERY_SYNTAX');
    expect((await rejection(conn.query('DROP MACRO nope'))).message).toBe(
      'Binder exception: Macro nope does not exist.',
    );
  });

  it('lists macros as Kùzu writes them back, and follows transactions and reopens', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'graphdb-macro-'));
    try {
      {
        using db = new Database(path.join(dir, 'db'));
        using conn = db.connect();
        await conn.query('CREATE MACRO add(a,b) AS (a+b)');
        await conn.query('CREATE MACRO c2(x) AS CASE x WHEN 35 THEN x + 1 END');
        expect((await conn.query('CALL show_macros() RETURN * ORDER BY name')).rows).toEqual([
          ['ADD', 'CREATE MACRO `ADD` (a,b) AS a + b;'],
          ['C2', 'CREATE MACRO `C2` (x) AS CASE x WHEN 35 THEN x + 1 END;'],
        ]);
        await conn.query('BEGIN TRANSACTION');
        await conn.query('DROP MACRO c2');
        await conn.query('CREATE MACRO inTx(a, b := 2) AS a * b');
        expect((await conn.query('RETURN inTx(4)')).rows).toEqual([[8]]);
        await conn.query('ROLLBACK');
        expect((await rejection(conn.query('RETURN inTx(4)'))).message).toContain('does not exist');
        expect((await conn.query('RETURN c2(35)')).rows).toEqual([[36]]);
        await conn.query('BEGIN TRANSACTION');
        await conn.query('CREATE MACRO inTx(a, b := 2) AS a * b');
        await conn.query('COMMIT');
      }
      using db = new Database(path.join(dir, 'db'));
      using conn = db.connect();
      expect((await conn.query('RETURN add(1, 2), c2(35), inTx(4), inTx(4, 3)')).rows).toEqual([
        [3, 36, 8, 12],
      ]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
