import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Database, GraphDBService } from '../../src/index.js';
import { sleep, waitFor } from '../runtime/helpers.js';

let db: Database;
let service: GraphDBService;
let url: string;

const JSON_HEADERS = { 'content-type': 'application/json' };

beforeAll(async () => {
  db = new Database(':memory:', { maxThreadNum: 4 });
  service = new GraphDBService(db, {
    queryPort: 0,
    autoCompaction: false,
    maxOpenTransactions: 2,
    txIdleTimeoutMs: 400,
  });
  url = await service.start();
  await cypher('CREATE NODE TABLE P(id INT64, PRIMARY KEY(id))');
});

beforeEach(async () => {
  await waitFor(() => service.pool?.inUse === 0, 5000, 'every slot to be free');
  await cypher('MATCH (p:P) DELETE p');
});

afterAll(async () => {
  await service.close();
  db.close();
});

/** What the answers hold, loosely: each test reads the fields its answer has. */
interface Body {
  id: string;
  expiresAt: string;
  status: string;
  columns: string[];
  types: string[];
  rows: unknown[][];
  summary: { rowCount: number; counters: Record<string, number> };
  error: { code: string; message: string };
}

interface Answer {
  status: number;
  body: Body;
}

async function call(base: string, method: string, path: string, body?: unknown): Promise<Answer> {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: body === undefined ? {} : JSON_HEADERS,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Body };
}

function cypher(query: string, extra: Record<string, unknown> = {}): Promise<Answer> {
  return call(url, 'POST', '/cypher', { query, ...extra });
}

async function count(): Promise<number> {
  const { body } = await cypher('MATCH (p:P) RETURN count(*) AS n');
  return body.rows[0]![0] as number;
}

function begin(body?: unknown): Promise<Answer> {
  return call(url, 'POST', '/tx', body);
}

function inTx(id: string, query: string, extra: Record<string, unknown> = {}): Promise<Answer> {
  return call(url, 'POST', `/tx/${id}`, { query, ...extra });
}

function commit(id: string): Promise<Answer> {
  return call(url, 'POST', `/tx/${id}/commit`);
}

function rollback(id: string): Promise<Answer> {
  return call(url, 'DELETE', `/tx/${id}`);
}

