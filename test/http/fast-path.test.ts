// The fast path of POST /cypher on the service's own server (src/http/fast-cypher.ts) against
// the Hono app it stands in front of: the same request sent to the service and to a server that
// runs the same app without the fast path must get the same bytes back (but for the Date header
// and the elapsed time), whether the fast path answers or hands the request to the app. Also:
// bodies in chunks and from slow clients, limits, a client that goes away, and the answers of
// a stopping service.

import http from 'node:http';
import net from 'node:net';
import { getRequestListener } from '@hono/node-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/http/app.js';
import { httpRuntimeOf } from '../../src/http/context.js';
import { adapterErrorResponse, errorReply, jsonHeaders, toResponse } from '../../src/http/errors.js';
import { withCypherFastPath, writeReply } from '../../src/http/fast-cypher.js';
import { Database, GraphDBService } from '../../src/index.js';

const READER = 'reader-token-0123456789';
const ADMIN = 'admin-token-0123456789abc';
const MAX_BODY = 4096;

let db: Database;
let service: GraphDBService;
let appServer: http.Server;
let appPort: number;
// The service's listener built as service.start() builds it, with a count of the requests the
// fast path hands to the app.
let fastServer: http.Server;
let fastPort: number;
let handedToApp = 0;

beforeAll(async () => {
  db = new Database(':memory:', { maxThreadNum: 2 });
  service = new GraphDBService(db, {
    queryPort: 0,
    autoCompaction: false,
    maxBodyBytes: MAX_BODY,
    allowedHosts: ['graph.example'],
    corsOrigins: ['https://app.example'],
    auth: {
      tokens: [
        { token: READER, role: 'reader' },
        { token: ADMIN, role: 'admin' },
      ],
    },
  });
  await service.start();
  // The same app, served as the service served it before it had a fast path.
  const appListener = getRequestListener(createApp(service).fetch, {
    hostname: '127.0.0.1',
    errorHandler: adapterErrorResponse,
  });
  appServer = http.createServer(appListener);
  await new Promise<void>((resolve) => appServer.listen(0, '127.0.0.1', resolve));
  appPort = (appServer.address() as net.AddressInfo).port;
  fastServer = http.createServer(
    withCypherFastPath(httpRuntimeOf(service), (incoming, outgoing) => {
      handedToApp++;
      void appListener(incoming, outgoing);
    }),
  );
  await new Promise<void>((resolve) => fastServer.listen(0, '127.0.0.1', resolve));
  fastPort = (fastServer.address() as net.AddressInfo).port;
  const setup = [
    'CREATE NODE TABLE Person(id INT64, name STRING, age INT64, PRIMARY KEY(id))',
    'UNWIND range(1, 50) AS i CREATE (:Person {id: i, name: "p" + CAST(i AS STRING), age: i % 7})',
  ];
  for (const query of setup) {
    const answer = await exchange(fastPort, request({ query }, { token: ADMIN }));
    expect(answer.status, answer.text).toBe(200);
  }
});

afterAll(async () => {
  for (const server of [appServer, fastServer]) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
  await service.close();
  db.close();
});

interface Exchanged {
  status: number;
  /** The head's lines after the status line, as sent (Date left out). */
  headerLines: string[];
  headers: Record<string, string>;
  body: Buffer;
  text: string;
  /** The whole head and body with the Date header and the elapsed time blanked out. */
  normalized: string;
}

interface RequestOptions {
  token?: string;
  host?: string;
  headers?: Record<string, string>;
  /** Sent with Transfer-Encoding: chunked, in these pieces. */
  chunks?: string[];
  raw?: Buffer;
}

function request(body: unknown, options: RequestOptions = {}): { head: string; body: Buffer[] } {
  const text = options.raw ?? Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
  const headers: Record<string, string> = {
    host: options.host ?? '127.0.0.1',
    'content-type': 'application/json',
    ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
    ...options.headers,
  };
  let pieces: Buffer[];
  if (options.chunks) {
    headers['transfer-encoding'] = 'chunked';
    pieces = [
      ...options.chunks.map((chunk) =>
        Buffer.from(`${Buffer.byteLength(chunk).toString(16)}\r\n${chunk}\r\n`),
      ),
      Buffer.from('0\r\n\r\n'),
    ];
  } else {
    headers['content-length'] ??= String(text.length);
    pieces = [text];
  }
  const head = `POST /cypher HTTP/1.1\r\n${Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('')}\r\n`;
  return { head, body: pieces };
}

/**
 * Sends the request (its body pieces `pauseMs` apart) on a new connection and reads one
 * response (the connection is closed after it).
 */
