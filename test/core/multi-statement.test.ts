// A query text of several statements ('A; B; C') on an embedded connection: one transaction,
// all or nothing, every statement's result in `results`.
import { describe, expect, it } from 'vitest';
import { Database } from '../../src/index.js';
import { rejection } from '../runtime/helpers.js';

function open() {
  const db = new Database(':memory:');
  const conn = db.connect();
  conn.querySync('CREATE NODE TABLE P(id INT64, PRIMARY KEY(id))');
  return { db, conn };
}

const ids = async (conn: ReturnType<Database['connect']>) =>
  (await conn.query('MATCH (p:P) RETURN p.id ORDER BY p.id')).rows.map((row) => row[0]);

describe('a query of several statements', () => {
  it("resolves to the last statement's result, with every statement's in results", async () => {
    const { db, conn } = open();
    try {
      const result = await conn.query(
        'CREATE (:P {id: 1}); CREATE (:P {id: 2}); MATCH (p:P) RETURN count(p) AS n',
      );
      expect(result.columns).toEqual(['n']);
      expect(result.rows).toEqual([[2]]);
      expect(result.results).toHaveLength(3);
      expect(result.results[2]).toBe(result);
      expect(result.results.map((r) => r.summary.counters.nodesCreated)).toEqual([1, 1, 0]);
      expect((await conn.query('RETURN 1 AS one')).results).toHaveLength(1);
      const sync = conn.querySync('RETURN 1 AS a; RETURN 2 AS b');
      expect(sync.results.map((r) => r.rows)).toEqual([[[1]], [[2]]]);
    } finally {
      db.close();
    }
  });

  it('commits nothing when the last statement fails, whether while running or binding', async () => {
    const { db, conn } = open();
    try {
      await conn.query('CREATE (:P {id: 1})');
      // A duplicate primary key fails while it runs.
      const duplicate = await rejection(
        conn.query('CREATE (:P {id: 2}); CREATE (:P {id: 3}); CREATE (:P {id: 1})'),
      );
      expect(duplicate.message).toMatch(/duplicated primary key|already exists/i);
      expect(await ids(conn)).toEqual([1]);
      // An unknown variable fails while it binds, after the first two ran.
      await rejection(conn.query('CREATE (:P {id: 2}); CREATE (:P {id: 3}); RETURN nothing'));
      expect(await ids(conn)).toEqual([1]);
      expect(() => conn.querySync('CREATE (:P {id: 4}); CREATE (:P {id: 1})')).toThrow();
      expect(await ids(conn)).toEqual([1]);
      // The connection is usable afterwards, outside any transaction.
      await conn.query('CREATE (:P {id: 5}); CREATE (:P {id: 6})');
      expect(await ids(conn)).toEqual([1, 5, 6]);
    } finally {
      db.close();
    }
  });

  it('runs DDL with the rest, and undoes it with the rest', async () => {
    const { db, conn } = open();
    try {
      const made = await conn.query(
        'CREATE NODE TABLE Q(id INT64, PRIMARY KEY(id)); CREATE (:Q {id: 1}); MATCH (q:Q) RETURN count(q)',
      );
      expect(made.rows).toEqual([[1]]);
      await rejection(
        conn.query(
          'CREATE NODE TABLE R(id INT64, PRIMARY KEY(id)); CREATE (:R {id: 1}); CREATE (:R {id: 1})',
        ),
      );
      expect((await rejection(conn.query('MATCH (r:R) RETURN r'))).code).toBe('QUERY_BINDING');
      expect((await conn.query('MATCH (q:Q) RETURN count(q)')).rows).toEqual([[1]]);
    } finally {
      db.close();
    }
  });

  it('refuses statements that cannot run in a transaction before running any', async () => {
    const { db, conn } = open();
    try {
      const refused = await rejection(conn.query('CREATE (:P {id: 1}); CHECKPOINT'));
      expect(refused.code).toBe('INVALID_REQUEST');
      expect(refused.message).toContain('CHECKPOINT cannot run in a query of several statements');
      expect(await ids(conn)).toEqual([]);
    } finally {
      db.close();
    }
  });

  it('runs as written when the text begins and commits a transaction itself, or one is open', async () => {
    const { db, conn } = open();
    try {
      const ran = await conn.query('BEGIN TRANSACTION; CREATE (:P {id: 1}); COMMIT; CREATE (:P {id: 2})');
      expect(ran.results).toHaveLength(4);
      expect(await ids(conn)).toEqual([1, 2]);
      await conn.query('BEGIN TRANSACTION');
      await conn.query('CREATE (:P {id: 3}); CREATE (:P {id: 4})');
      await conn.query('ROLLBACK');
      expect(await ids(conn)).toEqual([1, 2]);
    } finally {
      db.close();
    }
  });
});
