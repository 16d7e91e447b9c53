import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Connection, Database } from '../../src/index.js';

// A filtered count marks its filter for a whole node table once it has tested a 64th of it
// (NodeBits in native/exec/column_filter.h, kept by the statement's store until it writes).
// The same filtered query before and after writes (inserts, updates of the filtered property,
// deletes, a rolled back transaction, writes earlier in the reader's own transaction, and writes
// earlier in the same statement, row by row in an update clause) must see the new answer, at 1
// and 2 threads. The
// expected answers come from a form that counts nothing: count(c.id) reads every end node.
describe('filter marks after writes', () => {
  let db: Database;
  let conn: Connection;
  const persons = 6000;

  beforeAll(() => {
    db = new Database(':memory:', { queryThreads: 2 });
    conn = db.connect();
    conn.querySync('CREATE NODE TABLE Person(id INT64 PRIMARY KEY, city STRING)');
    conn.querySync('CREATE REL TABLE Knows(FROM Person TO Person)');
    conn.querySync(
      `UNWIND range(0, ${persons - 1}) AS i CREATE (:Person {id: i, city: CASE WHEN i % 13 = 0 THEN NULL ` +
        "WHEN i % 3 = 0 THEN 'Paris' ELSE 'Rome' END})",
    );
    // Person 0 reaches every tenth person: its filtered neighbours are marked long before the
    // persons written below (4000 and up) are reached.
    conn.querySync(
      'MATCH (h:Person {id: 0}), (b:Person) WHERE b.id % 10 = 0 AND b.id > 0 CREATE (h)-[:Knows]->(b)',
    );
  });
  afterAll(() => db.close());

  const hub = "MATCH (h:Person {id: 0})-[:Knows]->(c:Person) WHERE c.city = 'Paris' RETURN ";
  const rows = (query: string, threads: number) => {
    conn.setMaxNumThreadForExec(threads);
    return conn.querySync(query).rows;
  };
  /** The counted query at 1 and 2 threads gives the plain one's answer; returns it. */
  const expectCounted = (when: string) => {
    const expected = rows(`${hub}count(c.id)`, 1);
    for (const threads of [1, 2]) {
      expect(rows(`${hub}count(*)`, threads), `${when}, ${threads} threads`).toEqual(expected);
    }
    return Number(expected[0][0]);
  };

  it('sees each write of the next statements', () => {
    const start = expectCounted('at first');
    conn.querySync('BEGIN TRANSACTION');
    conn.querySync("MATCH (p:Person) WHERE p.id IN [4000, 4010, 4020] SET p.city = 'Paris'");
    const updated = expectCounted('after an update in the transaction');
    expect(updated).toBeGreaterThan(start);
    conn.querySync("MATCH (h:Person {id: 0}) CREATE (h)-[:Knows]->(:Person {id: 100000, city: 'Paris'})");
    expect(expectCounted('after an insert in the transaction')).toBe(updated + 1);
    conn.querySync('MATCH (p:Person {id: 4000}) DETACH DELETE p');
    expect(expectCounted('after a delete in the transaction')).toBe(updated);
    conn.querySync('ROLLBACK');
    expect(expectCounted('after the rollback')).toBe(start);
    conn.querySync("MATCH (p:Person) WHERE p.id IN [4020, 4050] SET p.city = 'Rome'");
    expect(expectCounted('after a committed update')).toBeLessThan(start);
  });

  it('sees the writes of the rows before it in one statement', () => {
    conn.querySync('CREATE NODE TABLE IF NOT EXISTS Log(id INT64 PRIMARY KEY, n INT64)');
    const ids = [4500, 4800, 5100, 5700];
    const flip = "SET p.city = CASE WHEN p.city = 'Paris' THEN 'Rome' ELSE 'Paris' END";
    const counted = "COUNT { MATCH (h)-[:Knows]->(c:Person) WHERE c.city = 'Paris' }";
    const head = `MATCH (h:Person {id: 0}), (p:Person) WHERE p.id IN [${ids.join(', ')}] WITH h, p ORDER BY p.id ${flip}`;
    for (const before of ['', "MATCH (p:Person) WHERE p.id % 20 = 0 SET p.city = 'Paris'"]) {
      // The steps as statements, rolled back.
      conn.querySync('BEGIN TRANSACTION');
      if (before) conn.querySync(before);
      const expected = ids.map((id) => {
        conn.querySync(`MATCH (p:Person {id: ${id}}) ${flip}`);
        return [id, rows(`${hub}count(c.id)`, 1)[0][0]];
      });
      conn.querySync('ROLLBACK');
      const last = expected[expected.length - 1][1];
      const when = (threads: number) => `${before || 'no earlier write'}, ${threads} threads`;
      for (const threads of [1, 2]) {
        // One statement whose MERGE after the write counts per row (a counted subquery in ON
        // CREATE SET), row by row: each row sees its own write and the earlier rows'. (A
        // CREATE's or SET's subqueries run for every row before the clause.)
        conn.querySync('BEGIN TRANSACTION');
        if (before) conn.querySync(before);
        rows(`${head} MERGE (l:Log {id: p.id}) ON CREATE SET l.n = ${counted}`, threads);
        expect(rows('MATCH (l:Log) RETURN l.id, l.n ORDER BY l.id', 1), when(threads)).toEqual(expected);
        conn.querySync('ROLLBACK');
        // A RETURN after the write reads after every row's write (clause by clause).
        conn.querySync('BEGIN TRANSACTION');
        if (before) conn.querySync(before);
        expect(rows(`${head} WITH h, p RETURN p.id, ${counted}`, threads), when(threads)).toEqual(
          ids.map((id) => [id, last]),
        );
        conn.querySync('ROLLBACK');
      }
    }
  });
});
