// The plan cache seen from the public API: a repeated query gives the answers of its new
// parameters, parameter types and schema changes are respected, and errors repeat exactly.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Connection, Database, GraphDBError } from '../../src/index.js';

function errorOf(run: () => unknown): { code: string; message: string } {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(GraphDBError);
    const e = error as GraphDBError;
    return { code: e.code, message: e.message };
  }
  throw new Error('expected the query to fail');
}

describe('plan cache', () => {
  let db: Database;
  let conn: Connection;

  beforeEach(() => {
    db = new Database(':memory:', { maxThreadNum: 2 });
    conn = db.connect();
    conn.querySync('CREATE NODE TABLE Person(id INT64, name STRING, age INT64, PRIMARY KEY(id))');
    for (let id = 0; id < 100; id++) {
      conn.querySync('CREATE (:Person {id: $id, name: $name, age: $age})', {
        id,
        name: `p${id}`,
        age: 20 + (id % 50),
      });
    }
  });

  afterEach(() => {
    db.close();
  });

  it('answers a repeated lookup with the values of each run', async () => {
    const lookup = 'MATCH (p:Person {id: $id}) RETURN p.name, p.age';
    for (const id of [5, 42, 99, 0, 42]) {
      expect((await conn.query(lookup, { id })).rows).toEqual([[`p${id}`, 20 + (id % 50)]]);
    }
    expect((await conn.query(lookup, { id: 1000 })).rows).toEqual([]);
    expect(conn.querySync('MATCH (p:Person) WHERE p.id < $n RETURN count(*)', { n: 10 }).rows).toEqual([
      [10],
    ]);
    expect(conn.querySync('MATCH (p:Person) WHERE p.id < $n RETURN count(*)', { n: 3 }).rows).toEqual([[3]]);
    expect(conn.querySync('MATCH (p:Person) RETURN p.id ORDER BY p.id LIMIT $k', { k: 2 }).rows).toEqual([
      [0],
      [1],
    ]);
    expect(conn.querySync('MATCH (p:Person) RETURN p.id ORDER BY p.id LIMIT $k', { k: 1 }).rows).toEqual([
      [0],
    ]);
  });

  it('compiles again when a parameter changes type', () => {
    const twice = 'RETURN $x + $x AS y';
    expect(conn.querySync(twice, { x: 2 }).rows).toEqual([[4]]);
    expect(conn.querySync(twice, { x: 'ab' }).rows).toEqual([['abab']]);
    expect(conn.querySync(twice, { x: 0.25 }).rows).toEqual([[0.5]]);
    expect(conn.querySync(twice, { x: [1] }).rows).toEqual([[[1, 1]]]);
    expect(conn.querySync(twice, { x: 3 }).rows).toEqual([[6]]);
  });

  it('fails a wrongly typed or missing parameter as an uncached run does', () => {
    const query = 'MATCH (p:Person) WHERE p.age > $min RETURN count(*)';
    const other = new Database(':memory:');
    const fresh = other.connect();
    fresh.querySync('CREATE NODE TABLE Person(id INT64, name STRING, age INT64, PRIMARY KEY(id))');
    try {
      const uncached = errorOf(() => fresh.querySync(query, { min: [1] }));
      expect(conn.querySync(query, { min: 60 }).rows).toEqual([[18]]);
      expect(errorOf(() => conn.querySync(query, { min: [1] }))).toEqual(uncached);
      expect(errorOf(() => conn.querySync(query, { min: [1] }))).toEqual(uncached);
      expect(errorOf(() => conn.querySync(query))).toEqual(errorOf(() => fresh.querySync(query)));
      expect(conn.querySync(query, { min: 68 }).rows).toEqual([[2]]);
    } finally {
      other.close();
    }
  });

  it('sees schema changes made after a plan was cached', async () => {
    const age = 'MATCH (p:Person {id: $id}) RETURN p.age';
    expect((await conn.query(age, { id: 1 })).rows).toEqual([[21]]);
    await conn.query('ALTER TABLE Person DROP age');
    const dropped = errorOf(() => conn.querySync(age, { id: 1 }));
    expect(dropped.code).toBe('QUERY_BINDING');
    await conn.query("ALTER TABLE Person ADD age STRING DEFAULT 'n/a'");
    const r = await conn.query(age, { id: 2 });
    expect(r.types).toEqual(['STRING']);
    expect(r.rows).toEqual([['n/a']]);
    await conn.query('DROP TABLE Person');
    await conn.query('CREATE NODE TABLE Person(id INT64, city STRING, PRIMARY KEY(id))');
    expect(errorOf(() => conn.querySync(age, { id: 2 })).code).toBe('QUERY_BINDING');
    await conn.query("CREATE (:Person {id: 2, city: 'Oslo'})");
    expect((await conn.query('MATCH (p:Person {id: $id}) RETURN p.city', { id: 2 })).rows).toEqual([
      ['Oslo'],
    ]);
  });

  it('shares plans between connections running at once', async () => {
    const other = db.connect();
    const lookup = 'MATCH (p:Person {id: $id}) RETURN p.name';
    const runs: Promise<void>[] = [];
    for (let i = 0; i < 200; i++) {
      const id = (i * 37) % 100;
      const c = i % 2 === 0 ? conn : other;
      runs.push(c.query(lookup, { id }).then((r) => expect(r.rows).toEqual([[`p${id}`]])));
    }
    await Promise.all(runs);
    other.close();
  });
});