function exchange(port: number, req: { head: string; body: Buffer[] }, pauseMs = 0): Promise<Exchanged> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const received: Buffer[] = [];
    let done = false;
    const finish = () => {
      if (done) return;
      const all = Buffer.concat(received);
      const headEnd = all.indexOf('\r\n\r\n');
      if (headEnd < 0) return;
      const lines = all.subarray(0, headEnd).toString('latin1').split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines.slice(1)) {
        const colon = line.indexOf(':');
        headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
      }
      const length = Number(headers['content-length'] ?? 0);
      if (all.length < headEnd + 4 + length) return;
      done = true;
      socket.destroy();
      const body = all.subarray(headEnd + 4, headEnd + 4 + length);
      const text = body.toString('utf8');
      const headerLines = lines.slice(1).filter((line) => !/^date:/i.test(line));
      const blank = (s: string) => s.replace(/"elapsedMs":[^,}]*/, '"elapsedMs":0');
      const normalizedLines = headerLines.map((line) =>
        /^content-length:/i.test(line) ? `${line.split(':')[0]}: ${Buffer.byteLength(blank(text))}` : line,
      );
      resolve({
        status: Number(lines[0]!.split(' ')[1]),
        headerLines,
        headers,
        body,
        text,
        normalized: `${lines[0]}\r\n${normalizedLines.join('\r\n')}\r\n\r\n${blank(text)}`,
      });
    };
    socket.on('data', (data) => {
      received.push(data);
      finish();
    });
    socket.on('error', (error) => (done ? undefined : reject(error)));
    socket.on('close', () => {
      if (!done) reject(new Error(`connection closed before a whole answer: ${Buffer.concat(received)}`));
    });
    socket.on('connect', async () => {
      socket.write(req.head);
      for (const piece of req.body) {
        if (pauseMs > 0) await new Promise((r) => setTimeout(r, pauseMs));
        if (!socket.destroyed) socket.write(piece);
      }
    });
  });
}

/**
 * The request's answers from the fast path and from the app alone, which must be the same;
 * `answeredBy`: whether the fast path answers it itself or hands it to the app.
 */
async function sameOnBoth(
  req: { head: string; body: Buffer[] },
  answeredBy: 'fast path' | 'app',
  pauseMs = 0,
): Promise<Exchanged> {
  const handed = handedToApp;
  const fast = await exchange(fastPort, req, pauseMs);
  expect(handedToApp - handed, `handed to the app: ${req.head}`).toBe(answeredBy === 'app' ? 1 : 0);
  const app = await exchange(appPort, req, pauseMs);
  expect(fast.normalized).toBe(app.normalized);
  return fast;
}

