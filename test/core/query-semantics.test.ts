// Query semantics that differential testing against Kùzu pinned down, each case with its
// neighbours: primary-key seeks compare exactly, the empty list and NULL in arithmetic take their
// type from their context, conjuncts that may fail run after those that cannot, hash(),
// current_setting(), db_version(), PROFILE and EXPLAIN, and variable-length patterns walk.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Connection, Database } from '../../src/index.js';

let db: Database;
let conn: Connection;

async function rows(query: string, params?: Record<string, unknown>): Promise<unknown[][]> {
  return (await conn.query(query, params)).rows;
}

async function column(query: string, params?: Record<string, unknown>): Promise<unknown[]> {
  return (await rows(query, params)).map((row) => row[0]);
}

beforeAll(async () => {
  db = new Database(':memory:', { maxThreadNum: 1 });
  conn = db.connect();
  for (const statement of [
    'CREATE NODE TABLE Person(id INT64 PRIMARY KEY, name STRING, tags STRING[])',
    'CREATE NODE TABLE D(id DOUBLE PRIMARY KEY)',
    'CREATE NODE TABLE F(id FLOAT PRIMARY KEY)',
    'CREATE NODE TABLE S(id STRING PRIMARY KEY)',
    'CREATE NODE TABLE U(id UINT8 PRIMARY KEY)',
    'CREATE NODE TABLE Day(id DATE PRIMARY KEY)',
    'CREATE REL TABLE Knows(FROM Person TO Person, eid INT64)',
    "UNWIND range(290, 300) AS i CREATE (:Person {id: i, name: 'p' + string(i), tags: ['t' + string(i)]})",
    'CREATE (:Person {id: 1})',
    'MATCH (a:Person {id: 294}), (b:Person {id: 295}) CREATE (a)-[:Knows {eid: 1}]->(b)',
    'MATCH (a:Person {id: 295}), (b:Person {id: 296}) CREATE (a)-[:Knows {eid: 2}]->(b)',
    "CREATE (:D {id: 1.5}), (:D {id: 3.0}), (:F {id: 0.5}), (:S {id: '5'}), (:S {id: '05'}), (:U {id: 200})",
    "CREATE (:Day {id: date('2000-01-01')})",
  ]) {
    await conn.query(statement);
  }
});

afterAll(() => {
  db.close();
});

