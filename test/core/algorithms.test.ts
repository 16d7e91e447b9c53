// Graph algorithms through the embedded API (docs/algorithms.md): projected graphs belong to
// their connection, algorithms read the statement's snapshot, errors are Kùzu's.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Connection, Database } from '../../src/index.js';

describe('graph algorithms', () => {
  let db: Database;
  let conn: Connection;
  const rows = async (c: Connection, q: string) => (await c.query(q)).rows as unknown[][];

  beforeEach(async () => {
    db = new Database(':memory:');
    conn = db.connect();
    await conn.query('CREATE NODE TABLE P(id INT64 PRIMARY KEY, age INT64)');
    await conn.query('CREATE REL TABLE K(FROM P TO P, w DOUBLE)');
    await conn.query('UNWIND range(0, 5) AS i CREATE (:P {id: i, age: 20 + i * 10})');
    await conn.query(
      'UNWIND [[0,1,1.0],[1,2,2.0],[2,0,3.0],[3,4,1.0]] AS e MATCH (a:P {id: e[1]}), (b:P {id: e[2]}) CREATE (a)-[:K {w: e[3]}]->(b)',
    );
  });
  afterEach(() => db.close());

  it('keeps a projected graph per connection until it is dropped or the connection closes', async () => {
    await conn.query("CALL project_graph('G', ['P'], ['K'])");
    expect(await rows(conn, 'CALL show_projected_graphs() RETURN *')).toEqual([['G', 'NATIVE']]);
    const other = db.connect();
    expect(await rows(other, 'CALL show_projected_graphs() RETURN *')).toEqual([]);
    await expect(other.query("CALL wcc('G') RETURN *")).rejects.toThrow(
      'Runtime exception: Projected graph G does not exists.',
    );
    // The same name on another connection is another graph.
    await other.query("CALL project_graph('G', {'P': 'n.age < 40'}, ['K'])");
    expect((await rows(other, "CALL wcc('G') RETURN count(*)"))[0]![0]).toBe(2);
    expect((await rows(conn, "CALL wcc('G') RETURN count(*)"))[0]![0]).toBe(6);
    other.close();
    await expect(conn.query("CALL project_graph('G', ['P'], ['K'])")).rejects.toThrow(
      'Runtime exception: Projected graph G already exists.',
    );
    await conn.query("CALL drop_projected_graph('G')");
    expect(await rows(conn, 'CALL show_projected_graphs() RETURN *')).toEqual([]);
  });

  it('runs on the snapshot of its statement, with writes after the projection', async () => {
    await conn.query("CALL project_graph('G', ['P'], ['K'])");
    const components = async () =>
      rows(conn, "CALL weakly_connected_components('G') RETURN node.id, group_id ORDER BY node.id");
    expect((await components()).map((r) => r[1])).toEqual([0, 0, 0, 3, 3, 5]);
    await conn.query('MATCH (a:P {id: 4}), (b:P {id: 5}) CREATE (a)-[:K {w: 1.0}]->(b)');
    await conn.query('MATCH (n:P {id: 0}) DETACH DELETE n');
    expect(await components()).toEqual([
      [1, 1],
      [2, 1],
      [3, 3],
      [4, 3],
      [5, 3],
    ]);
  });

  it('reads bulk-loaded, new and deleted edges in both directions', async () => {
    // COPY from a file fills the storage's CSR (read whole while no edge of it is deleted);
    // CREATE adds delta entries; a DELETE makes every CSR entry's stamps count.
    const c = db.connect();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'graphdb-algo-csr-'));
    fs.writeFileSync(path.join(dir, 'e.csv'), '0,1\n1,2\n2,0\n3,4\n');
    await c.query('CREATE NODE TABLE V(id INT64 PRIMARY KEY)');
    await c.query('CREATE REL TABLE E(FROM V TO V)');
    await c.query('COPY V FROM (UNWIND range(0, 5) AS i RETURN i)');
    await c.query(`COPY E FROM '${path.join(dir, 'e.csv')}'`);
    fs.rmSync(dir, { recursive: true, force: true });
    await c.query("CALL project_graph('H', ['V'], ['E'])");
    const answers = async () => [
      (await rows(c, "CALL scc('H') RETURN node.id, group_id ORDER BY node.id")).map((r) => r[1]),
      (await rows(c, "CALL scc_ko('H') RETURN node.id, group_id ORDER BY node.id")).map((r) => r[1]),
      (await rows(c, "CALL kcore('H') RETURN node.id, k_degree ORDER BY node.id")).map((r) => r[1]),
    ];
    expect(await answers()).toEqual([
      [0, 0, 0, 3, 4, 5],
      [0, 0, 0, 3, 4, 5],
      [2, 2, 2, 1, 1, 0],
    ]);
    await c.query('MATCH (a:V {id: 4}), (b:V {id: 3}) CREATE (a)-[:E]->(b)');
    expect(await answers()).toEqual([
      [0, 0, 0, 3, 3, 5],
      [0, 0, 0, 3, 3, 5],
      [2, 2, 2, 2, 2, 0],
    ]);
    await c.query('MATCH (:V {id: 2})-[r:E]->(:V {id: 0}) DELETE r');
    expect(await answers()).toEqual([
      [0, 1, 2, 3, 3, 5],
      [0, 1, 2, 3, 3, 5],
      [1, 1, 1, 2, 2, 0],
    ]);
  });

  it('checks parameters and arguments as Kùzu does', async () => {
    await conn.query("CALL project_graph('G', ['P'], ['K'])");
    await expect(conn.query("CALL page_rank('G', dampingFactor := 1.5) RETURN *")).rejects.toThrow(
      'Binder exception: Damping factor must be in the [0, 1).',
    );
    await expect(conn.query("CALL pr('G', maxIteratioN := 4) RETURN *")).rejects.toThrow(
      'Binder exception: Unknown optional parameter: maxIteratioN',
    );
    await expect(conn.query("CALL project_graph('X', ['P'], 'K')")).rejects.toThrow(
      'Binder exception: Argument K has data type STRING. LIST or STRUCT was expected.',
    );
    await expect(conn.query("CALL project_graph('X', ['P'], {'K': 'r.nope > 1'})")).rejects.toThrow(
      'Binder exception: Cannot find property nope for r.',
    );
  });

  it('returns bfs and sssp distances and the new community functions', async () => {
    await conn.query("CALL project_graph('G', ['P'], ['K'])");
    expect(await rows(conn, "CALL bfs('G', 0) RETURN node.id, distance ORDER BY node.id")).toEqual([
      [0, 0],
      [1, 1],
      [2, 2],
    ]);
    expect(
      await rows(
        conn,
        "CALL sssp('G', 1, weight_property := 'w', direction := 'both') RETURN node.id, distance ORDER BY node.id",
      ),
    ).toEqual([
      [0, 1],
      [1, 0],
      [2, 2],
    ]);
    const leiden = await rows(conn, "CALL leiden('G', seed := 5) RETURN node.id, leiden_id ORDER BY node.id");
    expect(leiden[0]![1]).toBe(leiden[1]![1]);
    expect(leiden[3]![1]).not.toBe(leiden[0]![1]);
    expect(
      await rows(conn, "CALL triangle_count('G') RETURN node.id, triangles ORDER BY node.id LIMIT 3"),
    ).toEqual([
      [0, 1],
      [1, 1],
      [2, 1],
    ]);
  });

  it('stops at the statement time limit and its memory limit', async () => {
    const open = async (options: { maxStatementMemoryBytes?: number }) => {
      const big = new Database(':memory:', options);
      const c = big.connect();
      await c.query('CREATE NODE TABLE V(id INT64 PRIMARY KEY)');
      await c.query('CREATE REL TABLE W(FROM V TO V)');
      await c.query('COPY V FROM (UNWIND range(0, 49999) AS i RETURN i)');
      await c.query('COPY W FROM (UNWIND range(0, 49999) AS i RETURN i, (i * 7 + 1) % 50000)');
      await c.query("CALL project_graph('G', ['V'], ['W'])");
      return { big, c };
    };
    const timed = await open({});
    try {
      // A million PageRank iterations over 50,000 nodes cannot end within the limit.
      await expect(
        timed.c.query(
          "CALL page_rank('G', maxIterations := 1000000, tolerance := 0.0) RETURN count(*)",
          {},
          {
            timeoutMs: 200,
          },
        ),
      ).rejects.toMatchObject({ code: 'QUERY_TIMEOUT' });
    } finally {
      timed.big.close();
    }
    const limited = await open({ maxStatementMemoryBytes: 1_000_000 });
    try {
      // The graph built for the call (50,000 nodes and edges) is more than a megabyte.
      await expect(limited.c.query("CALL kcore('G') RETURN count(*)")).rejects.toMatchObject({
        code: 'RESOURCE_LIMIT',
      });
    } finally {
      limited.big.close();
    }
  });
});
