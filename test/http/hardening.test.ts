// Regression tests for the hardening issue (25): what a hostile web page or a careless client
// could do to `graphdb serve` over HTTP. Requests go through node:http so that Host, Origin and
// Content-Type are exactly what the test says.

import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Database, GraphDBService } from '../../src/index.js';
import { type HttpAnswer, sendRaw } from '../runtime/helpers.js';

let db: Database;
let service: GraphDBService;
let url: string;
let port: number;
let tmp: string;

const ALLOWED_ORIGIN = 'https://app.example.com';

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'graphdb-hardening-'));
  db = new Database(':memory:', { maxThreadNum: 2 });
  service = new GraphDBService(db, {
    queryPort: 0,
    autoCompaction: false,
    corsOrigins: [ALLOWED_ORIGIN],
    allowedHosts: ['graph.internal'],
    // The file statements below run inside it (docs/security.md, "Files").
    importDir: tmp,
  });
  url = await service.start();
  port = Number(new URL(url).port);
  for (const query of [
    'CREATE NODE TABLE City(id INT64, PRIMARY KEY(id))',
    'CREATE SEQUENCE s0',
    'CREATE NODE TABLE Big(id INT128, PRIMARY KEY(id))',
  ]) {
    expect((await post({ query })).status).toBe(200);
  }
});