describe('POST /cypher answers the same with and without the fast path', () => {
  it('point lookups, misses and other reads', async () => {
    const lookup = await sameOnBoth(
      request(
        {
          query: 'MATCH (p:Person {id: $id}) RETURN p.name, p.age',
          access_mode: 'read',
          parameters: { id: 7 },
        },
        { token: READER },
      ),
      'fast path',
    );
    expect(lookup.status).toBe(200);
    expect(JSON.parse(lookup.text).rows).toEqual([['p7', 0]]);
    expect(lookup.headerLines.map((line) => line.split(':')[0])).toEqual([
      'content-type',
      'x-content-type-options',
      'x-frame-options',
      'content-security-policy',
      'referrer-policy',
      'cache-control',
      'Content-Length',
      'Connection',
      'Keep-Alive',
    ]);
    const miss = await sameOnBoth(
      request({ query: 'MATCH (p:Person {id: $id}) RETURN p', parameters: { id: 999 } }, { token: READER }),
      'fast path',
    );
    expect(JSON.parse(miss.text).rows).toEqual([]);
    // Not a short read (it runs on a slot's thread) and a write.
    const scan = await sameOnBoth(
      request({ query: 'MATCH (p:Person) RETURN sum(p.age), count(*)' }, { token: READER }),
      'fast path',
    );
    expect(JSON.parse(scan.text).rows).toEqual([[148, 50]]);
    const write = await exchange(
      fastPort,
      request({ query: 'MATCH (p:Person {id: 50}) SET p.age = 100 RETURN p.age' }, { token: ADMIN }),
    );
    expect(JSON.parse(write.text).rows).toEqual([[100]]);
  });

  it.each([
    ['a body that is not JSON', 'not json', READER],
    ['a query that is not a string', { query: 1 }, READER],
    ['a syntax error', { query: 'MATCH (p:Person RETURN p' }, READER],
    ['an unknown label', { query: 'MATCH (p:Nobody) RETURN p' }, READER],
    [
      'a runtime error of a short read',
      { query: 'MATCH (p:Person {id: 1}) RETURN CAST(p.name AS INT64)' },
      READER,
    ],
    ['a write in read mode', { query: 'CREATE (:Person {id: 99})', access_mode: 'read' }, ADMIN],
    ['a mode above the role', { query: 'MATCH (p:Person) RETURN p.id', access_mode: 'update' }, READER],
    ['a write without a mode, above the role', { query: 'CREATE (:Person {id: 98})' }, READER],
    ['several statements', { query: 'RETURN 1; RETURN 2' }, READER],
    ['a bad timeout_ms', { query: 'RETURN 1', timeout_ms: 0 }, READER],
  ])('the request errors: %s', async (_what, body, token) => {
    const answer = await sameOnBoth(request(body, { token }), 'fast path');
    expect(answer.status).toBeGreaterThanOrEqual(400);
    expect(JSON.parse(answer.text).error.code).toMatch(/^[A-Z_]+$/);
  });

  it.each([
    ['no token', { token: undefined }, 'app'],
    ['a wrong token', { token: 'nope-nope-nope-nope' }, 'app'],
    ['a text/plain body', { token: READER, headers: { 'content-type': 'text/plain' } }, 'app'],
    ['a Host the service does not answer to', { token: READER, host: 'evil.example' }, 'app'],
    ['a Host the adapter cannot read', { token: READER, host: '127.0.0.1:99999' }, 'app'],
    ['a listed Host name', { token: READER, host: 'graph.example:8080' }, 'fast path'],
    ['a foreign Origin', { token: READER, headers: { origin: 'https://evil.example' } }, 'app'],
    ['an allowed Origin (CORS)', { token: READER, headers: { origin: 'https://app.example' } }, 'app'],
    ['its own Origin', { token: READER, headers: { origin: 'http://127.0.0.1' } }, 'fast path'],
    [
      'a Content-Length past the limit',
      { token: READER, headers: { 'content-length': String(MAX_BODY + 1) } },
      'app',
    ],
  ])('what the app answers: %s', async (_what, options, answeredBy) => {
    await sameOnBoth(
      request({ query: 'RETURN 1 AS one' }, options as RequestOptions),
      answeredBy as 'fast path' | 'app',
    );
  });

  it('bodies that are not UTF-8, or grow past the limit in chunks', async () => {
    const bad = await sameOnBoth(
      request(null, { token: READER, raw: Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d]) }),
      'fast path',
    );
    expect(bad.status).toBe(400);
    const big = JSON.stringify({ query: `RETURN '${'x'.repeat(MAX_BODY)}'` });
    const tooLarge = await sameOnBoth(
      request(null, { token: READER, chunks: [big.slice(0, 1000), big.slice(1000, 3000), big.slice(3000)] }),
      'fast path',
    );
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.headers.connection).toBe('close');
  });

  it('a body in chunks, and from a slow client, is read whole', async () => {
    const body = JSON.stringify({ query: 'MATCH (p:Person {id: $id}) RETURN p.name', parameters: { id: 3 } });
    const pieces = [body.slice(0, 5), body.slice(5, 20), body.slice(20, 21), body.slice(21)];
    const chunked = await sameOnBoth(request(null, { token: READER, chunks: pieces }), 'fast path');
    expect(JSON.parse(chunked.text).rows).toEqual([['p3']]);
    const slow = await sameOnBoth(request(null, { token: READER, chunks: pieces }), 'fast path', 30);
    expect(JSON.parse(slow.text).rows).toEqual([['p3']]);
    // Plain Content-Length, one byte at a time.
    const bytes = [...Buffer.from(body)].map((byte) => Buffer.from([byte]));
    const slowest = await exchange(fastPort, { head: request(body, { token: READER }).head, body: bytes }, 2);
    expect(JSON.parse(slowest.text).rows).toEqual([['p3']]);
  });

  it('NDJSON goes to the app, which streams it', async () => {
    // The same head (a stream has no Content-Length: the body is read below as a client would).
    const head = await sameOnBoth(
      request(
        { query: 'MATCH (p:Person) WHERE p.id < 3 RETURN p.id ORDER BY p.id' },
        { token: READER, headers: { accept: 'application/x-ndjson' } },
      ),
      'app',
    );
    expect(head.headers['transfer-encoding']).toBe('chunked');
    const response = await fetch(`http://127.0.0.1:${fastPort}/cypher`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/x-ndjson',
        authorization: `Bearer ${READER}`,
      },
      body: JSON.stringify({ query: 'MATCH (p:Person) WHERE p.id < 3 RETURN p.id ORDER BY p.id' }),
    });
    expect(response.headers.get('content-type')).toBe('application/x-ndjson');
    const lines = (await response.text()).trim().split('\n');
    expect(lines.slice(1, 3)).toEqual(['[1]', '[2]']);
  });
});

