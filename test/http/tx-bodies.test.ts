// Bodies of POST /tx/{id} in a transaction opened with an access mode (found by
// test/fuzz/http.fuzz.test.ts): the service adds the transaction's access_mode to a body that
// names none. It once did so by serializing the parsed body again, which recursed once per
// level: a body nested 30,000 deep overflowed the stack and answered 500 INTERNAL.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Database, GraphDBService } from '../../src/index.js';

let db: Database;
let service: GraphDBService;
let url: string;

beforeAll(async () => {
  db = new Database(':memory:', { maxThreadNum: 2 });
  service = new GraphDBService(db, { queryPort: 0, autoCompaction: false });
  url = await service.start();
  await post('/cypher', { query: 'CREATE NODE TABLE T(id INT64, PRIMARY KEY(id))' });
});

afterAll(async () => {
  await service.close();
  db.close();
});

interface Answer {
  status: number;
  json: { id?: string; rows?: unknown[][]; error?: { code: string; message: string } };
}

async function post(path: string, body: unknown): Promise<Answer> {
  const response = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: response.status, json: (await response.json()) as Answer['json'] };
}

async function open(accessMode: string) {
  const opened = await post('/tx', { access_mode: accessMode });
  expect(opened.status).toBe(201);
  return opened.json.id!;
}

describe('POST /tx/{id} in a transaction with an access mode', () => {
  it.each([
    ['a map', (n: number) => `{"x":${'{"a":'.repeat(n)}1${'}'.repeat(n)}}`],
    ['a list', (n: number) => `{"x":${'['.repeat(n)}1${']'.repeat(n)}}`],
  ])('answers a body with parameters nested 30,000 deep in %s per the contract', async (_, nest) => {
    const id = await open('read');
    const body = `{"query":"RETURN $x","parameters":${nest(30_000)}}`;
    const answer = await post(`/tx/${id}`, body);
    expect(answer.status).toBeLessThan(500);
    expect(answer.json.error?.code).toMatch(/^(INVALID_REQUEST|RESOURCE_LIMIT)$/);
    expect((await post(`/tx/${id}`, { query: 'RETURN 1 AS one' })).json.rows).toEqual([[1]]);
    expect((await post(`/tx/${id}/commit`, '')).status).toBe(200);
  });

  it('applies the access mode to bodies of any layout', async () => {
    const id = await open('read');
    for (const body of [
      '{"query":"RETURN 2 AS two"}',
      ' \n{ "query" : "RETURN 2 AS two" } ',
      '{"query":"RETURN 2 AS two","parameters":{}}',
    ]) {
      const answer = await post(`/tx/${id}`, body);
      expect(answer.status, JSON.stringify(answer.json)).toBe(200);
      expect(answer.json.rows).toEqual([[2]]);
    }
    const write = await post(`/tx/${id}`, '{"query":"CREATE (:T {id: 1})"}');
    expect(write.status).toBe(400);
    expect(write.json.error?.code).toBe('ACCESS_MODE_VIOLATION');
    const empty = await post(`/tx/${id}`, '{}');
    expect(empty.json.error?.code).toBe('INVALID_REQUEST');
    expect((await post(`/tx/${id}/commit`, '')).status).toBe(200);
  });
});