describe('primary-key seeks compare exactly', () => {
  it('finds no INT64 key for a non-integral DOUBLE', async () => {
    expect(await column('MATCH (n:Person) WHERE n.id = 294.6 RETURN n.id')).toEqual([]);
    expect(await column('MATCH (n:Person) WHERE n.id = $x RETURN n.id', { x: 295.4 })).toEqual([]);
    expect(await column('MATCH (n:Person) WHERE 294.6 = n.id RETURN n.id')).toEqual([]);
    expect(await column('MATCH (n:Person {id: 294.6}) RETURN n.id')).toEqual([]);
    // On the far side of an expansion (the planner starts from the key's node).
    expect(await column('MATCH (a:Person)-[:Knows]->(n:Person) WHERE n.id = 294.6 RETURN a.id')).toEqual([]);
    expect(
      await column('MATCH (n:Person)<-[:Knows]-(a:Person) WHERE n.id = $x RETURN a.id', { x: 295.4 }),
    ).toEqual([]);
    // The same as the filter the seek replaces.
    expect(await column('MATCH (n:Person) WHERE n.id + 0 = 295.4 RETURN n.id')).toEqual([]);
  });

  it('still finds the key for integral doubles, strings and parameters', async () => {
    expect(await column('MATCH (n:Person) WHERE n.id = 295.0 RETURN n.id')).toEqual([295]);
    expect(await column('MATCH (n:Person) WHERE n.id = $x RETURN n.id', { x: 296 })).toEqual([296]);
    expect(await column('MATCH (n:Person) WHERE n.id = $x RETURN n.id', { x: '297' })).toEqual([297]);
    expect(await column("MATCH (n:Person) WHERE n.id = '298' RETURN n.id")).toEqual([298]);
    expect(await column('MATCH (a:Person)-[:Knows]->(n:Person) WHERE n.id = 295.0 RETURN a.id')).toEqual([
      294,
    ]);
    expect(await column('MATCH (n:Person) WHERE n.id = $x RETURN n.id', { x: null })).toEqual([]);
    const plan = await column('EXPLAIN MATCH (n:Person) WHERE n.id = 294.6 RETURN n.id');
    expect(plan[0]).toContain('INDEX_SEEK');
  });

  it('matches nothing out of range, for NaN and for infinities', async () => {
    expect(await column('MATCH (n:Person) WHERE n.id = 1e19 RETURN n.id')).toEqual([]);
    expect(await column('MATCH (n:Person) WHERE n.id = 0.0 / 0.0 RETURN n.id')).toEqual([]);
    expect(
      await column('MATCH (n:Person) WHERE n.id = $x RETURN n.id', { x: Number.POSITIVE_INFINITY }),
    ).toEqual([]);
    expect(await column('MATCH (n:U) WHERE n.id = 456 RETURN n.id')).toEqual([]);
    expect(await column('MATCH (n:U) WHERE n.id = 200.0 RETURN n.id')).toEqual([200]);
  });

  it('fails as the comparison does for a string that is no number', async () => {
    await expect(conn.query("MATCH (n:Person) WHERE n.id = 'x' RETURN n.id")).rejects.toMatchObject({
      code: 'QUERY_RUNTIME',
      message: expect.stringContaining('Could not convert "x" to INT64'),
    });
  });

  it('keeps exact semantics for FLOAT, DOUBLE, STRING and DATE keys', async () => {
    expect(await column('MATCH (n:D) WHERE n.id = 3 RETURN n.id')).toEqual([3]);
    expect(await column('MATCH (n:D) WHERE n.id = 1.5 RETURN n.id')).toEqual([1.5]);
    expect(await column('MATCH (n:F) WHERE n.id = 0.5 RETURN n.id')).toEqual([0.5]);
    expect(await column('MATCH (n:F) WHERE n.id = 0.1 RETURN n.id')).toEqual([]); // no FLOAT is 0.1
    // A STRING key column compared with a number casts each key: '5' and '05' both equal 5, so
    // there is no seek.
    expect((await column('MATCH (n:S) WHERE n.id = 5 RETURN n.id ORDER BY n.id')).sort()).toEqual([
      '05',
      '5',
    ]);
    const plan = await column('EXPLAIN MATCH (n:S) WHERE n.id = 5 RETURN n.id');
    expect(plan[0]).not.toContain('INDEX_SEEK');
    expect(await column("MATCH (n:Day) WHERE n.id = timestamp('2000-01-01') RETURN n.id")).toEqual([
      '2000-01-01',
    ]);
    expect(await column("MATCH (n:Day) WHERE n.id = timestamp('2000-01-01 00:00:01') RETURN n.id")).toEqual(
      [],
    );
  });
});

