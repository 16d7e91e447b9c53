// How results and parameters cross the addon boundary: column and type arrays are frozen and
// handed out again while unchanged (FrozenStringArrays), cells come back in chunks of call
// arguments, parameters go as name/value call arguments. None of it may change what a caller
// sees, whatever the sequence of statements.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { databaseInternals } from '../../src/core/database.js';
import { type Connection, Database, GraphDBError } from '../../src/index.js';
import {
  addon,
  appendCells,
  MAX_SIZED_CELLS,
  type PackedResult,
  packOptions,
  packResult,
  rowsOf,
  run,
} from '../../src/native/addon.js';

describe('result packing', () => {
  let db: Database;
  let conn: Connection;

  beforeEach(() => {
    db = new Database(':memory:', { maxThreadNum: 2 });
    conn = db.connect();
    conn.querySync('CREATE NODE TABLE P(id INT64, name STRING, age INT64, PRIMARY KEY(id))');
    conn.querySync("CREATE (:P {id: 1, name: 'a', age: 30}), (:P {id: 2, name: 'b', age: 40})");
  });

  afterEach(() => {
    db.close();
  });

  it('gives each result its own columns and types, however the statements alternate', async () => {
    const byId = 'MATCH (p:P {id: $id}) RETURN p.name, p.age';
    const expected: [string, () => Promise<unknown>, string[], string[], unknown[][]][] = [
      [
        'point read',
        () => conn.query(byId, { id: 1 }),
        ['p.name', 'p.age'],
        ['STRING', 'INT64'],
        [['a', 30]],
      ],
      [
        'other names',
        () => conn.query('RETURN 1 AS x, "s" AS y'),
        ['x', 'y'],
        ['INT64', 'STRING'],
        [[1, 's']],
      ],
      [
        'same names, other types',
        () => conn.query('RETURN "1" AS x, 2 AS y'),
        ['x', 'y'],
        ['STRING', 'INT64'],
        [['1', 2]],
      ],
      ['one column', () => conn.query('RETURN 1.5 AS x'), ['x'], ['DOUBLE'], [[1.5]]],
      [
        'nested types',
        () => conn.query('RETURN [1, 2] AS x, {a: 1} AS y'),
        ['x', 'y'],
        ['INT64[]', 'STRUCT(a INT64)'],
        [[[1, 2], { a: 1 }]],
      ],
      [
        'nested, other field name',
        () => conn.query('RETURN [1, 2] AS x, {A: 1} AS y'),
        ['x', 'y'],
        ['INT64[]', 'STRUCT(A INT64)'],
        [[[1, 2], { A: 1 }]],
      ],
      ['no rows', () => conn.query(byId, { id: 9 }), ['p.name', 'p.age'], ['STRING', 'INT64'], []],
    ];
    // More distinct shapes than the cache keeps, twice over, in an order that changes.
    for (let n = 0; n < 12; n++)
      expected.push([`shape ${n}`, () => conn.query(`RETURN ${n} AS c${n}`), [`c${n}`], ['INT64'], [[n]]]);
    for (let round = 0; round < 3; round++) {
      const order = round === 1 ? [...expected].reverse() : expected;
      for (const [name, run, columns, types, rows] of order) {
        const r = (await run()) as { columns: string[]; types: string[]; rows: unknown[][] };
        expect({ name, columns: r.columns, types: r.types, rows: r.rows }).toEqual({
          name,
          columns,
          types,
          rows,
        });
      }
    }
  });

  it('hands out frozen arrays, shared while the columns and types stay the same', async () => {
    const read = 'MATCH (p:P {id: $id}) RETURN p.name, p.age';
    const first = await conn.query(read, { id: 1 });
    const second = await conn.query(read, { id: 2 });
    expect(Object.isFrozen(first.columns)).toBe(true);
    expect(Object.isFrozen(first.types)).toBe(true);
    expect(second.columns).toBe(first.columns);
    expect(second.types).toBe(first.types);
    expect(second.rows).not.toBe(first.rows);
    // Mutation fails (test files are strict mode) and changes nothing later results see.
    const columns = first.columns as string[];
    const types = first.types as string[];
    expect(() => columns.push('x')).toThrow(TypeError);
    expect(() => {
      columns[0] = 'changed';
    }).toThrow(TypeError);
    expect(() => types.sort()).toThrow(TypeError);
    expect(() => {
      types.length = 0;
    }).toThrow(TypeError);
    const third = conn.querySync(read, { id: 1 });
    expect(third.columns).toEqual(['p.name', 'p.age']);
    expect(third.types).toEqual(['STRING', 'INT64']);
    expect(third.toObjects()).toEqual([{ 'p.name': 'a', 'p.age': 30 }]);
    // The rows are the caller's own.
    third.rows[0]?.push('mine');
    expect(conn.querySync(read, { id: 1 }).rows).toEqual([['a', 30]]);
  });

  it('follows a schema change under the same query text', async () => {
    const read = 'MATCH (q:Q) RETURN q.v AS v';
    conn.querySync('CREATE NODE TABLE Q(id INT64, v INT64, PRIMARY KEY(id))');
    conn.querySync('CREATE (:Q {id: 1, v: 7})');
    const before = await conn.query(read);
    expect(before.types).toEqual(['INT64']);
    expect(before.rows).toEqual([[7]]);
    conn.querySync('DROP TABLE Q');
    conn.querySync('CREATE NODE TABLE Q(id INT64, v STRING, PRIMARY KEY(id))');
    conn.querySync("CREATE (:Q {id: 1, v: 'seven'})");
    const after = await conn.query(read);
    expect(after.columns).toEqual(['v']);
    expect(after.types).toEqual(['STRING']);
    expect(after.rows).toEqual([['seven']]);
    expect(before.types).toEqual(['INT64']); // the earlier result is unchanged
  });

  it('keeps two connections interleaving different statements apart', async () => {
    const other = db.connect();
    const a = 'MATCH (p:P {id: $id}) RETURN p.name';
    const b = 'MATCH (p:P {id: $id}) RETURN p.age AS age, p.id AS id';
    for (let i = 0; i < 20; i++) {
      const id = 1 + (i % 2);
      const [ra, rb] = await Promise.all([conn.query(a, { id }), other.query(b, { id })]);
      expect([ra.columns, ra.types, ra.rows]).toEqual([['p.name'], ['STRING'], [[id === 1 ? 'a' : 'b']]]);
      expect([rb.columns, rb.types, rb.rows]).toEqual([
        ['age', 'id'],
        ['INT64', 'INT64'],
        [[id === 1 ? 30 : 40, id]],
      ]);
      const sa = other.querySync(a, { id });
      const sb = conn.querySync(b, { id });
      expect([sa.columns, sa.rows]).toEqual([['p.name'], [[id === 1 ? 'a' : 'b']]]);
      expect([sb.columns, sb.rows]).toEqual([['age', 'id'], [[id === 1 ? 30 : 40, id]]]);
    }
    other.close();
  });

  it('reports the counters of writes, and zeros otherwise', async () => {
    const zeros = {
      nodesCreated: 0,
      nodesDeleted: 0,
      relationshipsCreated: 0,
      relationshipsDeleted: 0,
      propertiesSet: 0,
    };
    expect((await conn.query('MATCH (p:P) RETURN count(*)')).summary.counters).toEqual(zeros);
    conn.querySync('CREATE REL TABLE K(FROM P TO P)');
    const created = await conn.query(
      "CREATE (:P {id: 3, name: 'c', age: 1}), (:P {id: 4, name: 'd', age: 2})",
    );
    expect(created.columns).toEqual([]);
    expect(created.rows).toEqual([]);
    expect(created.summary.counters.nodesCreated).toBe(2);
    expect(created.summary.counters.nodesDeleted).toBe(0);
    const rel = conn.querySync('MATCH (a:P {id: 3}), (b:P {id: 4}) CREATE (a)-[:K]->(b)');
    expect(rel.summary.counters).toEqual({ ...zeros, relationshipsCreated: 1 });
    const set = await conn.query('MATCH (p:P) WHERE p.id > 2 SET p.age = 5 RETURN p.id ORDER BY p.id');
    expect(set.rows).toEqual([[3], [4]]);
    expect(set.summary.counters.propertiesSet).toBe(2);
    expect(set.summary.rowCount).toBe(2);
    const deleted = await conn.query('MATCH (p:P) WHERE p.id > 2 DETACH DELETE p');
    expect(deleted.summary.counters.nodesDeleted).toBe(2);
    expect(deleted.summary.counters.relationshipsDeleted).toBe(1);
    expect((await conn.query('MATCH (p:P {id: $id}) RETURN p.name', { id: 1 })).summary.counters).toEqual(
      zeros,
    );
  });

  it('hands out repeated strings as they are, whatever their bytes and however they collide', async () => {
    // The native side hands a short string met again in a chunk out again (RepeatedStrings):
    // many distinct short strings (more than its slots), a few repeated ones, strings at and
    // past its byte limit, non-ASCII ones, empty ones and NULLs, over several chunks.
    const repeated = ['Zurich', 'Zürich', '東京', '', 'x', 'exactly twenty-two b.', 'exactly twenty-two by.'];
    const values: (string | null)[] = [];
    for (let i = 0; i < 3000; i++) {
      if (i % 7 === 0) values.push(repeated[i % repeated.length] ?? null);
      else if (i % 11 === 0) values.push(null);
      else if (i % 13 === 0) values.push(`a string well past the twenty-two bytes ${i % 5}`);
      else values.push(`k${i % 300}`);
    }
    const r = await conn.query('UNWIND $values AS v RETURN v, size(v) AS n', { values });
    expect(r.rows).toEqual(values.map((v) => [v, v === null ? null : [...v].length]));
    expect(conn.querySync('UNWIND $values AS v RETURN v', { values }).rows).toEqual(values.map((v) => [v]));
  });

  it('writes each result over the rows handed out before it, whatever their width', async () => {
    // On a connection's worker and run synchronously, a result's rows go back to its slot once
    // converted, and the next statement's result is written over them
    // (ExecutionSlot::ReturnRows): results of other widths and lengths, cells that own memory
    // (long strings, lists, nodes) and NULLs, a result past what is kept, a failed statement
    // and DDL between them, the two deliveries in turn.
    const native = new addon.NativeConnection(databaseInternals(db).native);
    let turn = 0;
    const inTurn = async (source: string, params?: Record<string, unknown>) => {
      const delivery = turn++ % 2 === 0 ? 'worker' : 'sync';
      return rowsOf((await run(native, { source, params, options: { delivery } })) as PackedResult);
    };
    const long = (i: number) => `a string long enough to be held apart from its cell ${i}`;
    const statements: [string, Record<string, unknown> | undefined, unknown[][]][] = [];
    const wide = (n: number) =>
      [
        `UNWIND range(1, ${n}) AS i RETURN i, 's' + CAST(i AS STRING), CASE WHEN i % 3 = 0 THEN NULL ELSE [i, i] END`,
        undefined,
        Array.from({ length: n }, (_, k) => [k + 1, `s${k + 1}`, (k + 1) % 3 === 0 ? null : [k + 1, k + 1]]),
      ] as [string, undefined, unknown[][]];
    const narrow = (n: number) =>
      [
        'UNWIND $v AS v RETURN v',
        { v: Array.from({ length: n }, (_, k) => (k % 2 ? long(k) : null)) },
        Array.from({ length: n }, (_, k) => [k % 2 ? long(k) : null]),
      ] as [string, Record<string, unknown>, unknown[][]];
    statements.push(wide(1500), narrow(10), wide(3), narrow(2000), wide(7000), narrow(1), wide(800));
    statements.push([
      'MATCH (p:P) RETURN p.name, p, p.age ORDER BY p.age',
      undefined,
      [
        ['a', expect.objectContaining({ name: 'a', age: 30 }), 30],
        ['b', expect.objectContaining({ name: 'b', age: 40 }), 40],
      ],
    ]);
    const seen: unknown[][][] = [];
    for (let round = 0; round < 2; round++) {
      for (const [source, params, expected] of statements) {
        const rows = await inTurn(source, params);
        expect(rows).toEqual(expected);
        seen.push(rows);
      }
      await expect(inTurn('RETURN 1 + "x"')).rejects.toThrow();
      await inTurn(`CREATE NODE TABLE T${round}(id INT64 PRIMARY KEY)`);
      expect(await inTurn('RETURN 1 AS one')).toEqual([[1]]);
    }
    // The rows handed out are the caller's: none was written over.
    statements.forEach(([, , expected], i) => {
      expect(seen[i]).toEqual(expected);
      expect(seen[i + statements.length]).toEqual(expected);
    });
    native.close();
  });

  it('returns multi-row results whole, across chunk boundaries', async () => {
    // 3 columns: rows straddle the 1024-cell chunks the native side sends.
    const text = 'UNWIND range(1, $n) AS i RETURN i, "s" + CAST(i AS STRING) AS s, i % 2 = 0 AS even';
    for (const n of [1, 2, 341, 342, 1000, 2500]) {
      const expected = Array.from({ length: n }, (_, k) => [k + 1, `s${k + 1}`, (k + 1) % 2 === 0]);
      const r = await conn.query(text, { n });
      expect(r.rowCount).toBe(n);
      expect(r.summary.rowCount).toBe(n);
      expect(r.rows).toEqual(expected);
      expect(conn.querySync(text, { n }).rows).toEqual(expected);
      const t = await conn.queryText(text, { n });
      expect(t.rows).toEqual(
        expected.map((row) => row.map((v) => (v === true ? 'True' : v === false ? 'False' : String(v)))),
      );
    }
    // The cells, in the one array made at its size: every place filled, nothing past the end.
    const native = new addon.NativeConnection(databaseInternals(db).native);
    for (const delivery of ['worker', 'sync'] as const) {
      const packed = (await run(native, {
        source: text,
        params: { n: 2500 },
        options: { delivery },
      })) as PackedResult;
      const cells = packed[2];
      expect(cells.length).toBe(7500);
      expect(Object.keys(cells).length).toBe(7500); // no hole
      expect(cells.slice(1020, 1030)).toEqual([
        341,
        's341',
        false,
        342,
        's342',
        true,
        343,
        's343',
        false,
        344,
      ]);
    }
    native.close();
    const wide = `RETURN ${Array.from({ length: 1100 }, (_, k) => `${k} AS c${k}`).join(', ')}`;
    const w = conn.querySync(wide);
    expect(w.columns.length).toBe(1100);
    expect(w.rows).toEqual([Array.from({ length: 1100 }, (_, k) => k)]);
  });

  it('grows the cells of a result too large for an array made at its size', () => {
    // Past MAX_SIZED_CELLS, V8 would give a sized array slow dictionary elements: the cells
    // come first with the call and then at the array's end.
    const packed = packResult([], [], null, 0, 0, 0, 0, 0, 0, MAX_SIZED_CELLS + 3, 'a', 'b');
    expect(packed[2]).toEqual(['a', 'b']);
    appendCells(packed as unknown as PackedResult, 2, 'c', 'd', 'e');
    expect(packed[2]).toEqual(['a', 'b', 'c', 'd', 'e']);
    const sized = packResult([], [], null, 0, 0, 0, 0, 0, 0, 5, 'a', 'b');
    expect(sized[2].length).toBe(5);
    appendCells(sized as unknown as PackedResult, 2, 'c', 'd', 'e');
    expect(sized[2]).toEqual(['a', 'b', 'c', 'd', 'e']);
  });

  it('makes list cells of every length whole, nested, in both forms', async () => {
    // Lists of 4 items or more are made by JS builders, 256 items a call: lengths around
    // those bounds, items of every kind, lists inside lists and maps, collect() per group.
    for (const n of [0, 1, 3, 4, 5, 255, 256, 257, 511, 512, 513, 1000]) {
      const expected = Array.from({ length: n }, (_, k) => k + 1);
      const r = conn.querySync(`RETURN range(1, ${n}) AS l, [range(1, ${n})] AS nested`);
      expect(r.rows).toEqual([[expected, [expected]]]);
      const typed = await conn.query(`RETURN range(1, ${n}) AS l`);
      expect(typed.rows).toEqual([[expected]]);
    }
    const mixed = conn.querySync(
      "RETURN ['a', NULL, 'bcdefghijklmnopqrstuvwxyz', 'a', 'é'] AS s, [1.5, 2.5, NULL, -0.5] AS d, " +
        '[{x: [1, 2, 3, 4]}, {x: []}] AS m',
    );
    expect(mixed.rows).toEqual([
      [
        ['a', null, 'bcdefghijklmnopqrstuvwxyz', 'a', 'é'],
        [1.5, 2.5, null, -0.5],
        [{ x: [1, 2, 3, 4] }, { x: [] }],
      ],
    ]);
    conn.querySync('UNWIND range(3, 700) AS i CREATE (:P {id: i, name: CAST(i AS STRING), age: i % 3})');
    const grouped = conn.querySync('MATCH (p:P) RETURN p.age AS a, collect(p.id) AS ids ORDER BY a');
    const all = [1, 2, ...Array.from({ length: 698 }, (_, k) => k + 3)];
    const byAge = [30, 40, 0, 1, 2].map((age) =>
      all.filter((id) => (id <= 2 ? (id === 1 ? 30 : 40) : id % 3) === age),
    );
    expect(grouped.rows).toEqual(
      [0, 1, 2, 30, 40].map((age) => [age, byAge[[30, 40, 0, 1, 2].indexOf(age)]]),
    );
  });

  it('binds parameters with different names on consecutive calls', async () => {
    const read = 'MATCH (p:P {id: $id}) RETURN p.name';
    expect((await conn.query(read, { id: 1 })).rows).toEqual([['a']]);
    expect((await conn.query('RETURN $a + $b AS s', { a: 1, b: 2 })).rows).toEqual([[3]]);
    expect((await conn.query('RETURN $b - $a AS s', { b: 10, a: 4 })).rows).toEqual([[6]]);
    expect((await conn.query(read, { id: 2, unused: 'x' })).rows).toEqual([['b']]);
    await expect(conn.query(read, {})).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
    await expect(conn.query(read, { ID: 1 })).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
    expect((await conn.query(read, { id: 1 })).rows).toEqual([['a']]);
    expect(conn.querySync('RETURN $x AS x', { x: undefined }).rows).toEqual([[null]]);
    // for...in's names: inherited enumerable properties count, non-enumerable ones do not.
    const inherited = Object.create({ a: 1 }) as Record<string, unknown>;
    inherited.b = 2;
    Object.defineProperty(inherited, 'hidden', { value: 5, enumerable: false });
    expect((await conn.query('RETURN $a + $b AS s', inherited)).rows).toEqual([[3]]);
    await expect(conn.query('RETURN $hidden', inherited)).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
    // Names beyond ASCII, and more names than go as call arguments.
    expect((await conn.query('RETURN $e AS e', { e: 'ü', é: 'unused' })).rows).toEqual([['ü']]);
    const many: Record<string, number> = {};
    for (let k = 0; k < 1500; k++) many[`k${k}`] = k;
    expect((await conn.query('RETURN $k0 + $k1499 AS s', many)).rows).toEqual([[1499]]);
    expect(conn.querySync('RETURN $k7 AS s', many).rows).toEqual([[7]]);
  });

  it('converts texts of every length exactly', async () => {
    // Around the native side's buffer sizes (64 and 256 bytes), with characters of 1 to 4 bytes
    // at every alignment.
    for (const piece of ['é', '€', '😀']) {
      for (const lead of ['', 'a', 'aa', 'aaa']) {
        for (let count = 1; lead.length + count * Buffer.byteLength(piece) < 280; count++) {
          const value = lead + piece.repeat(count);
          expect((await conn.query('RETURN $v AS v', { v: value })).rows[0]?.[0]).toBe(value);
        }
      }
    }
    expect(conn.querySync('RETURN $v AS v', { v: 'x'.repeat(5000) }).rows[0]?.[0]).toBe('x'.repeat(5000));
    // Long texts, then short ones, on the same connection.
    const long = `RETURN '${'x'.repeat(100_000)}' AS v`;
    expect((await conn.query(long)).rows).toEqual([['x'.repeat(100_000)]]);
    expect((await conn.query('RETURN 1 AS one')).rows).toEqual([[1]]);
    const unicode = `RETURN '${'ñ€😀'.repeat(40)}' AS v`;
    expect((await conn.query(unicode)).rows).toEqual([['ñ€😀'.repeat(40)]]);
    expect(conn.querySync("RETURN 'é' AS v").rows).toEqual([['é']]);
    // A U+FFFD of its own is text; a lone surrogate is refused (see test/core/parameters.test.ts).
    expect((await conn.query('RETURN $v AS v', { v: 'a\uFFFDb' })).rows).toEqual([['a\uFFFDb']]);
  });

  it('widens whole numbers in nested lists beside fractions (embeddings from JavaScript)', async () => {
    const rows = (await conn.query('RETURN $e AS e, typeof($e) AS t', { e: [[1, 0], [0.5, 0], []] })).rows;
    expect(rows).toEqual([[[[1, 0], [0.5, 0], []], 'DOUBLE[][]']]);
    await expect(conn.query('RETURN $e', { e: [[1], ['a']] })).rejects.toThrow(
      /list parameter mixes element types INT64\[\] and STRING\[\]/,
    );
  });

  it('rejects wrong input with the same errors as before', async () => {
    const cases: [unknown, RegExp, new (...args: never[]) => Error][] = [
      [() => 1, /functions and symbols cannot be query parameters/, TypeError],
      [Symbol('s'), /functions and symbols cannot be query parameters/, TypeError],
      [[1, 'a'], /list parameter mixes element types INT64 and STRING/, TypeError],
      [2n ** 130n, /bigint parameter is outside the INT128 range/, RangeError],
      [new Date(Number.NaN), /invalid Date parameter/, TypeError],
    ];
    let deep: unknown = 1;
    for (let k = 0; k < 70; k++) deep = [deep];
    cases.push([deep, /parameter nesting is too deep/, TypeError]);
    for (const [value, message, type] of cases) {
      for (const params of [{ v: value }, { a: 1, v: value }]) {
        await expect(conn.query('RETURN $v', params)).rejects.toThrow(message);
        await expect(conn.query('RETURN $v', params)).rejects.toBeInstanceOf(type);
        await expect(conn.queryText('RETURN $v', params)).rejects.toThrow(message);
        expect(() => conn.querySync('RETURN $v', params)).toThrow(message);
      }
    }
    // 64 levels of lists, maps or structs, the parameter's own the first (docs/security.md).
    const levels = (n: number, wrap: (v: unknown) => unknown): unknown => {
      let v: unknown = 1;
      for (let k = 0; k < n; k++) v = wrap(v);
      return v;
    };
    for (const wrap of [
      (v: unknown) => [v],
      (v: unknown) => ({ a: v }),
      (v: unknown) => new Map([['a', v]]),
    ]) {
      await expect(conn.query('RETURN 1', { v: levels(64, wrap) })).resolves.toBeDefined();
      await expect(conn.query('RETURN 1', { v: levels(65, wrap) })).rejects.toThrow(
        /parameter nesting is too deep \(more than 64 levels\)/,
      );
    }
    for (const params of [[], 5, null, 'x']) {
      await expect(conn.query('RETURN 1', params as never)).rejects.toThrow(
        'query parameters must be a plain object',
      );
      expect(() => conn.querySync('RETURN 1', params as never)).toThrow(
        'query parameters must be a plain object',
      );
    }
    await expect(conn.query(5 as never)).rejects.toThrow('query text must be a string, got number');
    // The connection works on afterwards.
    expect((await conn.query('MATCH (p:P {id: $id}) RETURN p.name', { id: 1 })).rows).toEqual([['a']]);
    expect(conn.querySync('RETURN 1 AS x').rows).toEqual([[1]]);
  });

  it('takes the parameters as an object at the native level too', async () => {
    const native = new addon.NativeConnection(databaseInternals(db).native);
    // `run` with delivery 'sync', its options packed as src/native/addon.ts packs them.
    const querySync = (...args: unknown[]) =>
      native.run(packOptions({ delivery: 'sync' }), ...(args as [string]));
    try {
      expect((querySync('RETURN $a + 1 AS x', { a: 41 }) as unknown[])[2]).toEqual([42]);
      expect((querySync('RETURN $a + $b AS x', 'a', 1, 'b', 2) as unknown[])[2]).toEqual([3]);
      const text = await run(native, {
        source: 'RETURN $a AS x',
        params: { a: 1 },
        options: { output: 'text' },
      });
      expect(text.rows).toEqual([['1']]);
      expect(() => querySync('RETURN 1', 'a')).toThrow('parameters must be an object');
      expect(() => querySync('RETURN 1', [])).toThrow('parameters must be an object');
      expect(() => querySync('RETURN $a', 'a', 1, 'b')).toThrow('parameters must be name and value pairs');
      expect(() => querySync('RETURN $a', 1, 1, 'b', 2)).toThrow('parameter names must be strings');
      expect(() => querySync(1)).toThrow("run: the source must be the statement's text");
      expect(() => native.run(new Float64Array(3), 'RETURN 1')).toThrow('run: options must be packed');
      expect(() => run(native, { source: 'RETURN 1', options: { delivery: 'later' as never } })).toThrow(
        'run option delivery must be one of auto, worker, inline, sync, cursor, got later',
      );
      expect(() => run(native, { source: 'RETURN 1', options: { timeoutMs: -1 } })).toThrow(
        'timeoutMs must be a number of milliseconds',
      );
      expect(() =>
        run(native, { source: 'RETURN 1', options: { delivery: 'cursor', output: 'text' } }),
      ).toThrow("run: a result stream has no 'text' output");
    } finally {
      native.close();
    }
  });

  it('sends a repeated text as null, and the full text again after any failed call', async () => {
    const native = new addon.NativeConnection(databaseInternals(db).native);
    const querySync = (...args: unknown[]) =>
      native.run(packOptions({ delivery: 'sync' }), ...(args as [string])) as unknown[];
    try {
      expect(() => querySync(null)).toThrow('no statement text was given before');
      expect(querySync('RETURN $a AS x', 'a', 1)[2]).toEqual([1]);
      expect(querySync(null, 'a', 'two')[2]).toEqual(['two']);
      expect(() => querySync(null, 'b', 3)).toThrow(GraphDBError); // $a is missing
      expect(querySync(null, 'a', 5)[2]).toEqual([5]);
      expect(((await native.run(undefined, null, 'a', 6)) as unknown[])[2]).toEqual([6]);
      // The parameters are replaced, whatever names the previous statement had.
      expect(querySync('RETURN $a + $b AS x', 'a', 1, 'b', 2)[2]).toEqual([3]);
      expect(querySync('RETURN $a AS x', 'a', 1, 'a', 2)[2]).toEqual([2]);
      expect(() => querySync('RETURN $b AS x', 'a', 1, 'a', 2)).toThrow(GraphDBError);
      expect(querySync('RETURN $a + $b AS x', 'b', 1, 'a', 2)[2]).toEqual([3]);
      expect(querySync(null, 'a', 10, 'b', 20)[2]).toEqual([30]);
      expect(querySync(null, { a: 1, b: 1 })[2]).toEqual([2]);
      expect(() => querySync(null, 'a', 1, 'c', 1)).toThrow(GraphDBError);
      // run is the instance's own function, which works without its receiver too.
      const own = native.run;
      expect(Object.hasOwn(native, 'run')).toBe(true);
      expect(((await own(undefined, 'RETURN 7 AS x')) as unknown[])[2]).toEqual([7]);
      expect(((await own.call(undefined as never, undefined, null)) as unknown[])[2]).toEqual([7]);
    } finally {
      native.close();
    }
    expect(() => native.run(undefined, 'RETURN 1')).toThrow(
      expect.objectContaining({ code: 'CONNECTION_CLOSED' }),
    );
    // Through the public API: a call that fails on its parameters, then the same text.
    const read = 'MATCH (p:P {id: $id}) RETURN p.name';
    expect((await conn.query(read, { id: 1 })).rows).toEqual([['a']]);
    await expect(conn.query(read, { id: () => 1 })).rejects.toBeInstanceOf(TypeError);
    expect((await conn.query(read, { id: 2 })).rows).toEqual([['b']]);
    expect(() => conn.querySync(read, { id: Symbol('s') })).toThrow(TypeError);
    expect(conn.querySync(read, { id: 1 }).rows).toEqual([['a']]);
    expect((await conn.queryText(read, { id: 2 })).rows).toEqual([['b']]);
    // Values of another type under the same name, and one name then two.
    for (const v of [1, 'x', 2.5, null, [1, 2], { k: true }]) {
      expect((await conn.query('RETURN $v AS v', { v })).rows).toEqual([[v]]);
    }
    expect((await conn.query('RETURN $v AS v', { v: 1, w: 2 })).rows).toEqual([[1]]);
  });

  it('surfaces GraphDBError from statements as before', async () => {
    await expect(conn.query('RETURN $missing')).rejects.toBeInstanceOf(GraphDBError);
    expect(() => conn.querySync('RETURN 1 +')).toThrow(GraphDBError);
  });
});
