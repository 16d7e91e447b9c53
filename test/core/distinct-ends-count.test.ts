import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Connection, Database } from '../../src/index.js';
import { createEdges, rowsOnThreads, seeded, walkEnds } from './fixtures/walks.js';

// count(DISTINCT b) of a walk's end from one source row is counted by the expansion
// (EXPLAIN: `distinct_ends count`): answers equal the enumerated plan (a named relationship
// keeps the walks) and a JavaScript oracle, on 1 and 2 threads, with end filters, min hops
// 0, 1 and 2, missing and NULL sources, deletes, own uncommitted writes and a rollback.
describe('counted distinct ends of walks', () => {
  const persons = 6000;
  let db: Database;
  let conn: Connection;
  let edges: Array<[number, number]> = [];
  const age: number[] = [];

  const next = seeded(35072611);

  beforeAll(() => {
    db = new Database(':memory:', { queryThreads: 2 });
    conn = db.connect();
    conn.querySync('CREATE NODE TABLE P(id INT64 PRIMARY KEY, age INT64)');
    conn.querySync('CREATE REL TABLE E(FROM P TO P)');
    const rows = [];
    for (let i = 0; i < persons; i++) {
      age.push(next(50));
      rows.push({ id: i, age: age[i] });
    }
    conn.querySync('UNWIND $rows AS r CREATE (:P {id: r.id, age: r.age})', { rows });
    for (let i = 0; i < persons * 3; i++) {
      // Hubs, so levels get big enough to be split across threads.
      const a = next(3) === 0 ? next(30) : next(persons);
      edges.push([a, next(persons)]);
    }
    createEdges(conn, edges);
  });
  afterAll(() => db.close());

  const onThreads = (threads: number, query: string, params?: Record<string, unknown>) =>
    rowsOnThreads(conn, threads, query, params);
  const explain = (query: string) => String(conn.querySync(`EXPLAIN ${query}`).rows[0][0]);

  // The ends of walks of min..max hops from `source` ('-': either direction) at least `minAge` old.
  const oracle = (source: number, min: number, max: number, dir: string, minAge: number) =>
    [...walkEnds(edges, source, min, max, dir as '->' | '<-' | '-')].filter((x) => age[x] >= minAge).length;

  const shapes: Array<[number, number, string]> = [
    [1, 3, '-'],
    [0, 2, '-'],
    [2, 3, '->'],
    [0, 3, '<-'],
    [1, 1, '->'],
    [2, 4, '-'],
  ];
  const pattern = (min: number, max: number, dir: string, rel: string) =>
    dir === '<-' ? `<-[${rel}:E*${min}..${max}]-` : `-[${rel}:E*${min}..${max}]${dir === '->' ? '->' : '-'}`;

  const check = () => {
    for (const source of [0, 5, 29, 777, persons - 1]) {
      for (const [min, max, dir] of shapes) {
        for (const minAge of [0, 25]) {
          const where = minAge > 0 ? ' AND b.age >= 25' : '';
          const counted = `MATCH (a:P)${pattern(min, max, dir, '')}(b:P) WHERE a.id = $s${where} RETURN count(DISTINCT b) AS n`;
          const walks = `MATCH (a:P)${pattern(min, max, dir, 'r')}(b:P) WHERE a.id = $s${where} RETURN count(DISTINCT b) AS n`;
          const expected = oracle(source, min, max, dir, minAge);
          if (max <= 3) expect(onThreads(1, walks, { s: source })).toEqual([[expected]]);
          for (const threads of [1, 2]) {
            expect(onThreads(threads, counted, { s: source }), `${counted} ${source} ${threads}`).toEqual([
              [expected],
            ]);
          }
        }
      }
    }
  };

  it('is chosen only for count(DISTINCT end) without keys over one source row', () => {
    const q = 'MATCH (a:P)-[:E*1..3]-(b:P) WHERE a.id = 7 RETURN count(DISTINCT b) AS n';
    expect(explain(q)).toMatch(/EXPAND .*distinct_ends count weight=\d+/);
    expect(explain(q)).toMatch(/AGGREGATE weight=\d+/);
    const twice =
      'MATCH (a:P)-[:E*1..3]-(b:P) WHERE a.id = 7 RETURN count(DISTINCT b) AS n, count(DISTINCT b) AS m';
    expect(explain(twice)).toMatch(/distinct_ends count/);
    for (const other of [
      'MATCH (a:P)-[:E*1..3]-(b:P) WHERE a.id < 7 RETURN count(DISTINCT b) AS n',
      'MATCH (a:P)-[:E*1..3]-(b:P) WHERE a.id = 7 RETURN a.age, count(DISTINCT b) AS n',
      'MATCH (a:P)-[:E*1..3]-(b:P) WHERE a.id = 7 RETURN count(DISTINCT b.age) AS n',
      'MATCH (a:P)-[:E*1..3]-(b:P) WHERE a.id = 7 RETURN count(DISTINCT b) AS n, min(b.age) AS m',
      'MATCH (a:P)-[r:E*1..3]-(b:P) WHERE a.id = 7 RETURN count(DISTINCT b) AS n',
      'MATCH (a:P)-[:E*1..3]-(b:P) WHERE a.id = 7 RETURN count(DISTINCT a) AS n',
      'UNWIND [3, 4] AS x MATCH (a:P)-[:E*1..2]-(b:P) WHERE a.id = x RETURN count(DISTINCT b) AS n',
    ]) {
      expect(explain(other), other).not.toMatch(/distinct_ends count/);
    }
  });

  it('counts as the enumerated walks and the oracle do, on 1 and 2 threads', () => {
    check();
  });

  it('gives 0 for a missing or NULL source, and counts several sources by enumeration', () => {
    const q = 'MATCH (a:P)-[:E*0..3]-(b:P) WHERE a.id = $s RETURN count(DISTINCT b) AS n';
    for (const threads of [1, 2]) {
      expect(onThreads(threads, q, { s: persons + 5 })).toEqual([[0]]);
      expect(onThreads(threads, q, { s: null })).toEqual([[0]]);
    }
    const several = 'MATCH (a:P)-[:E*1..2]->(b:P) WHERE a.id IN [3, 4, 5] RETURN count(DISTINCT b) AS n';
    const union = new Set<number>();
    for (const s of [3, 4, 5]) {
      const one = 'MATCH (a:P)-[:E*1..2]->(b:P) WHERE a.id = $s RETURN collect(DISTINCT b.id) AS l';
      for (const id of (onThreads(1, one, { s })[0][0] as number[] | null) ?? []) union.add(id);
    }
    for (const threads of [1, 2]) expect(onThreads(threads, several)).toEqual([[union.size]]);
    // A seek per input row: one source a row, the ends counted once across them.
    const unwound =
      'UNWIND [3, 4, 5, 4] AS x MATCH (a:P)-[:E*1..2]->(b:P) WHERE a.id = x RETURN count(DISTINCT b) AS n';
    for (const threads of [1, 2]) expect(onThreads(threads, unwound)).toEqual([[union.size]]);
  });

  it('follows deletes, own uncommitted writes and rollbacks', () => {
    conn.querySync('MATCH (a:P)-[e:E]->(b:P) WHERE (a.id + b.id) % 4 = 1 DELETE e');
    edges = edges.filter(([a, b]) => (a + b) % 4 !== 1);
    check();
    const kept = edges;
    conn.querySync('BEGIN TRANSACTION');
    conn.querySync('MATCH (a:P {id: 5}), (b:P) WHERE b.id % 53 = 2 CREATE (a)-[:E]->(b)');
    edges = [...kept];
    for (let b = 2; b < persons; b += 53) edges.push([5, b]);
    check();
    conn.querySync('ROLLBACK');
    edges = kept;
    check();
  });
});