describe('explicit HTTP transactions', () => {
  it('opens a transaction whose writes are seen only inside it until it commits', async () => {
    const opened = await begin();
    expect(opened.status).toBe(201);
    expect(opened.body.id).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(Date.parse(opened.body.expiresAt)).toBeGreaterThan(Date.now());
    const id = opened.body.id as string;
    const created = await inTx(id, 'UNWIND range(1, 3) AS i CREATE (:P {id: i})');
    expect(created.status).toBe(200);
    expect(created.body.summary.counters.nodesCreated).toBe(3);
    // Same result shape as /cypher.
    const read = await inTx(id, 'MATCH (p:P) RETURN count(*) AS n');
    expect(read.body).toMatchObject({ columns: ['n'], types: ['INT64'], rows: [[3]] });
    // Other requests do not see the uncommitted writes (and are not held up to read).
    expect(await count()).toBe(0);
    const committed = await commit(id);
    expect(committed).toEqual({ status: 200, body: { id, status: 'committed' } });
    expect(await count()).toBe(3);
    // The id is gone.
    const after = await inTx(id, 'RETURN 1');
    expect(after.status).toBe(404);
    expect(after.body.error.code).toBe('TX_NOT_FOUND');
    expect((await commit(id)).body.error.code).toBe('TX_NOT_FOUND');
  });

  it('rolls back with DELETE, leaving nothing', async () => {
    const { body } = await begin();
    await inTx(body.id, 'CREATE (:P {id: 1})');
    expect(await rollback(body.id)).toEqual({ status: 200, body: { id: body.id, status: 'rolled_back' } });
    expect(await count()).toBe(0);
    expect((await rollback(body.id)).status).toBe(404);
  });

  it('answers 404 TX_NOT_FOUND for an unknown id, and ids differ', async () => {
    const unknown = await inTx('no-such-transaction', 'RETURN 1');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('TX_NOT_FOUND');
    const a = await begin();
    const b = await begin({ access_mode: 'read' });
    expect(a.body.id).not.toBe(b.body.id);
    await rollback(a.body.id);
    await rollback(b.body.id);
  });

  it('streams a statement in a transaction as NDJSON', async () => {
    const { body } = await begin();
    await inTx(body.id, 'UNWIND range(1, 2500) AS i CREATE (:P {id: i})');
    const response = await fetch(`${url}/tx/${body.id}`, {
      method: 'POST',
      headers: { ...JSON_HEADERS, accept: 'application/x-ndjson' },
      body: JSON.stringify({ query: 'MATCH (p:P) RETURN p.id ORDER BY p.id' }),
    });
    expect(response.headers.get('content-type')).toBe('application/x-ndjson');
    const lines = (await response.text()).trim().split('\n');
    expect(lines.length).toBe(2502);
    expect(JSON.parse(lines[1]!)).toEqual([1]);
    expect(JSON.parse(lines[2501]!).summary.rowCount).toBe(2500);
    // The transaction is still open, and the next statement runs after the stream.
    expect((await inTx(body.id, 'MATCH (p:P) RETURN count(*)')).body.rows).toEqual([[2500]]);
    await rollback(body.id);
    expect(await count()).toBe(0);
  });

  it('runs the requests of one transaction one at a time', async () => {
    const { body } = await begin();
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) => inTx(body.id, 'CREATE (:P {id: $id})', { parameters: { id: i } })),
    );
    for (const result of results) expect(result.status).toBe(200);
    expect((await commit(body.id)).status).toBe(200);
    expect(await count()).toBe(12);
  });

  it('a read transaction refuses writes, and reads its snapshot', async () => {
    await cypher('CREATE (:P {id: 1})');
    const { body } = await begin({ access_mode: 'read' });
    const write = await inTx(body.id, 'CREATE (:P {id: 2})');
    expect(write.status).toBe(400);
    expect(write.body.error.code).toBe('ACCESS_MODE_VIOLATION');
    const asked = await inTx(body.id, 'MATCH (p:P) RETURN count(*)', { access_mode: 'update' });
    expect(asked.body.error.code).toBe('ACCESS_MODE_VIOLATION');
    await cypher('CREATE (:P {id: 3})');
    expect((await inTx(body.id, 'MATCH (p:P) RETURN count(*)')).body.rows).toEqual([[1]]);
    await commit(body.id);
    expect(await count()).toBe(2);
  });

  it("takes access_mode null as none named: the transaction's mode applies, never more", async () => {
    await cypher('CREATE (:P {id: 1})');
    const { body } = await begin({ access_mode: 'insert' });
    for (const extra of [{ access_mode: null }, {}]) {
      const deleted = await inTx(body.id, 'MATCH (p:P) DELETE p', extra);
      expect(deleted.status).toBe(400);
      expect(deleted.body.error.code).toBe('ACCESS_MODE_VIOLATION');
      expect(deleted.body.error.message).toMatch(/allows only 'insert'/);
    }
    // A key repeated in the body text does not get round it either (the last one counts).
    const repeated = await fetch(`${url}/tx/${body.id}`, {
      method: 'POST',
      headers: JSON_HEADERS,
      body: '{"access_mode":"update","query":"MATCH (p:P) DELETE p","access_mode":null}',
    });
    expect(repeated.status).toBe(400);
    expect(((await repeated.json()) as Body).error.code).toBe('ACCESS_MODE_VIOLATION');
    // What the transaction's mode allows runs.
    expect((await inTx(body.id, 'CREATE (:P {id: 2})', { access_mode: null })).status).toBe(200);
    await commit(body.id);
    expect((await cypher('MATCH (p:P) RETURN p.id ORDER BY p.id')).body.rows).toEqual([[1], [2]]);
    // POST /tx with access_mode null is a transaction with none named.
    const opened = await begin({ access_mode: null });
    expect(opened.status).toBe(201);
    expect((await inTx(opened.body.id, 'MATCH (p:P) DELETE p')).status).toBe(200);
    await rollback(opened.body.id);
  });

  it('refuses a bad access mode, a non-JSON body and transaction statements inside', async () => {
    const bad = await begin({ access_mode: 'write-everything' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('INVALID_REQUEST');
    const { body } = await begin();
    const text = await fetch(`${url}/tx/${body.id}`, { method: 'POST', body: 'RETURN 1' });
    expect(text.status).toBe(415);
    const nested = await inTx(body.id, 'COMMIT');
    expect(nested.status).toBe(400);
    expect(nested.body.error.code).toBe('INVALID_REQUEST');
    expect(nested.body.error.message).toMatch(/POST \/tx\/\{id\}\/commit/);
    // Still open.
    expect((await inTx(body.id, 'RETURN 1 AS x')).body.rows).toEqual([[1]]);
    await rollback(body.id);
  });

  it('a syntax error leaves the transaction open; an error while executing rolls it back', async () => {
    const { body } = await begin();
    await inTx(body.id, 'CREATE (:P {id: 1})');
    expect((await inTx(body.id, 'MATCH (n RETURN n')).body.error.code).toBe('QUERY_SYNTAX');
    expect((await inTx(body.id, 'MATCH (p:P) RETURN count(*)')).body.rows).toEqual([[1]]);
    const failed = await inTx(body.id, 'CREATE (:P {id: 1})'); // duplicate primary key
    expect(failed.status).toBe(409);
    expect((await inTx(body.id, 'RETURN 1')).body.error.code).toBe('TX_NOT_FOUND');
    expect(await count()).toBe(0);
    await waitFor(() => service.pool?.inUse === 0, 5000, 'the slot to come back');
  });

  it('an idle transaction expires: rolled back, its slot freed, its id unknown', async () => {
    const { body } = await begin();
    await inTx(body.id, 'CREATE (:P {id: 1})');
    expect(service.pool?.inUse).toBe(1);
    // Expired once idle for 400 ms, however late a loaded machine runs the timer.
    await sleep(700);
    await waitFor(() => service.pool?.inUse === 0, 10_000, 'the idle transaction to expire');
    expect((await inTx(body.id, 'RETURN 1')).body.error.code).toBe('TX_NOT_FOUND');
    expect(await count()).toBe(0);
  });

  it('each request renews the idle time', async () => {
    // A service of its own with a 2 s idle time: five requests 500 ms apart outlive it only if
    // each renews it, and a loaded machine has 1.5 s to spare between two.
    const local = new Database(':memory:', { maxThreadNum: 2 });
    const own = new GraphDBService(local, { queryPort: 0, autoCompaction: false, txIdleTimeoutMs: 2000 });
    try {
      const base = await own.start();
      const { body } = await call(base, 'POST', '/tx');
      const started = performance.now();
      for (let i = 0; i < 5; i++) {
        await sleep(500);
        expect((await call(base, 'POST', `/tx/${body.id}`, { query: 'RETURN 1 AS x' })).status).toBe(200);
      }
      expect(performance.now() - started).toBeGreaterThan(2000);
      expect((await call(base, 'POST', `/tx/${body.id}/commit`)).status).toBe(200);
    } finally {
      await own.close();
      local.close();
    }
  });

  it('bounds the transactions open at once, so they cannot hold every slot', async () => {
    const a = await begin({ access_mode: 'read' });
    const b = await begin({ access_mode: 'read' });
    const c = await begin({ access_mode: 'read' });
    expect(c.status).toBe(503);
    expect(c.body.error.code).toBe('SERVICE_UNAVAILABLE');
    expect(c.body.error.message).toMatch(/maxOpenTransactions/);
    // Statements still run on the slots left.
    expect((await cypher('RETURN 1 AS x')).status).toBe(200);
    await rollback(a.body.id);
    const d = await begin({ access_mode: 'read' });
    expect(d.status).toBe(201);
    await rollback(b.body.id);
    await rollback(d.body.id);
  });

  it('gives back the place of a transaction a failed statement ended before answering it', async () => {
    // maxOpenTransactions is 2: with one held open, the other place is free again as soon as
    // the failure that rolled its transaction back is answered, however busy the machine.
    expect((await cypher('CREATE (:P {id: 1})')).status).toBe(200);
    const held = await begin({ access_mode: 'read' });
    expect(held.status).toBe(201);
    for (let i = 0; i < 20; i++) {
      const tx = await begin();
      expect(tx.status, JSON.stringify(tx.body)).toBe(201);
      const failed = await inTx(tx.body.id, 'CREATE (:P {id: 1})'); // rolls it back
      expect(failed.status).toBe(409);
      expect(failed.body.error.message).toMatch(/\(the transaction was rolled back\)$/);
    }
    await rollback(held.body.id);
  });

  it('a write transaction holds off other writers until it ends', async () => {
    const { body } = await begin();
    await inTx(body.id, 'CREATE (:P {id: 1})');
    // (Within the suite's idle timeout of 400 ms, which would roll the transaction back.)
    const waited = await cypher('CREATE (:P {id: 2})', { timeout_ms: 100 });
    expect(waited.status).toBe(408);
    expect(waited.body.error.code).toBe('QUERY_TIMEOUT');
    // A second read-write transaction begins at once and reads beside it (docs/concurrency.md);
    // its first write waits until the first commits.
    const opened = await begin();
    expect(opened.status).toBe(201);
    expect((await inTx(opened.body.id, 'MATCH (p:P) RETURN count(*)')).status).toBe(200);
    let writeStatus = 0;
    const write = inTx(opened.body.id, 'CREATE (:P {id: 2})').then((r) => {
      writeStatus = r.status;
      return r;
    });
    await sleep(100);
    expect(writeStatus).toBe(0);
    expect((await commit(body.id)).status).toBe(200);
    // It read before the first transaction's commit: first committer wins, it is rolled back.
    const written = await write;
    expect(written.body.error.code).toBe('TX_CONFLICT');
    const third = await begin();
    expect((await inTx(third.body.id, 'CREATE (:P {id: 2})')).status).toBe(200);
    expect((await commit(third.body.id)).status).toBe(200);
    expect(await count()).toBe(2);
  });

  it('validates its configuration', () => {
    expect(() => new GraphDBService(db, { maxOpenTransactions: 4 })).toThrow(RangeError);
    expect(() => new GraphDBService(db, { txIdleTimeoutMs: 0 })).toThrow(RangeError);
  });

  it('answers OPTIONS and 405 on the transaction routes', async () => {
    const options = await fetch(`${url}/tx`, { method: 'OPTIONS' });
    expect(options.status).toBe(204);
    expect(options.headers.get('allow')).toBe('POST, OPTIONS');
    const wrong = await fetch(`${url}/tx`, { method: 'GET' });
    expect(wrong.status).toBe(405);
  });
});

