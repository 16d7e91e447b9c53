// Idle and slow connections are closed, and a connection cap holds (hardening issue 25, item 11):
// real sockets on loopback against short limits (about three seconds in all). Its assertions are
// about time, so it runs with the timing tests, alone.

import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { Database, GraphDBService, type ServiceConfig } from '../../src/index.js';

const open: { db: Database; service: GraphDBService }[] = [];
const sockets: net.Socket[] = [];

afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  for (const { db, service } of open.splice(0)) {
    await service.close();
    db.close();
  }
});

async function serve(config: ServiceConfig): Promise<number> {
  const db = new Database(':memory:', { maxThreadNum: 1 });
  const service = new GraphDBService(db, { queryPort: 0, autoCompaction: false, ...config });
  open.push({ db, service });
  return Number(new URL(await service.start()).port);
}

interface Watched {
  socket: net.Socket;
  /** Milliseconds from the start of the test until the server closed the socket. */
  closed: Promise<number>;
  received: () => string;
}

function connect(port: number, started: number): Promise<Watched> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    sockets.push(socket);
    let text = '';
    socket.setEncoding('utf8').on('data', (chunk: string) => {
      text += chunk;
    });
    socket.on('error', () => undefined); // a write after the server closed: EPIPE
    const closed = new Promise<number>((done) => socket.on('close', () => done(Date.now() - started)));
    socket.once('connect', () => resolve({ socket, closed, received: () => text }));
    socket.once('error', reject);
  });
}

/** Writes `text` a piece at a time, every `everyMs`, until the socket closes. */
function trickle(socket: net.Socket, text: string, everyMs: number): void {
  let at = 0;
  const timer = setInterval(() => {
    if (socket.destroyed || at >= text.length) {
      clearInterval(timer);
      return;
    }
    socket.write(text[at++]!);
  }, everyMs);
  socket.once('close', () => clearInterval(timer));
}

const REQUEST_HEAD = 'POST /cypher HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n';

describe('connection limits', () => {
  it('closes connections that send nothing, headers too slowly or a body too slowly', async () => {
    const port = await serve({ headersTimeoutMs: 300, receiveTimeoutMs: 600, keepAliveTimeoutMs: 200 });
    const started = Date.now();
    const idle = await connect(port, started);
    const slowHeaders = await connect(port, started);
    trickle(slowHeaders.socket, `${REQUEST_HEAD}X-Padding: ${'a'.repeat(200)}\r\n\r\n`, 20);
    const body = JSON.stringify({ query: 'RETURN 1 AS x' });
    const slowBody = await connect(port, started);
    slowBody.socket.write(`${REQUEST_HEAD}Content-Length: ${body.length}\r\n\r\n`);
    trickle(slowBody.socket, body, 100);
    // Each is closed after its limit, well before it would have finished.
    const [idleAt, headersAt, bodyAt] = await Promise.all([idle.closed, slowHeaders.closed, slowBody.closed]);
    expect(idleAt).toBeGreaterThanOrEqual(250);
    expect(idleAt).toBeLessThan(2000);
    expect(headersAt).toBeGreaterThanOrEqual(250);
    expect(headersAt).toBeLessThan(2000);
    expect(bodyAt).toBeGreaterThanOrEqual(550);
    expect(bodyAt).toBeLessThan(body.length * 100);
    expect(slowBody.received()).not.toContain('200 OK');
  });

  it('keeps a connection whose request is answered slowly, then closes it once idle', async () => {
    const port = await serve({ headersTimeoutMs: 200, receiveTimeoutMs: 300, keepAliveTimeoutMs: 100 });
    const started = Date.now();
    const client = await connect(port, started);
    // A statement that runs longer than every limit: the wait for its answer is not idleness.
    const body = JSON.stringify({ query: 'UNWIND range(1, 3000000) AS x RETURN sum(x) AS s' });
    client.socket.write(`${REQUEST_HEAD}Content-Length: ${body.length}\r\n\r\n${body}`);
    const closedAt = await client.closed;
    expect(client.received()).toContain('HTTP/1.1 200 OK');
    expect(client.received()).toContain('4500001500000');
    // Closed by the keep-alive timeout (Node adds up to a second to it), not left open.
    expect(closedAt).toBeLessThan(5000);
  });

  it('makes room at maxConnections by closing the oldest connections that sent nothing', async () => {
    const port = await serve({ maxConnections: 3, headersTimeoutMs: 5000 });
    const started = Date.now();
    const kept: Watched[] = [];
    for (let i = 0; i < 3; i++) {
      kept.push(await connect(port, started));
      // Let the server count each before the next arrives, so that their age is their order.
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const extra = await Promise.all([1, 2].map(() => connect(port, started)));
    // The two oldest silent sockets give way at once, long before the 5 s headers timeout.
    for (const watched of kept.slice(0, 2)) expect(await watched.closed).toBeLessThan(1000);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(kept[2]!.socket.destroyed).toBe(false);
    for (const watched of extra) expect(watched.socket.destroyed).toBe(false);
    // The newcomers are served.
    extra[0]!.socket.write('GET /status HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    for (let waited = 0; waited < 3000 && extra[0]!.received() === ''; waited += 20) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(extra[0]!.received()).toMatch(/^HTTP\/1\.1 200/);
  });

  it('validates the limits with messages naming the field', async () => {
    const db = new Database(':memory:', { maxThreadNum: 1 });
    try {
      expect(() => new GraphDBService(db, { headersTimeoutMs: 0 })).toThrow(/headersTimeoutMs/);
      expect(() => new GraphDBService(db, { keepAliveTimeoutMs: 1.5 })).toThrow(TypeError);
      expect(() => new GraphDBService(db, { maxConnections: -1 })).toThrow(/maxConnections/);
      expect(() => new GraphDBService(db, { headersTimeoutMs: 5000, receiveTimeoutMs: 1000 })).toThrow(
        /must not exceed receiveTimeoutMs/,
      );
      // A long headers timeout raises the default receive timeout with it.
      await new GraphDBService(db, { headersTimeoutMs: 60_000 }).close();
    } finally {
      db.close();
    }
  });
});
