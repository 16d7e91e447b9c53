// Factorized counts (native/cypher/planner/factorized_count.cc): count(*), count(x), DISTINCT
// aggregates, min and max over fixed-length expansions are computed by EXPAND_COUNT from
// degrees, without enumerating the paths. Every query here runs twice on random graphs: as
// written (the factorized plan, checked in EXPLAIN) and with a `WITH` of its variables before
// the RETURN, which keeps the enumerating plan; the answers must be equal.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type Connection, Database } from '../../src/index.js';

interface Rng {
  next(): number;
  int(n: number): number;
}

/** A seeded PRNG (an LCG is enough for graph shapes). */
function createRng(seed: number): Rng {
  let state = seed >>> 0;
  const next = () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 4294967296;
  };
  return { next, int: (n) => Math.floor(next() * n) };
}

interface Shape {
  /** The pattern (and WHERE) before the RETURN. */
  match: string;
  /** The RETURN clause. */
  ret: string;
  /** The variables the enumerating form carries through its WITH. */
  vars: string;
  /** Whether the factorized plan applies (EXPLAIN shows EXPAND_COUNT). */
  factorized: boolean;
}

const SHAPES: Shape[] = [
  { match: 'MATCH (a:A)-[:R]->(b:A)-[:R]->(c:A)', ret: 'RETURN count(*)', vars: 'a, b, c', factorized: true },
  {
    match: 'MATCH (a:A {id: $id})-[:R]->(:A)-[:R]->(c:A)',
    ret: 'RETURN count(*)',
    vars: 'a, c',
    factorized: true,
  },
  {
    match: 'MATCH (a:A {id: $id})-[:R]-(b)-[:R]-(c)',
    ret: 'RETURN count(*)',
    vars: 'a, b, c',
    factorized: true,
  },
  {
    match: 'MATCH (a:A)-[:R]->(b:A)-[:R]->(c:A)-[:R]->(d:A)',
    ret: 'RETURN count(*)',
    vars: 'a, b, c, d',
    factorized: true,
  },
  {
    match: 'MATCH (a:A)<-[:R]-(b:A)-[r:R]->(c)',
    ret: 'RETURN count(c), count(r), count(b)',
    vars: 'a, b, r, c',
    factorized: true,
  },
  {
    match: 'MATCH (a:A)-[:R]->(b)-[:R]->(c)',
    ret: 'RETURN a.id % 3 AS k, count(*) AS n ORDER BY k',
    vars: 'a, b, c',
    factorized: true,
  },
  {
    match: 'MATCH (a:A)-[:R]->(b)-[:S]->(c)',
    ret: 'RETURN count(*), count(DISTINCT a), min(a.id), max(a.id), count(a), count(a.name)',
    vars: 'a, b, c',
    factorized: true,
  },
  { match: 'MATCH (a:A)-[:R|S]->(b)-[]->(c)', ret: 'RETURN count(*)', vars: 'a, b, c', factorized: true },
  { match: 'MATCH (b)<-[:R]-(a:A)-[:R]->(c)', ret: 'RETURN count(*)', vars: 'a, b, c', factorized: true },
  {
    match: 'MATCH (a:A)-[:R]->(b), (a)-[:R]->(c)',
    ret: 'RETURN count(*)',
    vars: 'a, b, c',
    factorized: true,
  },
  { match: 'MATCH (a:A)-[:R]->(b:B)', ret: 'RETURN count(*)', vars: 'a, b', factorized: true },
  // A filter comparing the end node's properties with a constant joins the count.
  {
    match: 'MATCH (a:A)-[:R]->(b:A)-[:R]->(c:A) WHERE c.id > 3',
    ret: 'RETURN count(*)',
    vars: 'a, b, c',
    factorized: true,
  },
  // Not factorized: each keeps its enumerating plan and must still agree.
  {
    match: 'MATCH (a:A)-[:R]->(b:A)-[:R]->(c:A) WHERE c.id > a.id',
    ret: 'RETURN count(*)',
    vars: 'a, b, c',
    factorized: false,
  },
  {
    match: 'MATCH (a:A)-[:R]->(b:A)-[:R]->(c:A)',
    ret: 'RETURN sum(a.id)',
    vars: 'a, b, c',
    factorized: false,
  },
  { match: 'MATCH (a:A)-[:R]->(b:A)-[:R]->(a)', ret: 'RETURN count(*)', vars: 'a, b', factorized: false },
  { match: 'MATCH (a:A)-[:R*1..2]->(b:A)', ret: 'RETURN count(*)', vars: 'a, b', factorized: false },
  {
    match: 'MATCH (a:A)-[:R]->(b:A)-[:R]->(c:A)',
    ret: 'RETURN count(DISTINCT c)',
    vars: 'a, b, c',
    factorized: false,
  },
];