afterAll(async () => {
  await service.close();
  db.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

type Answer = HttpAnswer;

function send(method: string, target: string, headers: Record<string, string>, body?: string | Buffer) {
  return sendRaw(`http://127.0.0.1:${port}`, method, target, headers, body);
}

function post(request: unknown, headers: Record<string, string> = {}) {
  const body = typeof request === 'string' ? request : JSON.stringify(request);
  return send('POST', '/cypher', { 'content-type': 'application/json', ...headers }, body);
}

function expectError(answer: Answer, status: number, code: string): string {
  expect(answer.status, answer.body).toBe(status);
  const error = answer.json().error!;
  expect(error.code).toBe(code);
  return error.message;
}

async function cityCount(id: number): Promise<number> {
  const r = await post({ query: 'MATCH (c:City {id: $id}) RETURN count(c)', parameters: { id } });
  return r.json().rows![0]![0] as number;
}

describe('CSRF and DNS rebinding (item 1)', () => {
  it('refuses the forged request of the report: text/plain, foreign Origin and Host', async () => {
    const forged = { query: 'CREATE (:City {id: 666})' };
    const body = JSON.stringify(forged);
    const attack = await send(
      'POST',
      '/cypher',
      { 'content-type': 'text/plain', origin: 'http://evil.example.com', host: 'evil.example.com' },
      body,
    );
    expect(attack.status).toBe(403);
    // Each check holds on its own.
    expectError(await post(forged, { 'content-type': 'text/plain' }), 415, 'UNSUPPORTED_MEDIA_TYPE');
    expectError(await post(forged, { host: `evil.example.com:${port}` }), 403, 'HOST_NOT_ALLOWED');
    expectError(await post(forged, { origin: 'http://evil.example.com' }), 403, 'ORIGIN_NOT_ALLOWED');
    expect(await cityCount(666)).toBe(0);
  });

  it('takes only JSON bodies: 415 for other or missing content types, any case and charset accepted', async () => {
    const query = { query: 'RETURN 1 AS x' };
    for (const type of [
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/jsonx',
      'application/json; charset=utf-16',
    ]) {
      const message = expectError(await post(query, { 'content-type': type }), 415, 'UNSUPPORTED_MEDIA_TYPE');
      expect(message).toContain('application/json');
    }
    const none = await send('POST', '/cypher', {}, JSON.stringify(query));
    expectError(none, 415, 'UNSUPPORTED_MEDIA_TYPE');
    for (const type of [
      'application/json',
      'Application/JSON',
      'application/json; charset=UTF-8',
      'application/json;charset="utf-8"',
    ]) {
      expect((await post(query, { 'content-type': type })).status, type).toBe(200);
    }
  });

  it('answers IP addresses, localhost and the configured names; refuses other hosts on every route', async () => {
    for (const host of [
      '127.0.0.1',
      `127.0.0.1:${port}`,
      `localhost:${port}`,
      'LOCALHOST',
      'api.localhost',
      `[::1]:${port}`,
      'graph.internal',
      `graph.internal.:${port}`,
      '10.1.2.3',
    ]) {
      expect((await post({ query: 'RETURN 1' }, { host })).status, host).toBe(200);
    }
    for (const target of ['/status', '/schema', '/nope']) {
      const answer = await send('GET', target, { host: 'rebind.attacker.net' });
      expectError(answer, 403, 'HOST_NOT_ALLOWED');
    }
    const message = expectError(
      await post({ query: 'RETURN 1' }, { host: 'graph.internal.evil.com' }),
      403,
      'HOST_NOT_ALLOWED',
    );
    expect(message).toContain('allowedHosts');
  });

  it('answers CORS preflights and requests of allowed origins only', async () => {
    const preflight = await send('OPTIONS', '/cypher', {
      origin: ALLOWED_ORIGIN,
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'content-type',
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe(ALLOWED_ORIGIN);
    expect(preflight.headers['access-control-allow-methods']).toBe('POST, OPTIONS');
    expect(preflight.headers['access-control-allow-headers']).toMatch(/content-type/i);
    expect(preflight.headers.vary).toMatch(/origin/i);
    const allowed = await post({ query: 'RETURN 1 AS x' }, { origin: ALLOWED_ORIGIN });
    expect(allowed.status).toBe(200);
    expect(allowed.headers['access-control-allow-origin']).toBe(ALLOWED_ORIGIN);
    const refusedPreflight = await send('OPTIONS', '/cypher', {
      origin: 'https://other.example.com',
      'access-control-request-method': 'POST',
    });
    expectError(refusedPreflight, 403, 'ORIGIN_NOT_ALLOWED');
    expect(refusedPreflight.headers['access-control-allow-origin']).toBeUndefined();
    // A page of the service's own origin is no cross-origin request; no Origin is a client.
    expect((await post({ query: 'RETURN 1' }, { origin: `http://127.0.0.1:${port}` })).status).toBe(200);
    const plain = await post({ query: 'RETURN 1' });
    expect(plain.status).toBe(200);
    expect(plain.headers['access-control-allow-origin']).toBeUndefined();
    expectError(await send('GET', '/status', { origin: 'null' }), 403, 'ORIGIN_NOT_ALLOWED');
  });

  it('sends the security headers with every answer', async () => {
    const answers = [
      await post({ query: 'RETURN 1' }),
      await post({ query: 'RETURN (' }),
      await send('GET', '/status', {}),
      await send('GET', '/schema', {}),
      await send('GET', '/nope', {}),
      await send('OPTIONS', '/cypher', {}),
      await send('DELETE', '/cypher', {}),
      await post({ query: 'RETURN 1' }, { 'content-type': 'text/plain' }),
      await post({ query: 'RETURN 1' }, { host: 'evil.example.com' }),
    ];
    for (const answer of answers) {
      expect(answer.headers['x-content-type-options'], answer.body).toBe('nosniff');
      expect(answer.headers['x-frame-options']).toBe('DENY');
      expect(answer.headers['content-security-policy']).toContain("frame-ancestors 'none'");
      expect(answer.headers['referrer-policy']).toBe('no-referrer');
      expect(answer.headers['cache-control']).toBe('no-store');
    }
  });

  it('validates allowedHosts and corsOrigins, and "*" allows any', async () => {
    const other = new Database(':memory:', { maxThreadNum: 1 });
    try {
      expect(() => new GraphDBService(other, { allowedHosts: ['host:80'] })).toThrow(/allowedHosts/);
      expect(() => new GraphDBService(other, { allowedHosts: 'x' as never })).toThrow(TypeError);
      expect(() => new GraphDBService(other, { corsOrigins: ['https://a.com/path'] })).toThrow(/corsOrigins/);
      expect(() => new GraphDBService(other, { corsOrigins: ['app.example.com'] })).toThrow(/corsOrigins/);
      const open = new GraphDBService(other, {
        queryPort: 0,
        autoCompaction: false,
        allowedHosts: ['*'],
        corsOrigins: ['*'],
      });
      try {
        const openPort = Number(new URL(await open.start()).port);
        const answer = await new Promise<http.IncomingMessage>((resolve, reject) => {
          const req = http.request(
            {
              host: '127.0.0.1',
              port: openPort,
              method: 'GET',
              path: '/status',
              headers: { host: 'any.name.example', origin: 'https://any.example' },
              agent: false,
            },
            resolve,
          );
          req.on('error', reject);
          req.end();
        });
        answer.resume();
        expect(answer.statusCode).toBe(200);
        expect(answer.headers['access-control-allow-origin']).toBe('*');
      } finally {
        await open.close();
      }
    } finally {
      other.close();
    }
  });
});

describe('statements over HTTP', () => {
  it('refuses paths with NUL bytes (item 2) and nothing is written or read', async () => {
    const target = path.join(tmp, 'a.txt');
    const copy = expectError(
      await post({ query: `COPY (RETURN "x") TO "${target}\\u0000.csv"` }),
      400,
      'INVALID_REQUEST',
    );
    expect(copy).toContain('NUL');
    expect(fs.existsSync(target)).toBe(false);
    fs.writeFileSync(path.join(tmp, 'secret.txt'), 'secret\n');
    const load = expectError(
      await post({ query: `LOAD FROM "${path.join(tmp, 'secret.txt')}\\u0000.csv" RETURN *` }),
      400,
      'INVALID_REQUEST',
    );
    expect(load).toContain('NUL');
    expect(load).not.toContain('secret\n');
  });

  it('refuses nextval() and settings in read mode (item 3); the sequence does not move', async () => {
    const first = await post({ query: "RETURN nextval('s0') AS v", access_mode: 'insert' });
    expect(first.json().rows).toEqual([[1]]);
    for (const query of [
      "RETURN nextval('s0')",
      "UNWIND [1, 2] AS x RETURN nextval('s0') + x",
      'CALL threads = 1',
    ]) {
      expectError(await post({ query, access_mode: 'read' }), 400, 'ACCESS_MODE_VIOLATION');
    }
    expectError(
      await post({ query: 'CALL threads = 1', access_mode: 'update' }),
      400,
      'ACCESS_MODE_VIOLATION',
    );
    expect((await post({ query: 'CALL threads = 1', access_mode: 'schema' })).status).toBe(200);
    expect((await post({ query: "RETURN currval('s0')", access_mode: 'read' })).json().rows).toEqual([[1]]);
  });

  it('refuses several statements in one request (item 4): nothing is committed', async () => {
    expect((await post({ query: 'CREATE (:City {id: 1})' })).status).toBe(200);
    const message = expectError(
      await post({ query: 'CREATE (:City {id: 850}); CREATE (:City {id: 1})' }),
      400,
      'INVALID_REQUEST',
    );
    expect(message).toMatch(/exactly one statement/);
    expect(await cityCount(850)).toBe(0);
    expectError(await post({ query: 'RETURN 1; RETURN 2' }), 400, 'INVALID_REQUEST');
    expectError(
      await post({ query: 'CREATE (:City {id: 851}); CREATE (:City {id: 852})' }),
      400,
      'INVALID_REQUEST',
    );
    expect(await cityCount(851)).toBe(0);
    // One statement with a trailing semicolon is one statement.
    expect((await post({ query: 'RETURN 2 AS x;' })).json().rows).toEqual([[2]]);
  });

  it('answers client mistakes about files with 400 naming only the given path (item 6)', async () => {
    const folder = path.join(tmp, 'folder.csv');
    fs.mkdirSync(folder, { recursive: true });
    const cases: [string, RegExp][] = [
      [`LOAD FROM "${tmp}/nothing*.csv" RETURN *`, /No file found that matches the pattern/],
      [`LOAD FROM "${folder}" RETURN *`, /is a folder, not a file/],
      [`LOAD FROM "${tmp}" RETURN *`, /is a folder, not a file/],
      [`COPY (RETURN 1) TO "${tmp}/missing/out.csv"`, /the folder .*missing' does not exist/],
      [`COPY City FROM "${folder}"`, /is a folder, not a file/],
      [`COPY City FROM "${tmp}/absent.csv"`, /No file found that matches the pattern/],
    ];
    for (const [query, pattern] of cases) {
      const message = expectError(await post({ query }), 400, 'INVALID_REQUEST');
      expect(message, query).toMatch(pattern);
      // Only the path the statement gave; no other server path.
      const paths = message.match(/\/[\w./*-]+/g) ?? [];
      for (const named of paths) expect(query, message).toContain(named.replace(/[.']+$/, ''));
    }
  });

  it('writes timestamps and dates outside four-digit years as ISO 8601 expanded years (item 8)', async () => {
    const ok = await post({
      query:
        'RETURN timestamp("10000-01-01 00:00:00") AS c, timestamp("-0100-01-01 12:00:00") AS d, ' +
        'date("-0100-01-01") AS e, date("2024-02-29") AS f, timestamp("+275760-09-13 00:00:00") AS g',
    });
    expect(ok.json().rows).toEqual([
      [
        '+010000-01-01T00:00:00Z',
        '-000100-01-01T12:00:00Z',
        '-000100-01-01',
        '2024-02-29',
        '+275760-09-13T00:00:00Z',
      ],
    ]);
    // JavaScript reads them back as the same instants.
    const [c, d, , , g] = ok.json().rows![0] as string[];
    expect(new Date(c!).getUTCFullYear()).toBe(10000);
    expect(new Date(d!).getUTCFullYear()).toBe(-100);
    expect(new Date(g!).getTime()).toBe(8.64e15);
  });

  it('takes the smallest INT128 and refuses lone surrogates and bodies that are not UTF-8 (item 9)', async () => {
    const min = '-170141183460469231731687303715884105728';
    const r = await post(`{"query": "CREATE (:Big {id: $v}) RETURN $v AS v", "parameters": {"v": ${min}}}`);
    expect(r.status, r.body).toBe(200);
    expect(r.body).toContain(`[[${min}]]`);
    const back = await post({ query: 'MATCH (b:Big) RETURN b.id' });
    expect(back.body).toContain(min);
    expectError(
      await post(`{"query": "RETURN 1", "parameters": {"v": -170141183460469231731687303715884105729}}`),
      400,
      'INVALID_REQUEST',
    );
    for (const text of ['\\udc00', 'a\\ud800b', '\\udfff\\ud800']) {
      const message = expectError(
        await post(`{"query": "RETURN $s AS s", "parameters": {"s": "${text}"}}`),
        400,
        'INVALID_REQUEST',
      );
      expect(message).toContain('unpaired surrogate');
    }
    const latin1 = Buffer.from('{"query": "RETURN \'caf\xe9\' AS s"}', 'latin1');
    const message = expectError(
      await send('POST', '/cypher', { 'content-type': 'application/json' }, latin1),
      400,
      'INVALID_REQUEST',
    );
    expect(message).toContain('UTF-8');
  });
});

describe('idle connections at the limit (issue 34, item 5)', () => {
  // A throwaway self-signed certificate for 127.0.0.1, made for the tests only.
  const fixtures = path.join(__dirname, 'fixtures');
  const cert = fs.readFileSync(path.join(fixtures, 'tls-test.crt'));
  const key = fs.readFileSync(path.join(fixtures, 'tls-test.key'));

  it.each([
    ['HTTP', false],
    ['HTTPS (sockets that never start the handshake)', true],
  ])('%s: 300 idle sockets on a limit of 50 give way to requests', async (_name, tls) => {
    const guarded = new GraphDBService(new Database(':memory:', { maxThreadNum: 2 }), {
      queryPort: 0,
      autoCompaction: false,
      console: false,
      maxConnections: 50,
      ...(tls ? { tls: { cert, key } } : {}),
    });
    const base = await guarded.start();
    const idle: net.Socket[] = [];
    try {
      // Sockets that connect and send nothing, six times the limit.
      for (let i = 0; i < 300; i++) {
        const socket = net.connect({ host: '127.0.0.1', port: Number(new URL(base).port) });
        socket.on('error', () => undefined);
        await new Promise<void>((resolve) => {
          socket.once('connect', () => resolve());
          socket.once('close', () => resolve());
        });
        idle.push(socket);
      }
      const answers = await Promise.all(
        Array.from({ length: 46 }, (_, i) =>
          sendRaw(
            base,
            'POST',
            '/cypher',
            { 'content-type': 'application/json' },
            JSON.stringify({ query: `RETURN ${i}` }),
            tls ? cert : undefined,
          ),
        ),
      );
      expect(answers.map((answer) => answer.status)).toEqual(answers.map(() => 200));
      expect(answers.map((answer) => answer.json().rows![0]![0])).toEqual(answers.map((_, i) => i));
    } finally {
      for (const socket of idle) socket.destroy();
      await guarded.close();
    }
  });

  it('lets a keep-alive connection waiting for its next request give way too', async () => {
    const guarded = new GraphDBService(new Database(':memory:', { maxThreadNum: 2 }), {
      queryPort: 0,
      autoCompaction: false,
      console: false,
      maxConnections: 1,
    });
    const base = await guarded.start();
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const ask = (agentToUse: http.Agent | false) =>
        new Promise<number>((resolve, reject) => {
          const request = http.request(`${base}/status`, { agent: agentToUse }, (response) => {
            response.resume();
            response.on('end', () => resolve(response.statusCode ?? 0));
          });
          request.on('error', reject);
          request.end();
        });
      expect(await ask(agent)).toBe(200);
      // The kept-alive connection holds the only place; a new client takes it.
      expect(await ask(false)).toBe(200);
    } finally {
      agent.destroy();
      await guarded.close();
    }
  });
});
