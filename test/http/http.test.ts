import { readFileSync } from 'node:fs';
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Database, GraphDBService } from '../../src/index.js';
import { nativeDb, slowRequest, waitFor } from '../runtime/helpers.js';

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  version: string;
};

let db: Database;
let service: GraphDBService;
let url: string;

beforeAll(async () => {
  db = new Database(':memory:', { maxThreadNum: 3 });
  service = new GraphDBService(db, { queryPort: 0, autoCompaction: false, maxBodyBytes: 64 * 1024 });
  url = await service.start();
  const setup = [
    'CREATE NODE TABLE Person(id INT64, name STRING, age INT64, PRIMARY KEY(id))',
    'CREATE REL TABLE Knows(FROM Person TO Person, since INT64)',
  ];
  for (const query of setup) expect((await cypher({ query })).status).toBe(200);
  const people = [
    { id: 1, name: 'Alice', age: 30 },
    { id: 2, name: 'Bob', age: 40 },
  ];
  const r = await cypher({
    query: 'UNWIND $rows AS r CREATE (:Person {id: r.id, name: r.name, age: r.age})',
    parameters: { rows: people },
  });
  expect(r.status).toBe(200);
});

afterAll(async () => {
  await service.close();
  db.close();
});

function cypher(body: unknown, init: RequestInit = {}): Promise<Response> {
  return fetch(`${url}/cypher`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    ...init,
  });
}

async function expectError(response: Response, status: number, code: string) {
  expect(response.status).toBe(status);
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  const body = (await response.json()) as { error: { code: string; message: string; line?: number } };
  expect(body.error.code).toBe(code);
  expect(typeof body.error.message).toBe('string');
  expect(body.error.message.length).toBeGreaterThan(0);
  return body.error;
}