const NODES = 12;

/** Random edges among NODES A-nodes (and a few B-nodes): self-loops and parallel edges included. */
function randomEdges(rng: Rng, count: number): Array<[number, number]> {
  const edges: Array<[number, number]> = [];
  for (let i = 0; i < count; i++) {
    const src = rng.int(NODES);
    const r = rng.next();
    const dst =
      r < 0.15 ? src : r < 0.3 && edges.length > 0 ? edges[rng.int(edges.length)][1] : rng.int(NODES);
    edges.push([src, dst]);
    if (rng.next() < 0.1) edges.push([src, dst]); // a parallel edge
  }
  return edges;
}

function createGraph(conn: Connection, rng: Rng, edgeCount: number) {
  conn.querySync('CREATE NODE TABLE A(id INT64, name STRING, PRIMARY KEY(id))');
  conn.querySync('CREATE NODE TABLE B(id INT64, PRIMARY KEY(id))');
  conn.querySync('CREATE REL TABLE R(FROM A TO A, FROM A TO B)');
  conn.querySync('CREATE REL TABLE S(FROM A TO A)');
  for (let i = 0; i < NODES; i++) {
    conn.querySync('CREATE (:A {id: $id, name: $name})', { id: i, name: i % 4 === 0 ? null : `n${i % 5}` });
  }
  for (let i = 0; i < 4; i++) conn.querySync('CREATE (:B {id: $id})', { id: i });
  addEdges(conn, rng, edgeCount);
}

function addEdges(conn: Connection, rng: Rng, edgeCount: number) {
  for (const [src, dst] of randomEdges(rng, edgeCount)) {
    conn.querySync('MATCH (a:A {id: $a}), (b:A {id: $b}) CREATE (a)-[:R]->(b)', { a: src, b: dst });
    if (rng.next() < 0.3) {
      conn.querySync('MATCH (a:A {id: $a}), (b:A {id: $b}) CREATE (a)-[:S]->(b)', { a: dst, b: src });
    }
    if (rng.next() < 0.1) {
      conn.querySync('MATCH (a:A {id: $a}), (b:B {id: $b}) CREATE (a)-[:R]->(b)', { a: src, b: dst % 4 });
    }
  }
}

/** Both forms of every shape, for a few start ids: the answers must be equal. */
function compareAll(conn: Connection, label: string) {
  let factorizedPlans = 0;
  for (const shape of SHAPES) {
    const factorized = `${shape.match} ${shape.ret}`;
    const enumerating = `${shape.match} WITH ${shape.vars} ${shape.ret}`;
    const ids = shape.match.includes('$id') ? [0, 3, 7, 11, 99] : [undefined];
    for (const id of ids) {
      const params = id === undefined ? undefined : { id };
      const got = conn.querySync(factorized, params).rows;
      const want = conn.querySync(enumerating, params).rows;
      expect(got, `${label}: ${factorized} ${JSON.stringify(params)}`).toEqual(want);
    }
    const explainParams = shape.match.includes('$id') ? { id: 0 } : undefined;
    const plan = String(conn.querySync(`EXPLAIN ${factorized}`, explainParams).rows[0][0]);
    expect(plan.includes('EXPAND_COUNT'), `${label}: EXPLAIN ${factorized}\n${plan}`).toBe(shape.factorized);
    if (shape.factorized) factorizedPlans++;
    expect(String(conn.querySync(`EXPLAIN ${enumerating}`, explainParams).rows[0][0])).not.toContain(
      'EXPAND_COUNT',
    );
  }
  expect(factorizedPlans).toBeGreaterThan(5);
}

