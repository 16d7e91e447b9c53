import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { Database, GraphDBError } from '../../src/index.js';

const distIndex = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../dist/index.js');

// Runs `lines` (an ES module) in a child Node process with `env`, after opening an in-memory
// database (`db`) with a connection (`conn`) and a table P(id): the child's output.
function runChild(lines: string[], env: NodeJS.ProcessEnv) {
  const script = [
    `const { Database } = await import(${JSON.stringify(pathToFileURL(distIndex).href)});`,
    "const db = new Database(':memory:');",
    'const conn = db.connect();',
    "conn.querySync('CREATE NODE TABLE P(id INT64, PRIMARY KEY(id))');",
    ...lines,
  ].join('\n');
  return spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    env,
    encoding: 'utf8',
    timeout: 30_000,
  });
}

// Short reads (a few primary-key lookups) of an idle connection run at once on the JS thread;
// everything else goes to the connection's native thread. Either way the caller sees the same
// promise-based API, results and errors.
describe('short reads', () => {
  function open() {
    const db = new Database(':memory:', { maxThreadNum: 2 });
    const conn = db.connect();
    conn.querySync('CREATE NODE TABLE P(id INT64, name STRING, PRIMARY KEY(id))');
    conn.querySync("CREATE (:P {id: 1, name: 'a'}), (:P {id: 2, name: 'b'})");
    return { db, conn };
  }

  it('return the same rows, misses and errors as the native thread would', async () => {
    const { db, conn } = open();
    const read = 'MATCH (p:P {id: $id}) RETURN p.name AS name, p.id';
    const promise = conn.query(read, { id: 2 });
    expect(promise).toBeInstanceOf(Promise);
    const result = await promise;
    expect(result.columns).toEqual(['name', 'p.id']);
    expect(result.rows).toEqual([['b', 2]]);
    expect(result.rows).toEqual(conn.querySync(read, { id: 2 }).rows);
    expect((await conn.query(read, { id: 7 })).rows).toEqual([]);
    expect(await conn.queryText(read, { id: 1 })).toMatchObject({ rows: [['a', '1']] });
    await expect(conn.query("RETURN CAST('x' AS INT64)")).rejects.toBeInstanceOf(GraphDBError);
    // Wrong input is reported as before, whichever path the text would have taken.
    await expect(conn.query('MATCH (p:P {id: 1} RETURN p')).rejects.toMatchObject({
      code: 'QUERY_SYNTAX',
    });
    await expect(conn.query('MATCH (p:Nope {id: 1}) RETURN p')).rejects.toMatchObject({
      code: 'QUERY_BINDING',
    });
    await expect(conn.query(read)).rejects.toBeInstanceOf(GraphDBError); // $id missing
    // A key that is no INT64 fails as the comparison `p.id = 'two'` does, on both paths.
    await expect(conn.query(read, { id: 'two' })).rejects.toMatchObject({ code: 'QUERY_RUNTIME' });
    expect(() => conn.querySync(read, { id: 'two' })).toThrow(/Could not convert "two" to INT64/);
    expect((await conn.query(read, { id: '2' })).rows).toEqual(conn.querySync(read, { id: '2' }).rows);
    expect(conn.pending).toBe(0);
    conn.close();
    db.close();
  });

  it('include reads of a few hops, and reads past the work budget still give every row', async () => {
    const { db, conn } = open();
    conn.querySync('CREATE REL TABLE K(FROM P TO P)');
    // P 1 knows 5000 persons (more than the inline budget visits), P 2 knows ten of them.
    conn.querySync("UNWIND range(10, 5009) AS i CREATE (:P {id: i, name: 'n' + CAST(i AS STRING)})");
    conn.querySync('MATCH (a:P {id: 1}), (b:P) WHERE b.id >= 10 CREATE (a)-[:K]->(b)');
    conn.querySync('MATCH (a:P {id: 2}), (b:P) WHERE b.id >= 10 AND b.id < 20 CREATE (a)-[:K]->(b)');
    conn.querySync('MATCH (a:P {id: 10}), (b:P {id: 2}) CREATE (a)-[:K]->(b)');
    const oneHop = 'MATCH (p:P {id: $id})-[:K]->(f:P) RETURN f.name ORDER BY f.name';
    const twoHops = 'MATCH (p:P {id: $id})-[:K]->(:P)-[:K]->(f:P) RETURN count(*)';
    for (const id of [2, 1, 2, 10]) {
      for (const read of [oneHop, twoHops]) {
        const result = await conn.query(read, { id });
        expect(result.rows).toEqual(conn.querySync(read, { id }).rows);
      }
    }
    expect((await conn.query(oneHop, { id: 1 })).rows).toHaveLength(5000);
    expect((await conn.query(twoHops, { id: 2 })).rows).toEqual([[1]]);
    expect((await conn.query('MATCH (p:P) RETURN count(*)')).rows).toEqual([[5002]]);
    conn.close();
    db.close();
  });

  it('never overtake statements queued earlier on the same connection', async () => {
    const { db, conn } = open();
    const results: string[] = [];
    const writes = [];
    for (let i = 10; i < 20; i++) {
      writes.push(conn.query("CREATE (:P {id: $id, name: 'n' + CAST($id AS STRING)})", { id: i }));
      // Queued behind the write: it must see it.
      writes.push(
        conn.query('MATCH (p:P {id: $id}) RETURN p.name', { id: i }).then((r) => {
          results.push(String(r.rows[0]?.[0]));
        }),
      );
    }
    await Promise.all(writes);
    expect(results).toEqual(Array.from({ length: 10 }, (_, k) => `n${k + 10}`));
    conn.close();
    db.close();
  });

  it('settle after the code that submitted them, like any promise', async () => {
    const { db, conn } = open();
    const order: string[] = [];
    const done = conn.query('MATCH (p:P {id: 1}) RETURN p.name').then(() => order.push('result'));
    order.push('after submit');
    await done;
    expect(order).toEqual(['after submit', 'result']);
    conn.close();
    db.close();
  });

  it('can be turned off with GRAPHDB_INLINE_READS=0, and a wrong value is named', () => {
    const lines = [
      "conn.querySync('CREATE (:P {id: 4})');",
      "const r = await conn.query('MATCH (p:P {id: $id}) RETURN p.id', { id: 4 });",
      'console.log(String(r.rows[0][0]));',
    ];
    for (const [value, warning] of [
      [undefined, false],
      ['0', false],
      ['1', false],
      ['yes', true],
    ] as const) {
      const env = { ...process.env };
      delete env.GRAPHDB_INLINE_READS;
      if (value !== undefined) env.GRAPHDB_INLINE_READS = value;
      const child = runChild(lines, env);
      expect(child.status, child.stderr).toBe(0);
      expect(child.stdout.trim()).toBe('4');
      if (warning) {
        expect(child.stderr).toContain("GRAPHDB_INLINE_READS='yes'");
      } else {
        expect(child.stderr).not.toContain('GRAPHDB_INLINE_READS');
      }
    }
  });

  it('go on past their units within GRAPHDB_INLINE_TIME_US, and a wrong value is named', () => {
    // An aggregate over 20,000 rows: far past the 1,024 units, within 100 ms on any machine.
    // Sent to the native thread, its promise is pending as query() returns; run inline, not.
    const lines = [
      "conn.querySync('UNWIND range(1, 20000) AS i CREATE (:P {id: i})');",
      "const promise = conn.query('MATCH (p:P) RETURN count(*), sum(p.id)');",
      'const pending = conn.pending;',
      'const r = await promise;',
      'console.log(pending, JSON.stringify(r.rows));',
    ];
    for (const [value, pending, warning] of [
      ['100000', 0, false],
      ['0', 1, false],
      ['2ms', null, true], // the default, 200 µs: either way, as the machine allows
    ] as const) {
      const env = { ...process.env, GRAPHDB_INLINE_TIME_US: value };
      delete env.GRAPHDB_INLINE_READS;
      const child = runChild(lines, env);
      expect(child.status, child.stderr).toBe(0);
      const [seen, rows] = child.stdout.trim().split(' ');
      expect(rows).toBe('[[20000,200010000]]');
      if (pending !== null) expect(Number(seen)).toBe(pending);
      if (warning) {
        expect(child.stderr).toContain("GRAPHDB_INLINE_TIME_US='2ms'");
      } else {
        expect(child.stderr).not.toContain('GRAPHDB_INLINE_TIME_US');
      }
    }
  });
});
