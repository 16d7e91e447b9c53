// Where a projected graph lives in the service (docs/algorithms.md, "Projected graphs"): over
// HTTP and Bolt it belongs to the explicit transaction whose statement made it, is invisible to
// other transactions and requests, and is dropped when that transaction ends (commit, rollback
// or expiry), even when the next transaction gets the same execution slot back. A statement
// that runs alone keeps its graph for that statement only.
import neo4j, { type Driver, type Session } from 'neo4j-driver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Database, GraphDBService } from '../../src/index.js';
import { waitFor } from '../runtime/helpers.js';

let service: GraphDBService;
let url: string;
let driver: Driver;

const PROJECT = "CALL project_graph('G', ['P'], ['K'])";
const USE = "CALL weakly_connected_components('G') RETURN count(*) AS n";
const MISSING = /Projected graph G does not exists/;

beforeAll(async () => {
  service = new GraphDBService(new Database(':memory:', { maxThreadNum: 4 }), {
    queryPort: 0,
    boltPort: 0,
    autoCompaction: false,
    console: false,
    maxOpenTransactions: 3,
    // Long enough that the transactions the tests hold open between requests do not expire on a
    // loaded machine (300 ms once did); the expiry case waits for it.
    txIdleTimeoutMs: 2000,
  });
  url = await service.start();
  driver = neo4j.driver(`bolt://127.0.0.1:${service.boltPort}`, neo4j.auth.basic('neo4j', 'x'));
  await cypher('CREATE NODE TABLE P(id INT64, PRIMARY KEY(id))');
  await cypher('CREATE REL TABLE K(FROM P TO P)');
  await cypher('UNWIND range(1, 4) AS i CREATE (:P {id: i})');
  await cypher('MATCH (a:P {id: 1}), (b:P {id: 2}) CREATE (a)-[:K]->(b)');
});

afterAll(async () => {
  await driver?.close();
  await service?.close();
});

interface Answer {
  status: number;
  body: { id: string; rows: unknown[][]; error: { code: string; message: string } };
}

async function call(method: string, path: string, body?: unknown): Promise<Answer> {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Answer['body'] };
}

const cypher = (query: string) => call('POST', '/cypher', { query });
const inTx = (id: string, query: string) => call('POST', `/tx/${id}`, { query });

async function begin(): Promise<string> {
  const opened = await call('POST', '/tx');
  expect(opened.status).toBe(201);
  return opened.body.id;
}

/**
 * The answer of a statement that must fail because G is not there (in a transaction, the
 * error ends it).
 */
function expectMissing(answer: Answer): void {
  expect(answer.status).toBeGreaterThanOrEqual(400);
  expect(answer.body.error.message).toMatch(MISSING);
}

/** Whether a new transaction sees G (it is ended either way). */
async function expectMissingInNewTx(): Promise<void> {
  const id = await begin();
  expectMissing(await inTx(id, USE));
  expect((await call('DELETE', `/tx/${id}`)).status).toBe(404);
}

describe('projected graphs over HTTP', () => {
  it('belong to the transaction that made them, not to other transactions or requests', async () => {
    const a = await begin();
    const b = await begin();
    expect((await inTx(a, PROJECT)).status).toBe(200);
    expect((await inTx(a, USE)).body.rows).toEqual([[4]]);
    // The same name in another transaction is another graph (no "already exists").
    expect((await inTx(b, "CALL project_graph('G', {'P': 'n.id <= 2'}, ['K'])")).status).toBe(200);
    expect((await inTx(b, USE)).body.rows).toEqual([[2]]);
    expect((await inTx(a, USE)).body.rows).toEqual([[4]]);
    await expectMissingInNewTx();
    expectMissing(await cypher(USE));
    expect((await inTx(a, USE)).body.rows).toEqual([[4]]);
    expect((await call('POST', `/tx/${a}/commit`)).status).toBe(200);
    expect((await call('DELETE', `/tx/${b}`)).status).toBe(200);
  });

  it('are dropped when the transaction commits, rolls back or expires', async () => {
    for (const end of ['commit', 'rollback', 'expiry'] as const) {
      await waitFor(() => service.pool?.inUse === 0, 5000, 'every slot to be free');
      const id = await begin();
      expect((await inTx(id, PROJECT)).status).toBe(200);
      if (end === 'commit') expect((await call('POST', `/tx/${id}/commit`)).status).toBe(200);
      if (end === 'rollback') expect((await call('DELETE', `/tx/${id}`)).status).toBe(200);
      if (end === 'expiry') await waitFor(() => service.pool?.inUse === 0, 15000, 'the idle rollback');
      // The next transaction may get the same slot back: no graph is left on it.
      await expectMissingInNewTx();
      expectMissing(await cypher(USE));
    }
  });

  it('end with the statement outside a transaction', async () => {
    expect((await cypher(PROJECT)).status).toBe(200);
    expectMissing(await cypher(USE));
    await expectMissingInNewTx();
  });
});

describe('projected graphs over Bolt', () => {
  async function withSession<T>(body: (session: Session) => Promise<T>): Promise<T> {
    const session = driver.session();
    try {
      return await body(session);
    } finally {
      await session.close();
    }
  }

  it('belong to the explicit transaction that made them and end with it', async () => {
    await withSession(async (first) => {
      await withSession(async (second) => {
        const a = first.beginTransaction();
        await a.run(PROJECT);
        expect((await a.run(USE)).records[0]?.get('n').toNumber()).toBe(4);
        // Another session's transaction, and an auto-commit statement, do not see it.
        const b = second.beginTransaction();
        await expect(b.run(USE)).rejects.toThrow(MISSING);
        await b.rollback().catch(() => {});
        await expect(second.run(USE)).rejects.toThrow(MISSING);
        await a.commit();
        // The same session's next transaction starts without it.
        const c = first.beginTransaction();
        await expect(c.run(USE)).rejects.toThrow(MISSING);
        await c.rollback().catch(() => {});
        const d = first.beginTransaction();
        await d.run(PROJECT);
        await d.rollback();
        await expect(first.run(USE)).rejects.toThrow(MISSING);
      });
    });
  });

  it('end with the statement in an auto-commit run', async () => {
    await withSession(async (session) => {
      await session.run(PROJECT);
      await expect(session.run(USE)).rejects.toThrow(MISSING);
    });
  });
});