describe('stopping the service', () => {
  it('rolls back open transactions', async () => {
    const local = new Database(':memory:', { maxThreadNum: 2 });
    const own = new GraphDBService(local, { queryPort: 0, autoCompaction: false });
    try {
      let base = await own.start();
      const post = (path: string, body?: unknown) => call(base, 'POST', path, body);
      await post('/cypher', { query: 'CREATE NODE TABLE T(id INT64, PRIMARY KEY(id))' });
      const { body } = await post('/tx');
      expect((await post(`/tx/${body.id}`, { query: 'CREATE (:T {id: 1})' })).status).toBe(200);
      await own.stop();
      expect(own.pool?.inUse).toBe(0);
      base = await own.start();
      const after = await post(`/tx/${body.id}`, { query: 'RETURN 1' });
      expect(after.status).toBe(404);
      const counted = await post('/cypher', { query: 'MATCH (t:T) RETURN count(*)' });
      expect(counted.body.rows).toEqual([[0]]);
    } finally {
      await own.close();
      local.close();
    }
  });
});

describe('graphdb serve options', () => {
  it('--tx-timeout, --max-transactions and the connection limits set the service config', async () => {
    const { serviceConfigOf } = await import('../../src/cli/serve.js');
    const base = {
      port: 0,
      host: '127.0.0.1',
      threads: 0,
      maxThreads: 0,
      autoCompaction: true,
      syncOnCommit: true,
      queryTimeout: 0,
      stopTimeout: 0,
      maxResultBytes: 0,
      maxStatementMemory: 0,
      console: false,
      allowedHost: [],
      corsOrigin: [],
    };
    expect(serviceConfigOf({ ...base, txTimeout: 5000, maxTransactions: 1 })).toMatchObject({
      txIdleTimeoutMs: 5000,
      maxOpenTransactions: 1,
    });
    expect(
      serviceConfigOf({
        ...base,
        boltIdleTimeout: 0,
        boltMaxConnectionsPerToken: 4,
        adminReservedConnections: 2,
      }),
    ).toMatchObject({ boltIdleTimeoutMs: 0, boltMaxConnectionsPerToken: 4, adminReservedConnections: 2 });
    const defaults = serviceConfigOf(base);
    expect('boltIdleTimeoutMs' in defaults).toBe(false);
    expect('txIdleTimeoutMs' in defaults).toBe(false);
    expect('maxOpenTransactions' in defaults).toBe(false);
  });
});