describe('the fast path keeps the service going', () => {
  it('a client that goes away while its statement runs cancels it and the slot comes free', async () => {
    const pool = service.pool!;
    const executed = pool.getExecutedQueryNum();
    const socket = net.connect(fastPort, '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    const req = request(
      { query: 'UNWIND range(1, 100000) AS x UNWIND range(1, 100000) AS y RETURN count(*)' },
      { token: READER },
    );
    socket.write(req.head);
    socket.write(req.body[0]!);
    const deadline = Date.now() + 5000;
    while (pool.inUse === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    expect(pool.inUse).toBe(1);
    const started = Date.now();
    socket.destroy();
    while (pool.inUse > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    expect(pool.inUse).toBe(0);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(pool.getExecutedQueryNum()).toBe(executed + 1);
    // And the service answers the next request.
    const next = await exchange(fastPort, request({ query: 'RETURN 1 AS one' }, { token: READER }));
    expect(JSON.parse(next.text).rows).toEqual([[1]]);
  });

  it('a client that goes away mid-body leaves nothing in flight', async () => {
    const socket = net.connect(fastPort, '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write(
      request({ query: 'RETURN 1' }, { token: READER, headers: { 'content-length': '100' } }).head,
    );
    socket.write('{"query"');
    await new Promise((r) => setTimeout(r, 50));
    socket.destroy();
    await new Promise((r) => setTimeout(r, 50));
    const status = await exchange(fastPort, request({ query: 'RETURN 2 AS two' }, { token: READER }));
    expect(JSON.parse(status.text).rows).toEqual([[2]]);
  });

  it('a check that throws hands the request to the app, which answers 500 INTERNAL', async () => {
    const auth = httpRuntimeOf(service).auth!;
    const original = auth.authenticate;
    const stderr = process.stderr.write;
    auth.authenticate = () => {
      throw new Error('boom');
    };
    process.stderr.write = (() => true) as typeof process.stderr.write;
    try {
      const answer = await sameOnBoth(request({ query: 'RETURN 1' }, { token: READER }), 'app');
      expect(answer.status).toBe(500);
      expect(JSON.parse(answer.text).error.code).toBe('INTERNAL');
    } finally {
      auth.authenticate = original;
      process.stderr.write = stderr;
    }
    const next = await exchange(fastPort, request({ query: 'RETURN 3 AS three' }, { token: READER }));
    expect(JSON.parse(next.text).rows).toEqual([[3]]);
  });

  it('writes a reply of a stopping service as the adapter writes the app Response marked Connection: close', async () => {
    const reply = errorReply('QUERY_TIMEOUT', 'slow', {});
    const viaFast = http.createServer((_req, res) =>
      writeReply(res, { ...reply, headers: { ...reply.headers } }, true),
    );
    const viaApp = http.createServer(
      getRequestListener(() => {
        const response = toResponse({ ...reply, headers: { ...reply.headers } });
        response.headers.set('connection', 'close');
        return response;
      }),
    );
    const ok = { status: 200, headers: jsonHeaders(), body: '{"rows":[]}' };
    const viaFastOk = http.createServer((_req, res) =>
      writeReply(res, { ...ok, headers: jsonHeaders() }, false),
    );
    const viaAppOk = http.createServer(
      getRequestListener(() => toResponse({ ...ok, headers: jsonHeaders() })),
    );
    const servers = [viaFast, viaApp, viaFastOk, viaAppOk];
    const ports: number[] = [];
    for (const server of servers) {
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      ports.push((server.address() as net.AddressInfo).port);
    }
    try {
      const req = request({ query: 'RETURN 1' });
      const [a, b, c, d] = await Promise.all(ports.map((port) => exchange(port, req)));
      expect(a!.normalized).toBe(b!.normalized);
      expect(a!.headers.connection).toBe('close');
      expect(c!.normalized).toBe(d!.normalized);
    } finally {
      for (const server of servers) {
        server.closeAllConnections();
        server.close();
      }
    }
  });

  it('leaves nothing in flight: stop() does not wait for any request (last: it stops the service)', async () => {
    // stop() waits up to stopTimeoutMs (30 s by default) for requests in flight: a request the
    // fast path counted in and never out would hold it up.
    const started = Date.now();
    await service.stop();
    expect(Date.now() - started).toBeLessThan(2000);
  });
});
