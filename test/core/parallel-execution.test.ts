import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Connection, Database, GraphDBService } from '../../src/index.js';
import { request } from '../runtime/helpers.js';

// Parallel execution within one statement (docs/execution.md): the queryThreads option, the
// connection's override, and answers equal to the serial run's.
describe('parallel execution', () => {
  let db: Database;
  let conn: Connection;

  beforeAll(() => {
    db = new Database(':memory:', { queryThreads: 2 });
    conn = db.connect();
    conn.querySync('CREATE NODE TABLE P(id INT64 PRIMARY KEY, g INT64, name STRING)');
    conn.querySync('CREATE REL TABLE E(FROM P TO P)');
    conn.querySync(
      "UNWIND range(0, 19999) AS i CREATE (:P {id: i, g: (i * 7919) % 23, name: concat('n', CAST(i % 101 AS STRING))})",
    );
    conn.querySync(
      'UNWIND range(0, 39999) AS i MATCH (a:P {id: i % 20000}), (b:P {id: (i * 31) % 20000}) CREATE (a)-[:E]->(b)',
    );
  });
  afterAll(() => db.close());

  const explain = (query: string) => String(conn.querySync(`EXPLAIN ${query}`).rows[0][0]);
  const grouped = 'MATCH (a:P)-[:E]->(b:P) RETURN a.g AS g, count(*) AS n, avg(b.g) AS avg, min(b.name) AS m';

  it('resolves and checks the queryThreads option', () => {
    expect(db.queryThreads).toBe(2);
    expect(new Database(':memory:', { queryThreads: 0 }).queryThreads).toBeGreaterThanOrEqual(1);
    expect(() => new Database(':memory:', { queryThreads: -1 })).toThrow(/queryThreads must be between/);
    expect(() => new Database(':memory:', { queryThreads: 1.5 })).toThrow(/queryThreads must be an integer/);
  });

  it('runs large pipelines on several threads unless the connection or database says one', async () => {
    expect(explain(grouped)).toMatch(/AGGREGATE.* parallel=P/);
    conn.setMaxNumThreadForExec(1);
    expect(conn.querySync("CALL current_setting('threads') RETURN *").rows).toEqual([['1']]);
    expect(explain(grouped)).not.toMatch(/parallel=/);
    conn.setMaxNumThreadForExec(0);
    expect(explain(grouped)).toMatch(/parallel=P/);
    expect(() => conn.setMaxNumThreadForExec(-2)).toThrow(RangeError);
    // A statement's own option lowers it for that statement alone.
    const once = await conn.query(`EXPLAIN ${grouped}`, undefined, { threads: 1 });
    expect(String(once.rows[0][0])).not.toMatch(/parallel=/);
    expect(explain(grouped)).toMatch(/parallel=P/);
    await expect(conn.query('RETURN 1', undefined, { threads: 1.5 })).rejects.toThrow(
      /threads must be an integer/,
    );
    const one = new Database(':memory:', { queryThreads: 1 });
    const c1 = one.connect();
    c1.querySync('CREATE NODE TABLE P(id INT64 PRIMARY KEY)');
    expect(String(c1.querySync('EXPLAIN MATCH (a:P) RETURN count(*)').rows[0][0])).not.toMatch(/parallel=/);
    one.close();
  });

  it('gives the serial answers, in the serial order', () => {
    const queries = [
      grouped,
      'MATCH (a:P)-[:E]->(b:P)-[:E]->(c:P) WHERE a.g < 5 AND c.g > 10 RETURN count(*)',
      'MATCH (a:P) RETURN a.id, a.g ORDER BY a.g DESC LIMIT 30',
      'MATCH (a:P) RETURN DISTINCT a.name, a.g % 3',
      'MATCH (a:P)<-[:E]-(b:P) WITH a, count(b) AS d RETURN d, count(*)',
    ];
    for (const query of queries) {
      conn.setMaxNumThreadForExec(1);
      const serial = conn.querySync(query).rows;
      conn.setMaxNumThreadForExec(2);
      expect(conn.querySync(query).rows, query).toEqual(serial);
    }
  });

  it("gives a service's statements the threads of ServiceConfig.queryThreads", async () => {
    const served = new Database(':memory:', { queryThreads: 2, maxThreadNum: 1 });
    const setup = served.connect();
    setup.querySync('CREATE NODE TABLE P(id INT64 PRIMARY KEY)');
    setup.close();
    const plan = async (queryThreads: number) => {
      const service = new GraphDBService(served, { queryPort: 0, autoCompaction: false, queryThreads });
      try {
        const lease = await service.acquireExecutionSlot();
        const result = await lease.slot.executeTransactionalRequest(
          request('EXPLAIN MATCH (a:P) RETURN count(*)', { access_mode: 'read' }),
        );
        lease.release();
        return String(result.rows[0][0]);
      } finally {
        await service.close();
      }
    };
    expect(await plan(0)).toMatch(/parallel=P/);
    expect(await plan(1)).not.toMatch(/parallel=/);
    expect(() => new GraphDBService(served, { queryThreads: -1 })).toThrow(RangeError);
    served.close();
  });
});
