import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Connection, Database } from '../../src/index.js';
import { rejection } from '../runtime/helpers.js';
import { createEdges, rowsOnThreads, seeded, walkEnds } from './fixtures/walks.js';

// DISTINCT aggregates (typed states keyed by 64-bit codes or strings, docs/execution.md) on a
// random graph: answers equal a JavaScript oracle and are the same on 1 and 2 threads, with
// NULLs, deletes, a transaction's own writes and a rollback.
describe('DISTINCT aggregates', () => {
  const persons = 20000;
  let db: Database;
  let conn: Connection;
  let edges: Array<[number, number]> = [];
  const g: Array<number | null> = [];
  const name: string[] = [];

  const next = seeded(20261129);

  beforeAll(() => {
    db = new Database(':memory:', { queryThreads: 2 });
    conn = db.connect();
    conn.querySync('CREATE NODE TABLE P(id INT64 PRIMARY KEY, g INT64, name STRING)');
    conn.querySync('CREATE REL TABLE E(FROM P TO P)');
    const rows = [];
    for (let i = 0; i < persons; i++) {
      g.push(next(10) === 0 ? null : next(200) - 20);
      name.push(next(2) === 0 ? `n${next(300)}` : `a longer name, not inline ${next(300)}`);
      rows.push({ id: i, g: g[i], name: name[i] });
    }
    conn.querySync('UNWIND $rows AS r CREATE (:P {id: r.id, g: r.g, name: r.name})', { rows });
    for (let i = 0; i < persons * 2.5; i++) {
      // A few hubs, so a hop reaches many persons more than once.
      const a = next(4) === 0 ? next(20) : next(persons);
      edges.push([a, next(persons)]);
    }
    createEdges(conn, edges);
  });
  afterAll(() => db.close());

  // The persons walks of 1..3 hops (either direction) from `source` end at.
  const reached = (source: number) => walkEnds(edges, source, 1, 3);

  const onThreads = (threads: number, query: string, params?: Record<string, unknown>) =>
    rowsOnThreads(conn, threads, query, params);

  const checkExpansion = () => {
    for (const source of [0, 3, 17, 1234, persons - 1]) {
      const query = 'MATCH (a:P)-[:E*1..3]-(b:P) WHERE a.id = $s RETURN count(DISTINCT b) AS n';
      const expected = reached(source).size;
      for (const threads of [1, 2]) {
        expect(onThreads(threads, query, { s: source }), `${source} on ${threads}`).toEqual([[expected]]);
      }
      const ids = 'MATCH (a:P)-[:E*1..3]-(b:P) WHERE a.id = $s RETURN collect(DISTINCT b.id) AS l';
      const serial = onThreads(1, ids, { s: source });
      expect(onThreads(2, ids, { s: source })).toEqual(serial);
      expect([...((serial[0][0] as number[] | null) ?? [])].sort((x, y) => x - y)).toEqual(
        [...reached(source)].sort((x, y) => x - y),
      );
    }
  };

  it('counts the distinct ends of a var-length expansion on 1 and 2 threads', () => {
    checkExpansion();
  });

  it('aggregates distinct integers, strings and nodes as the serial run and the oracle do', () => {
    const query =
      'MATCH (a:P)-[:E]->(b:P) RETURN count(DISTINCT b.g) AS g, sum(DISTINCT b.g) AS s, ' +
      'avg(DISTINCT b.g) AS v, min(DISTINCT b.g) AS lo, max(DISTINCT b.name) AS hi, ' +
      'count(DISTINCT b.name) AS names, count(DISTINCT b) AS targets, ' +
      'count(DISTINCT b.g * 1.0) AS doubles';
    expect(String(conn.querySync(`EXPLAIN ${query}`).rows[0][0])).toMatch(/AGGREGATE.*parallel=/);
    const serial = onThreads(1, query);
    expect(onThreads(2, query)).toEqual(serial);
    const targets = new Set(edges.map(([, b]) => b));
    const gs = new Set([...targets].map((b) => g[b]).filter((x): x is number => x !== null));
    const names = new Set([...targets].map((b) => name[b]));
    const sum = [...gs].reduce((x, y) => x + y, 0);
    const [row] = serial;
    expect(row).toEqual([
      gs.size,
      sum,
      sum / gs.size,
      Math.min(...gs),
      [...names].sort().at(-1),
      names.size,
      targets.size,
      gs.size,
    ]);
    // collect keeps the input order, so it runs on one thread; its first-seen order holds.
    const collected = onThreads(2, 'MATCH (a:P)-[:E]->(b:P) RETURN collect(DISTINCT a.g) AS l');
    // The scan meets the sources in id order: their g values in first-seen order.
    const scanned = [...new Set(edges.map(([a]) => a))].sort((x, y) => x - y);
    const sources = new Set(scanned.map((a) => g[a]).filter((x) => x !== null));
    expect(collected[0][0]).toEqual([...sources]);
    expect([...(collected[0][0] as number[])].sort((x, y) => x - y)).toEqual(
      [...sources].sort((x, y) => (x as number) - (y as number)),
    );
    // Grouped: one DISTINCT state per group, combined across the threads' partial groups.
    const grouped =
      'MATCH (a:P)-[:E]->(b:P) RETURN a.id % 7 AS k, count(DISTINCT b) AS n, ' +
      'sum(DISTINCT b.g) AS s ORDER BY k';
    expect(onThreads(2, grouped)).toEqual(onThreads(1, grouped));
  });

  it('charges the typed sets to the memory limit, on 1 and 2 threads', async () => {
    using bounded = new Database(':memory:', { maxStatementMemoryBytes: 32 * 2 ** 20 });
    using c = bounded.connect();
    for (const threads of [1, 2]) {
      c.setMaxNumThreadForExec(threads);
      // Ten million distinct integers: 80 MB of codes in arrival order alone.
      for (const query of [
        'UNWIND range(1, 10000000) AS x RETURN count(DISTINCT x)',
        'UNWIND range(1, 10000000) AS x RETURN count(DISTINCT x * 1000003)',
        'UNWIND range(1, 10000000) AS x RETURN sum(DISTINCT x * 1.5)',
      ]) {
        expect((await rejection(c.query(query))).code, query).toBe('RESOURCE_LIMIT');
      }
      expect((await c.query('UNWIND range(1, 3000000) AS x RETURN count(DISTINCT x % 1000)')).rows).toEqual([
        [1000],
      ]);
    }
  });

  it('follows deletes, own uncommitted writes and rollbacks', () => {
    conn.querySync('MATCH (a:P)-[e:E]->(b:P) WHERE (a.id + b.id) % 5 = 0 DELETE e');
    edges = edges.filter(([a, b]) => (a + b) % 5 !== 0);
    checkExpansion();
    const kept = edges;
    conn.querySync('BEGIN TRANSACTION');
    conn.querySync('MATCH (a:P {id: 0}), (b:P) WHERE b.id % 97 = 1 CREATE (a)-[:E]->(b)');
    edges = [...kept];
    for (let b = 1; b < persons; b += 97) edges.push([0, b]);
    checkExpansion();
    conn.querySync('ROLLBACK');
    edges = kept;
    checkExpansion();
  });
});