describe('POST /cypher', () => {
  it('answers with columns, types, rows and summary as application/json', async () => {
    const r = await cypher({
      query: 'MATCH (p:Person {id: $id}) RETURN p.name AS name, p.age AS age',
      access_mode: 'read',
      parameters: { id: 1 },
    });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('application/json');
    const body = await r.json();
    expect(body.columns).toEqual(['name', 'age']);
    expect(body.types).toEqual(['STRING', 'INT64']);
    expect(body.rows).toEqual([['Alice', 30]]);
    expect(body.summary.rowCount).toBe(1);
    expect(typeof body.summary.elapsedMs).toBe('number');
    expect(body.summary.counters.nodesCreated).toBe(0);
  });

  it('returns nodes and relationships, writes with counters, and exact big integers', async () => {
    const created = await cypher({
      query: 'MATCH (a:Person {id: 1}), (b:Person {id: 2}) CREATE (a)-[:Knows {since: 2020}]->(b)',
      access_mode: 'insert',
    });
    expect((await created.json()).summary.counters.relationshipsCreated).toBe(1);
    const r = await cypher({ query: 'MATCH (a:Person)-[k:Knows]->(b:Person) RETURN a, k, b.name' });
    const [[a, k, name]] = (await r.json()).rows;
    expect(a).toMatchObject({ _label: 'Person', id: 1, name: 'Alice' });
    expect(k).toMatchObject({ _label: 'Knows', _src: a._id, since: 2020 });
    expect(name).toBe('Bob');
    const big = await (await cypher({ query: 'RETURN 9007199254740993 AS x' })).text();
    expect(big).toContain('[[9007199254740993]]');
  });

  it('accepts the access-mode aliases, nested parameters and ignores unknown fields', async () => {
    for (const mode of ['read', 'r', 'insert', 'i', 'update', 'u', 'schema', 's']) {
      const r = await cypher({ query: 'RETURN 1 AS x', access_mode: mode, extra: true });
      expect(r.status).toBe(200);
    }
    const r = await cypher({
      query: 'RETURN $m.k AS k, $xs[1] AS x',
      parameters: { m: { k: 'v' }, xs: [7, 8] },
    });
    expect((await r.json()).rows).toEqual([['v', 7]]);
    const updated = await cypher({ query: 'MATCH (p:Person {id: 2}) SET p.age = 41', access_mode: 'u' });
    expect((await updated.json()).summary.counters.propertiesSet).toBe(1);
  });

  it('INVALID_REQUEST (400) for bad JSON, wrong types, unknown access_mode, missing query or parameter', async () => {
    await expectError(await cypher('{"query": '), 400, 'INVALID_REQUEST');
    await expectError(await cypher(''), 400, 'INVALID_REQUEST');
    await expectError(await cypher('[1, 2]'), 400, 'INVALID_REQUEST');
    await expectError(await cypher({}), 400, 'INVALID_REQUEST');
    await expectError(await cypher({ query: 42 }), 400, 'INVALID_REQUEST');
    await expectError(await cypher({ query: 'RETURN 1', access_mode: 'write' }), 400, 'INVALID_REQUEST');
    await expectError(await cypher({ query: 'RETURN 1', parameters: [1] }), 400, 'INVALID_REQUEST');
    await expectError(await cypher({ query: 'RETURN 1', parameters: 'x' }), 400, 'INVALID_REQUEST');
    const missing = await expectError(await cypher({ query: 'RETURN $nope' }), 400, 'INVALID_REQUEST');
    expect(missing.message).toMatch(/nope/);
  });

  it('QUERY_SYNTAX (400) with line and column', async () => {
    const error = await expectError(await cypher({ query: 'MATCH (n)\nRETRN n' }), 400, 'QUERY_SYNTAX');
    expect(error.line).toBe(2);
    expect(typeof (error as { column?: number }).column).toBe('number');
  });

  it('QUERY_BINDING (400) naming the unknown label', async () => {
    const error = await expectError(
      await cypher({ query: 'MATCH (n:Nobody) RETURN n' }),
      400,
      'QUERY_BINDING',
    );
    expect(error.message).toMatch(/Nobody/);
  });

  it('ACCESS_MODE_VIOLATION (400) for a write in read mode, and nothing is written', async () => {
    await expectError(
      await cypher({ query: 'CREATE (:Person {id: 99, name: "X"})', access_mode: 'read' }),
      400,
      'ACCESS_MODE_VIOLATION',
    );
    await expectError(
      await cypher({ query: 'CREATE NODE TABLE T(id INT64, PRIMARY KEY(id))', access_mode: 'insert' }),
      400,
      'ACCESS_MODE_VIOLATION',
    );
    const r = await cypher({ query: 'MATCH (p:Person {id: 99}) RETURN count(p)' });
    expect((await r.json()).rows).toEqual([[0]]);
  });

  it('CONSTRAINT_VIOLATION (409) for a duplicate primary key', async () => {
    await expectError(
      await cypher({ query: 'CREATE (:Person {id: 1, name: "Dup"})' }),
      409,
      'CONSTRAINT_VIOLATION',
    );
  });

  it('QUERY_RUNTIME (400) and NOT_SUPPORTED (501)', async () => {
    await expectError(await cypher({ query: 'RETURN 1 / 0' }), 400, 'QUERY_RUNTIME');
    await expectError(await cypher({ query: 'MATCH (p:Person) SET p:Admin' }), 501, 'NOT_SUPPORTED');
  });

  it('413 for bodies over maxBodyBytes, by Content-Length and while streaming', async () => {
    const big = JSON.stringify({ query: 'RETURN 1', pad: 'x'.repeat(70 * 1024) });
    await expectError(await cypher(big), 413, 'PAYLOAD_TOO_LARGE');
    // No Content-Length: a chunked body is cut off once it passes the limit.
    const chunk = new TextEncoder().encode('x'.repeat(16 * 1024));
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent++ < 8) controller.enqueue(chunk);
        else controller.close();
      },
    });
    const r = await fetch(`${url}/cypher`, {
      method: 'POST',
      body: stream,
      headers: { 'content-type': 'application/json' },
      duplex: 'half',
    } as RequestInit);
    await expectError(r, 413, 'PAYLOAD_TOO_LARGE');
    // The server is fine afterwards.
    expect((await cypher({ query: 'RETURN 1' })).status).toBe(200);
  });

  it('never answers 500 for a client fault: the server survives odd input', async () => {
    const odd = [
      'null',
      '"str"',
      '{"query": ""}',
      '{"query": "RETURN 1", "parameters": null}',
      '\u0000',
      '{"query":"RETURN \'\\ud800\'"}',
    ];
    for (const body of odd) {
      const r = await cypher(body);
      expect(r.status, body).toBeLessThan(500);
    }
    expect((await cypher({ query: 'RETURN 2 AS x' })).status).toBe(200);
  });

  it('maps a thrown non-GraphDBError to INTERNAL 500 without crashing', async () => {
    const pool = service.pool!;
    const original = pool.tryAcquireExecutionSlot;
    pool.tryAcquireExecutionSlot = () => {
      throw new Error('boom');
    };
    const stderr = process.stderr.write;
    process.stderr.write = (() => true) as typeof process.stderr.write;
    try {
      // random() keeps the statement off the inline path, which needs no lease.
      await expectError(await cypher({ query: 'RETURN random() AS r' }), 500, 'INTERNAL');
    } finally {
      pool.tryAcquireExecutionSlot = original;
      process.stderr.write = stderr;
    }
    expect((await cypher({ query: 'RETURN 1' })).status).toBe(200);
  });
});