describe('the empty list takes its element type from its context', () => {
  it('unifies with STRING[] in coalesce, list_concat, CASE and +', async () => {
    expect(
      await column('MATCH (n:Person) WHERE n.id IN [1, 290] RETURN coalesce(n.tags, []) ORDER BY n.id'),
    ).toEqual([[], ['t290']]);
    expect(await column("RETURN list_concat([], ['a'])")).toEqual([['a']]);
    expect(await column("RETURN [] + ['a']")).toEqual([['a']]);
    expect(await column('RETURN [] + [1]')).toEqual([[1]]);
    expect(await column("RETURN CASE WHEN true THEN [] ELSE ['a'] END")).toEqual([[]]);
    expect(await column("RETURN list_append([], 'a')")).toEqual([['a']]);
    expect(await column("RETURN [[], ['a']]")).toEqual([[[], ['a']]]);
    expect(await column("WITH [] AS l RETURN l + ['b']")).toEqual([['b']]);
    expect(await column("RETURN coalesce(NULL, [NULL], ['z'])")).toEqual([[null]]);
  });

  it('unwinds to nothing of any type', async () => {
    expect(await column('UNWIND [] AS u RETURN lower(u)')).toEqual([]);
    expect(await column('UNWIND [] AS u RETURN u + 1')).toEqual([]);
    expect(await column('RETURN [x IN [] | upper(x)]')).toEqual([[]]);
    expect(await column('RETURN size([])')).toEqual([0]);
  });

  it('compares, stores and comes back as before', async () => {
    expect(await column('RETURN [] = []')).toEqual([true]);
    expect(await column("RETURN [] = ['a']")).toEqual([false]);
    expect(await column('MATCH (n:Person) WHERE n.tags = [] RETURN n.id')).toEqual([]);
    const r = await conn.query('RETURN [] AS e, [NULL] AS n, {a: []} AS s');
    expect(r.types).toEqual(['INT64[]', 'INT64[]', 'STRUCT(a INT64[])']);
    expect(r.rows).toEqual([[[], [null], { a: [] }]]);
  });

  it('takes the same place when it comes as a parameter', async () => {
    expect(await column('MATCH (n:Person {id: 1}) RETURN coalesce(n.tags, $p)', { p: [] })).toEqual([[]]);
    expect(await column("RETURN list_concat($p, ['a'])", { p: [] })).toEqual([['a']]);
    expect(await column('UNWIND $p AS u RETURN lower(u)', { p: [] })).toEqual([]);
  });
});

describe('NULL in arithmetic has no type of its own', () => {
  it('answers the repros', async () => {
    expect(await column("RETURN coalesce(date('2000-01-01'), NULL + 1)")).toEqual(['2000-01-01']);
    expect(await column("RETURN (date('2009-01-01') - NULL) < 5")).toEqual([null]);
  });

  it('unifies with any type, like the NULL literal', async () => {
    expect(await column("RETURN coalesce(date('2000-01-01'), NULL - 1, NULL * 3, -NULL)")).toEqual([
      '2000-01-01',
    ]);
    expect(await column("RETURN CASE WHEN false THEN date('2000-01-01') ELSE NULL / 2 END")).toEqual([null]);
    expect(await column("RETURN [date('2000-01-01'), NULL % 2]")).toEqual([['2000-01-01', null]]);
    expect(await column("RETURN coalesce('a', NULL + 1)")).toEqual(['a']);
  });

  it('takes the type its overload gives when a result column holds it (issue 34, item 14)', async () => {
    const r = await conn.query(
      "UNWIND [1] AS y RETURN NULL + y, abs(NULL), list_append(NULL, y), NULL + interval('1 day'), " +
        "date('2020-01-01') + (NULL + 1), 'a' + NULL",
    );
    expect(r.types).toEqual(['INT64', 'INT64', 'INT64[]', 'INTERVAL', 'DATE', 'STRING']);
    expect(r.rows).toEqual([[null, null, null, null, null, null]]);
    expect((await conn.query('WITH NULL + 1 AS x RETURN x')).types).toEqual(['INT64']);
    // The bare NULL literal stays a STRING column, as in Kùzu.
    expect((await conn.query('RETURN NULL')).types).toEqual(['STRING']);
  });

  it('keeps a type no argument chooses, and a typed NULL its type', async () => {
    const r = await conn.query('RETURN NULL = 1 AS eq, size(NULL) AS s, upper(NULL) AS u');
    expect(r.types).toEqual(['BOOL', 'INT64', 'STRING']);
    expect(r.rows).toEqual([[null, null, null]]);
    await expect(
      conn.query("RETURN coalesce(date('2000-01-01'), CAST(NULL AS INT64) + 1)"),
    ).rejects.toMatchObject({
      code: 'QUERY_BINDING',
    });
  });
});

