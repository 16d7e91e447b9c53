// Requests the Node adapter cannot turn into a web Request (found by test/fuzz/http.fuzz.test.ts):
// a Host header that names no valid host or port, a backslash in the path. They once got an
// empty 400 with no body; the contract wants its JSON error (400 INVALID_REQUEST).

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Database, GraphDBService } from '../../src/index.js';
import { rawExchange } from '../fuzz/raw-http.js';

let db: Database;
let service: GraphDBService;
let port: number;

beforeAll(async () => {
  db = new Database(':memory:', { maxThreadNum: 1 });
  service = new GraphDBService(db, { queryPort: 0, autoCompaction: false });
  port = Number(new URL(await service.start()).port);
});

afterAll(async () => {
  await service.close();
  db.close();
});

async function exchange(method: string, target: string, host: string) {
  const body = method === 'POST' ? '{"query":"RETURN 1"}' : '';
  const request = Buffer.from(
    `${method} ${target} HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
    'latin1',
  );
  const { responses } = await rawExchange(port, request, {
    halfClose: false,
    stopAfterFirst: true,
    timeoutMs: 5000,
  });
  expect(responses).toHaveLength(1);
  return responses[0]!;
}

describe('requests the adapter cannot read', () => {
  it.each([
    ['GET', '/status', '[::1'],
    ['GET', '/status', '127.0.0.1:99999'],
    ['POST', '/cypher', '['],
    ['POST', '/cypher', 'a:b:c'],
    ['GET', '/sta\\tus', '127.0.0.1'],
    ['POST', '/cypher\\', '127.0.0.1'],
  ])('%s %s with Host %s answers 400 INVALID_REQUEST as JSON', async (method, target, host) => {
    const response = await exchange(method, target, host);
    expect(response.status).toBe(400);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.headers['x-content-type-options']).toBe('nosniff');
    const error = JSON.parse(response.body.toString('utf8')).error;
    expect(error.code).toBe('INVALID_REQUEST');
    expect(error.message).toMatch(/^the request could not be read: /);
  });

  it('still answers a good request on the same service', async () => {
    const response = await exchange('POST', '/cypher', `127.0.0.1:${port}`);
    expect(response.status).toBe(200);
    expect(JSON.parse(response.body.toString('utf8')).rows).toEqual([[1]]);
  });
});