describe('other endpoints', () => {
  it('GET /status and /service_status report state, version, slots and executed queries', async () => {
    const before = service.pool!.getExecutedQueryNum();
    await cypher({ query: 'RETURN 1' });
    for (const path of ['/status', '/service_status']) {
      const r = await fetch(`${url}${path}`);
      expect(r.status).toBe(200);
      expect(r.headers.get('content-type')).toMatch(/^application\/json/);
      const body = await r.json();
      expect(body).toMatchObject({
        status: 'running',
        message: 'GraphDB service is running ...',
        version: pkg.version,
        slots: { total: 3, inUse: 0, waiting: 0 },
      });
      expect(body.uptimeMs).toBeGreaterThanOrEqual(0);
      expect(body.executedQueries).toBeGreaterThanOrEqual(before + 1);
    }
  });

  it('GET /schema: node and rel tables with their properties', async () => {
    const r = await fetch(`${url}/schema`);
    expect(r.status).toBe(200);
    const body = await r.json();
    const person = body.nodeTables.find((t: { name: string }) => t.name === 'Person');
    expect(person).toMatchObject({ name: 'Person', primaryKey: 'id' });
    expect(person.properties).toContainEqual({ name: 'name', type: 'STRING' });
    expect(body.relTables.find((t: { name: string }) => t.name === 'Knows')).toMatchObject({
      from: 'Person',
      to: 'Person',
      multiplicity: 'MANY_MANY',
    });
  });

  it('404 JSON for unknown paths', async () => {
    await expectError(await fetch(`${url}/nope`), 404, 'NOT_FOUND');
    await expectError(await fetch(`${url}/cypher/extra`, { method: 'POST' }), 404, 'NOT_FOUND');
  });

  it('405 with Allow for wrong methods; OPTIONS lists them; HEAD works on GET routes', async () => {
    const get = await fetch(`${url}/cypher`);
    expect(get.headers.get('allow')).toBe('POST, OPTIONS');
    await expectError(get, 405, 'METHOD_NOT_ALLOWED');
    for (const path of ['/status', '/service_status', '/schema']) {
      const r = await fetch(`${url}${path}`, { method: 'POST', body: '{}' });
      expect(r.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
      await expectError(r, 405, 'METHOD_NOT_ALLOWED');
    }
    const del = await fetch(`${url}/cypher`, { method: 'DELETE' });
    await expectError(del, 405, 'METHOD_NOT_ALLOWED');
    const options = await fetch(`${url}/cypher`, { method: 'OPTIONS' });
    expect(options.status).toBe(204);
    expect(options.headers.get('allow')).toBe('POST, OPTIONS');
    const head = await fetch(`${url}/status`, { method: 'HEAD' });
    expect(head.status).toBe(200);
  });
});

describe('concurrency over HTTP', () => {
  it('never runs more statements at once than there are slots, and uses all of them', async () => {
    const native = nativeDb(db);
    native.resetPeakActiveStatements();
    const agent = new http.Agent({ keepAlive: true, maxSockets: 12 });
    const post = () =>
      new Promise<number>((resolve, reject) => {
        const body = slowRequest();
        const req = http.request(
          `${url}/cypher`,
          {
            method: 'POST',
            agent,
            headers: { 'content-type': 'application/json', 'content-length': body.length },
          },
          (res) => {
            res.resume();
            res.on('end', () => resolve(res.statusCode ?? 0));
          },
        );
        req.on('error', reject);
        req.end(body);
      });
    const statuses = await Promise.all(Array.from({ length: 12 }, post));
    agent.destroy();
    expect(statuses.every((s) => s === 200)).toBe(true);
    expect(native.peakActiveStatements).toBeLessThanOrEqual(3);
    expect(native.peakActiveStatements).toBe(3);
    await waitFor(() => service.pool!.inUse === 0);
  });
});