describe('factorized counts', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('EXPLAIN shows EXPAND_COUNT under a weighted AGGREGATE', () => {
    const db = new Database(':memory:');
    const conn = db.connect();
    createGraph(conn, createRng(1), 10);
    const plan = String(
      conn.querySync('EXPLAIN MATCH (a:A {id: 1})-[:R]->(:A)-[:R]->(c:A) RETURN count(*)').rows[0][0],
    );
    expect(plan).toMatch(/AGGREGATE weight=\d+/);
    expect(plan).toMatch(/EXPAND_COUNT weight=\d+ \(from=\d+ to=\d+\) \(from=\d+ to=\d+\)/);
    expect(plan).toContain('INDEX_SEEK');
    expect(plan).not.toMatch(/^\s*EXPAND /m);
    db.close();
  });

  it('keeps walk semantics: a path may use a self-loop or a parallel edge twice', () => {
    const db = new Database(':memory:');
    const conn = db.connect();
    conn.querySync('CREATE NODE TABLE A(id INT64, name STRING, PRIMARY KEY(id))');
    conn.querySync('CREATE REL TABLE R(FROM A TO A)');
    conn.querySync("CREATE (x:A {id: 1})-[:R]->(x), (x)-[:R]->(:A {id: 2, name: 'y'})");
    const count = (q: string) => conn.querySync(q).rows[0][0];
    // x->x->x, x->x->y: the self-loop is used twice in the first.
    expect(count('MATCH (a:A {id: 1})-[:R]->(b)-[:R]->(c) RETURN count(*)')).toBe(2);
    expect(count('MATCH (a:A {id: 1})-[:R]->(b)-[:R]->(c) WITH a, b, c RETURN count(*)')).toBe(2);
    // Undirected: the self-loop matches once per direction.
    expect(count('MATCH (a:A {id: 1})-[:R]-(b) RETURN count(*)')).toBe(3);
    expect(count('MATCH (a:A {id: 1})-[:R]-(b) WITH a, b RETURN count(*)')).toBe(3);
    expect(count('MATCH (a:A {id: 5})-[:R]->(b) RETURN count(*)')).toBe(0);
    db.close();
  });

  for (const seed of [11, 22, 33]) {
    it(`equals the enumerating plan on random graph ${seed}, before and after deletes and a reload`, () => {
      const rng = createRng(seed);
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'graphdb-factorized-'));
      dirs.push(dir);
      let db = new Database(path.join(dir, 'db'));
      let conn = db.connect();
      createGraph(conn, rng, 20 + seed);
      compareAll(conn, 'delta lists');
      db.close();
      // Reopened: the adjacency is a CSR, whose degrees come from its offsets.
      db = new Database(path.join(dir, 'db'));
      conn = db.connect();
      compareAll(conn, 'after reload');
      conn.querySync('MATCH (a:A)-[r:R]->(b:A) WHERE (a.id + b.id) % 3 = 0 DELETE r');
      addEdges(conn, rng, 8);
      compareAll(conn, 'after deletes and inserts');
      db.close();
    });
  }

  it('counts what each transaction sees', () => {
    const db = new Database(':memory:', { maxThreadNum: 2 });
    const conn = db.connect();
    createGraph(conn, createRng(5), 30);
    const other = db.connect();
    const q = 'MATCH (a:A)-[:R]->(b:A)-[:R]->(c:A) RETURN count(*)';
    const slow = 'MATCH (a:A)-[:R]->(b:A)-[:R]->(c:A) WITH a, b, c RETURN count(*)';
    const before = conn.querySync(q).rows[0][0];
    other.querySync('BEGIN TRANSACTION');
    other.querySync('MATCH (a:A)-[r:R]->(b:A) WHERE a.id < 6 DELETE r');
    other.querySync('MATCH (a:A {id: 1}), (b:A {id: 2}) CREATE (a)-[:R]->(b)');
    const inside = other.querySync(q).rows[0][0];
    expect(inside).toEqual(other.querySync(slow).rows[0][0]);
    expect(inside).not.toEqual(before);
    expect(conn.querySync(q).rows[0][0]).toEqual(before); // not committed: unseen
    other.querySync('COMMIT');
    expect(conn.querySync(q).rows[0][0]).toEqual(inside);
    expect(conn.querySync(slow).rows[0][0]).toEqual(inside);
    db.close();
  });

  it('counts COUNT { } subqueries, keeping counts between rows only while nothing changes', () => {
    const db = new Database(':memory:');
    const conn = db.connect();
    createGraph(conn, createRng(11), 25);
    // The same counts as the enumerating subquery (a WHERE on the outer row keeps that plan).
    const counted =
      'MATCH (a:A)-[:R]->(b:A) RETURN a.id, b.id, COUNT { MATCH (b)-[:R]->(:A)-[:R]->(c:A) WHERE c.id > 3 } AS n';
    const enumerated =
      'MATCH (a:A)-[:R]->(b:A) RETURN a.id, b.id, COUNT { MATCH (b)-[:R]->(:A)-[:R]->(c:A) WHERE c.id > 3 AND a.id > -1 } AS n';
    const sorted = (rows: unknown[][]) => rows.map((r) => JSON.stringify(r)).sort();
    expect(sorted(conn.querySync(counted).rows)).toEqual(sorted(conn.querySync(enumerated).rows));
    // Each row marks one more neighbour of x, and a MERGE after the write logs its count (ON
    // CREATE SET), row by row: every count sees the marks of its own row and the rows before it
    // (the filter's answers kept for the earlier rows are dropped), as the enumerating subquery
    // does. A RETURN after the write, and a CREATE's value, read after all of them (clause by
    // clause).
    conn.querySync('CREATE NODE TABLE Log(id INT64 PRIMARY KEY, n INT64)');
    conn.querySync(
      'CREATE (x:A {id: 1000}), (x)-[:R]->(:A {id: 1001}), (x)-[:R]->(:A {id: 1002}), (x)-[:R]->(:A {id: 1003})',
    );
    const head = "UNWIND [1, 2, 3] AS i MATCH (x:A {id: 1000}), (t:A {id: 1000 + i}) SET t.name = 'hit'";
    const subquery = (extra: string) => `COUNT { MATCH (x)-[:R]->(y:A) WHERE y.name = 'hit'${extra} }`;
    const logged = (extra: string) => {
      conn.querySync(`${head} MERGE (l:Log {id: i}) ON CREATE SET l.n = ${subquery(extra)}`);
      const counts = conn.querySync('MATCH (l:Log) RETURN l.n ORDER BY l.id').rows.map((r) => Number(r[0]));
      conn.querySync('MATCH (l:Log) DELETE l');
      conn.querySync("MATCH (t:A) WHERE t.id > 1000 SET t.name = 'miss'");
      return counts;
    };
    expect(logged('')).toEqual([1, 2, 3]);
    expect(logged(' AND x.id > -1')).toEqual([1, 2, 3]);
    conn.querySync(`${head} CREATE (:Log {id: i, n: ${subquery('')}})`);
    expect(conn.querySync('MATCH (l:Log) RETURN l.n ORDER BY l.id').rows).toEqual([[3], [3], [3]]);
    conn.querySync('MATCH (l:Log) DELETE l');
    conn.querySync("MATCH (t:A) WHERE t.id > 1000 SET t.name = 'miss'");
    expect(conn.querySync(`${head} RETURN i, ${subquery('')}`).rows).toEqual([
      [1, 3],
      [2, 3],
      [3, 3],
    ]);
    db.close();
  });
});