describe('conjuncts that may fail run after those that cannot', () => {
  it('raises no cast error for rows another conjunct removes', async () => {
    expect(
      await column(
        'MATCH (n:Person)-[r:Knows]->(m:Person) WHERE r.eid = -5 AND to_double(n.name) = 1 RETURN n.id',
      ),
    ).toEqual([]);
    expect(
      await column(
        'MATCH (n:Person)-[r:Knows]->(m:Person) WHERE to_double(n.name) = 1 AND r.eid = -5 RETURN n.id',
      ),
    ).toEqual([]);
    expect(
      await column(
        'MATCH (n:Person)-[r:Knows {eid: -5}]->(m:Person) WHERE to_double(n.name) = 1 RETURN n.id',
      ),
    ).toEqual([]);
    expect(
      await column("MATCH (n:Person) WHERE to_int64(n.name) = 1 AND n.name = 'nobody' RETURN n.id"),
    ).toEqual([]);
    expect(
      await column('MATCH (n:Person) WITH n WHERE to_int64(n.name) = 1 AND n.id = 100 RETURN n.id'),
    ).toEqual([]);
    expect(
      await column(
        "MATCH (n:Person) WHERE n.id > 1000 AND to_int64(n.name) = 1 AND n.name STARTS WITH 'p' RETURN n",
      ),
    ).toEqual([]);
  });

  it('still raises the error when a row reaches the failing conjunct', async () => {
    await expect(
      conn.query(
        'MATCH (n:Person)-[r:Knows]->(m:Person) WHERE r.eid = 1 AND to_double(n.name) = 1 RETURN n.id',
      ),
    ).rejects.toMatchObject({ code: 'QUERY_RUNTIME' });
  });

  it('keeps pushing safe filters below the expansion', async () => {
    const [plan] = await column(
      'EXPLAIN MATCH (n:Person)-[r:Knows]->(m:Person) WHERE n.name = $x AND r.eid = -5 AND to_double(m.name) = 1 RETURN n',
      { x: 'p1' },
    );
    const lines = String(plan).split('\n');
    const at = (text: string) => lines.findIndex((line) => line.includes(text));
    // Deeper lines run first, and the conjuncts of one FILTER from left to right: the name
    // filter below the expansion, the cast last.
    expect(at('n.name = $x')).toBeGreaterThan(at('EXPAND'));
    expect(at('r.eid')).toBeLessThan(at('EXPAND'));
    expect(at('to_double')).toBeLessThanOrEqual(at('r.eid'));
    const filter = lines[at('r.eid')]!;
    if (at('to_double') === at('r.eid')) {
      expect(filter.indexOf('r.eid')).toBeLessThan(filter.indexOf('to_double'));
    }
  });
});

describe('hash(), current_setting(), db_version() and PROFILE', () => {
  it('hashes as Kùzu does', async () => {
    const r = await rows(
      "RETURN hash(true), hash(false), hash(123213213), hash(3.145454), hash('abc'), hash({name: 'Bob', age: 25}), hash(list_creation(1,2,3,4,5,56,2)), hash(NULL)",
    );
    expect(r).toEqual([
      [
        4717996019076358352n,
        0,
        5409473644860454233n,
        7162734438776005526n,
        13131266495343169797n,
        9821934272475076111n,
        16087297841925419968n,
        18446744073709551615n,
      ],
    ]);
    const [t] = (await conn.query('RETURN hash(1) AS h')).types;
    expect(t).toBe('UINT64');
  });

  it('reports the connection settings', async () => {
    expect(await rows("CALL current_setting('threads') RETURN *")).toEqual([['1']]);
    const other = db.connect();
    try {
      await other.query('CALL threads = 6');
      expect((await other.query("CALL current_setting('threads') RETURN *")).rows).toEqual([['6']]);
      expect((await other.query("CALL current_setting('THREADS') RETURN *")).columns).toEqual(['threads']);
      await other.query('CALL timeout = (1 + 2 + 3) * 10000');
      expect((await other.query("CALL current_setting('timeout') RETURN *")).rows).toEqual([['60000']]);
      await other.query('CALL disable_map_key_check = false');
      expect((await other.query("CALL current_setting('disable_map_key_check') RETURN *")).rows).toEqual([
        ['False'],
      ]);
      await expect(other.query('RETURN map([1, 1], [2, 3])')).rejects.toMatchObject({
        code: 'QUERY_RUNTIME',
      });
    } finally {
      other.close();
    }
    // Settings belong to the connection that made them.
    expect(await rows("CALL current_setting('threads') RETURN *")).toEqual([['1']]);
  });

  it('refuses unknown settings and values of the wrong type', async () => {
    await expect(conn.query('CALL thread = 10')).rejects.toMatchObject({
      code: 'QUERY_BINDING',
      message: 'Binder exception: Invalid option name: thread.',
    });
    await expect(conn.query("CALL current_setting('nope') RETURN *")).rejects.toMatchObject({
      code: 'QUERY_BINDING',
      message: 'Binder exception: Invalid option name: nope.',
    });
    await expect(conn.query("CALL threads = 'abc'")).rejects.toMatchObject({
      message:
        'Binder exception: Expression abc has data type STRING but expected UINT64. Implicit cast is not supported.',
    });
    await expect(conn.query("CALL recursive_pattern_semantic = 'x'")).rejects.toMatchObject({
      code: 'QUERY_BINDING',
    });
  });

  it('reports the version', async () => {
    const r = await conn.query('CALL db_version() RETURN version');
    expect(r.columns).toEqual(['version']);
    expect(r.rows[0][0]).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('PROFILE runs the query and returns the plan with rows and time per operator', async () => {
    const r = await conn.query('PROFILE MATCH (a:Person)-[:Knows]->(b:Person) RETURN COUNT(b.id)');
    expect(r.columns).toEqual(['explain']);
    const text = String(r.rows[0][0]);
    expect(text).toMatch(/AGGREGATE fused rows=1 time=\d+\.\d{3}ms/);
    expect(text).toMatch(/EXPAND from=\d+ to=\d+ rels=Knows rows=2 time=/);
    expect(text).toMatch(/SCAN_NODE slot=\d+ tables=Person rows=12 time=/);
    // Tables and the seek's key by name, not by internal id (the console shows this text).
    const seek = String(
      (await conn.query('EXPLAIN MATCH (p:Person {id: $id}) RETURN p.id', { id: 1 })).rows[0][0],
    );
    expect(seek).toMatch(/INDEX_SEEK slot=\d+ tables=Person id=\$id/);
    // COUNT(*) counts the paths without producing them: one row per person that has any.
    const counted = String(
      (await conn.query('PROFILE MATCH (a:Person)-[:Knows]->(b:Person) RETURN COUNT(*)')).rows[0][0],
    );
    expect(counted).toMatch(/EXPAND_COUNT weight=\d+ \(from=\d+ to=\d+\) rows=\d time=/);
    expect(counted).not.toMatch(/EXPAND from/);
    // Updates under PROFILE happen.
    const created = await conn.query('PROFILE CREATE (:Person {id: 5000})');
    expect(String(created.rows[0][0])).toMatch(/UPDATE rows=1/);
    expect(created.summary.counters.nodesCreated).toBe(1);
    expect(await column('MATCH (n:Person {id: 5000}) RETURN n.id')).toEqual([5000]);
    await conn.query('MATCH (n:Person {id: 5000}) DELETE n');
  });

  it('EXPLAIN runs no statement, PROFILE runs a table function with its plan', async () => {
    expect(await column('EXPLAIN CREATE NODE TABLE Later(id INT64 PRIMARY KEY)')).toEqual([
      'CREATE_NODE_TABLE\n',
    ]);
    await conn.query('CREATE NODE TABLE Later(id INT64 PRIMARY KEY)'); // not created by EXPLAIN
    expect(await column('EXPLAIN CALL threads = 3')).toEqual(['SET_SETTING\n']);
    expect(await rows("CALL current_setting('threads') RETURN *")).toEqual([['1']]);
    const [text] = await column("PROFILE CALL table_info('Later')");
    expect(String(text)).toMatch(/TABLE_FUNCTION rows=1 time=/);
    await conn.query('DROP TABLE Later');
  });
});

describe('variable-length patterns walk', () => {
  it('traverses a self-loop again at every hop; TRAIL does not, ACYCLIC once', async () => {
    const loop = new Database(':memory:');
    const c = loop.connect();
    try {
      await c.query('CREATE NODE TABLE N(id INT64 PRIMARY KEY)');
      await c.query('CREATE REL TABLE E(FROM N TO N)');
      await c.query('CREATE (a:N {id: 1})-[:E]->(a)');
      await c.query('MATCH (a:N {id: 1}) CREATE (a)-[:E]->(:N {id: 2})');
      const count = async (q: string) => (await c.query(q)).rows[0][0];
      expect(await count('MATCH (a:N {id: 1})-[:E*1..3]->(b) RETURN count(*)')).toBe(6);
      expect(await count('MATCH (a:N {id: 1})-[:E* TRAIL 1..3]->(b) RETURN count(*)')).toBe(3);
      // ACYCLIC, as Kùzu counts it, repeats no intermediate node: 1-1, 1-2, 1-1-1, 1-1-2.
      expect(await count('MATCH (a:N {id: 1})-[:E* ACYCLIC 1..3]->(b) RETURN count(*)')).toBe(4);
      expect(
        await count('MATCH p = (a:N {id: 1})-[:E*3..3]->(b) WHERE NOT is_trail(p) RETURN count(*)'),
      ).toBe(2);
      // Without an upper bound, a walk stops at 30 hops.
      // Two walks of each length 1..30: loops only, and loops then the edge to 2.
      expect(await count('MATCH (a:N {id: 1})-[:E*]->(b) RETURN count(*)')).toBe(60);
      expect(await count('MATCH p = (a:N {id: 1})-[:E*]->(b) RETURN max(length(p))')).toBe(30);
    } finally {
      loop.close();
    }
  });
});

describe('SET and DELETE of unwound nodes and rels', () => {
  it('refuses them as Kùzu 0.11.3 does; a re-matched node takes the update', async () => {
    const db2 = new Database(':memory:', { maxThreadNum: 1 });
    const c = db2.connect();
    try {
      await c.query('CREATE NODE TABLE P(id INT64 PRIMARY KEY, version INT64)');
      await c.query('CREATE REL TABLE K(FROM P TO P, w INT64)');
      await c.query('UNWIND range(1, 4) AS i CREATE (:P {id: i, version: 0})');
      await c.query('MATCH (a:P), (b:P) WHERE b.id = a.id + 1 CREATE (a)-[:K {w: 0}]->(b)');
      const path = 'MATCH p = (a:P {id: 1})-[:K*1..2]->(b:P) ';
      const setError = 'Cannot set expression x with type VARIABLE. Expect node or rel pattern.';
      for (const query of [
        `${path}UNWIND nodes(p) AS x SET x.version = x.version + 1`,
        `${path}UNWIND rels(p) AS x SET x.w = 1`,
        'MATCH (a:P) WITH collect(a) AS l UNWIND l AS x SET x.version = 1',
      ]) {
        await expect(c.query(query)).rejects.toThrow(setError);
      }
      await expect(c.query('MATCH (a:P) WITH collect(a) AS l UNWIND l AS x DELETE x')).rejects.toThrow(
        'Cannot delete expression x with type VARIABLE',
      );
      // Nothing was written by the refused statements.
      expect((await c.query('MATCH (a:P) RETURN sum(a.version)')).rows).toEqual([[0]]);
      await c.query(
        `${path}UNWIND nodes(p) AS x WITH DISTINCT x MATCH (n:P) WHERE id(n) = id(x) ` +
          'SET n.version = n.version + 1',
      );
      await c.query('MATCH (a:P) WITH a AS x WHERE x.id = 4 SET x.version = 7');
      const versions = await c.query('MATCH (a:P) RETURN a.id, a.version ORDER BY a.id');
      expect(versions.rows).toEqual([
        [1, 1],
        [2, 1],
        [3, 1],
        [4, 7],
      ]);
    } finally {
      c.close();
      db2.close();
    }
  });
});
