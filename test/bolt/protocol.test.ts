// The Bolt server at the message level, with a raw client: the handshake (5.x, the 4.4
// fallback, none), the state machine (FAILED, IGNORED, RESET, PULL n with has_more, qid),
// authentication, TELEMETRY, ROUTE, idle transactions, and hostile bytes on the wire.
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chooseVersion } from '../../src/bolt/server.js';
import { Database } from '../../src/core/database.js';
import { GraphDBService, type ServiceConfig } from '../../src/service/service.js';
import { waitFor } from '../runtime/helpers.js';
import {
  BEGIN,
  COMMIT,
  DISCARD,
  FAILURE,
  GOODBYE,
  HELLO,
  handshakeBytes,
  IGNORED,
  LOGOFF,
  LOGON,
  PULL,
  RawClient,
  RESET,
  ROUTE,
  RUN,
  SUCCESS,
  TELEMETRY,
} from './raw-client.js';

/** Records of a RECORD response are the list itself (the first field). */
function rowsOf(records: unknown[][]): unknown[] {
  return records.map((r) => (r as unknown[])[0]);
}

let service: GraphDBService;
let port: number;

async function start(config: ServiceConfig = {}): Promise<{ service: GraphDBService; port: number }> {
  const s = new GraphDBService(new Database(':memory:', { maxThreadNum: 3 }), {
    queryPort: 0,
    boltPort: 0,
    autoCompaction: false,
    console: false,
    ...config,
  });
  await s.start();
  return { service: s, port: s.boltPort as number };
}

beforeAll(async () => {
  ({ service, port } = await start({ threadNum: 3, txIdleTimeoutMs: 300 }));
});

afterAll(async () => {
  await service?.close();
});

describe('handshake', () => {
  it('picks the highest version served from the client proposals, in their order', () => {
    const proposals = handshakeBytes;
    expect(chooseVersion(proposals(0x000001ff, 0x00080805, 0x00020404, 0x00000003))).toEqual([5, 4]);
    expect(chooseVersion(proposals(0x00000205))).toEqual([5, 2]);
    expect(chooseVersion(proposals(0x00000404, 0x00000005))).toEqual([4, 4]);
    expect(chooseVersion(proposals(0x00000003, 0x00000104))).toBeNull();
    expect(chooseVersion(proposals(0x00000009))).toBeNull();
  });

  it('answers 5.4 to neo4j-driver-like proposals and 0 when none is served', async () => {
    const a = new RawClient(port);
    expect([...(await a.handshake(0x000001ff, 0x00080805, 0x00020404, 0x00000003))]).toEqual([0, 0, 4, 5]);
    a.close();
    const b = new RawClient(port);
    expect([...(await b.handshake(0x00000003))]).toEqual([0, 0, 0, 0]);
    await b.closed;
  });

  it('closes a connection that does not speak Bolt', async () => {
    const socket = connect({ port, host: '127.0.0.1' });
    socket.on('error', () => undefined);
    const data: Buffer[] = [];
    socket.on('data', (d) => data.push(d));
    socket.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
    await new Promise((resolve) => socket.on('close', resolve));
    expect(Buffer.concat(data).length).toBe(0);
  });

  it('speaks Bolt 4.4: auth in HELLO, nodes without element ids, the utc patch', async () => {
    const c = new RawClient(port);
    expect([...(await c.handshake(0x00000404))]).toEqual([0, 0, 4, 4]);
    c.send(HELLO, { user_agent: 'raw/1', scheme: 'none', patch_bolt: ['utc'] });
    const hello = await c.next();
    expect(hello.tag).toBe(SUCCESS);
    expect(hello.meta.patch_bolt).toEqual(['utc']);
    c.send(RUN, 'RETURN 1 AS x', {}, {});
    c.send(PULL, { n: -1 });
    expect((await c.next()).meta.fields).toEqual(['x']);
    expect(rowsOf((await c.summary()).records)).toEqual([1]);
    c.close();
  });
});

describe('state machine', () => {
  it('pulls n records at a time with has_more, then the summary', async () => {
    const c = new RawClient(port);
    await c.login();
    c.send(RUN, 'UNWIND range(1, 5) AS i RETURN i', {}, {});
    expect((await c.next()).meta.fields).toEqual(['i']);
    c.send(PULL, { n: 2 });
    let batch = await c.summary();
    expect(rowsOf(batch.records)).toEqual([1, 2]);
    expect(batch.summary.meta).toEqual({ has_more: true });
    c.send(DISCARD, { n: 1 });
    expect((await c.summary()).summary.meta).toEqual({ has_more: true });
    c.send(PULL, { n: 10 });
    batch = await c.summary();
    expect(rowsOf(batch.records)).toEqual([4, 5]);
    expect(batch.summary.meta).toMatchObject({ type: 'r', db: 'neo4j' });
    // PULL with nothing open is a failure; the connection is FAILED until RESET.
    c.send(PULL, { n: -1 });
    expect((await c.next()).tag).toBe(FAILURE);
    c.send(RUN, 'RETURN 1', {}, {});
    expect((await c.next()).tag).toBe(IGNORED);
    c.send(RESET);
    expect((await c.next()).tag).toBe(SUCCESS);
    c.send(RUN, 'RETURN 2 AS two', {}, {});
    c.send(PULL, { n: -1 });
    await c.next();
    expect(rowsOf((await c.summary()).records)).toEqual([2]);
    c.close();
  });

  it('refuses PULL n = 0 and a map where a map belongs', async () => {
    const c = new RawClient(port);
    await c.login();
    c.send(RUN, 'RETURN 1', {}, {});
    await c.next();
    c.send(PULL, { n: 0 });
    expect((await c.next()).meta).toMatchObject({ code: 'Neo.ClientError.Request.Invalid' });
    c.send(RESET);
    await c.next();
    c.send(RUN, 'RETURN 1', [1, 2], {});
    expect((await c.next()).meta).toMatchObject({ code: 'Neo.ClientError.Request.Invalid' });
    c.close();
  });

  it('refuses transaction statements in RUN: transactions are the protocol messages', async () => {
    const c = new RawClient(port);
    await c.login();
    c.send(RUN, 'BEGIN TRANSACTION', {}, {});
    expect((await c.next()).tag).toBe(FAILURE);
    c.send(RESET);
    await c.next();
    c.send(BEGIN, {});
    expect((await c.next()).tag).toBe(SUCCESS);
    c.send(RUN, 'COMMIT', {}, {});
    expect((await c.next()).meta).toMatchObject({ code: 'Neo.ClientError.Statement.ArgumentError' });
    c.send(RESET);
    expect((await c.next()).tag).toBe(SUCCESS);
    expect(service.pool?.inUse).toBe(0);
    c.close();
  });

  it('keeps several results of a transaction apart by qid', async () => {
    const c = new RawClient(port);
    await c.login();
    c.send(BEGIN, {});
    expect((await c.next()).tag).toBe(SUCCESS);
    c.send(RUN, 'UNWIND [1, 2] AS i RETURN i', {}, {});
    const first = await c.next();
    c.send(RUN, "UNWIND ['a', 'b'] AS s RETURN s", {}, {});
    const second = await c.next();
    expect([first.meta.qid, second.meta.qid]).toEqual([0, 1]);
    c.send(PULL, { n: -1, qid: 0 });
    expect(rowsOf((await c.summary()).records)).toEqual([1, 2]);
    c.send(PULL, { n: -1 });
    expect(rowsOf((await c.summary()).records)).toEqual(['a', 'b']);
    c.send(COMMIT);
    expect((await c.next()).meta.bookmark).toEqual(expect.any(String));
    c.close();
  });

  it('interrupts a running statement on RESET: it and those after it are IGNORED', async () => {
    const c = new RawClient(port);
    await c.login();
    c.send(RUN, 'UNWIND range(1, 30000000) AS x WITH x WHERE x < 0 RETURN count(*)', {}, {});
    c.send(PULL, { n: -1 });
    await new Promise((resolve) => setTimeout(resolve, 50));
    const started = Date.now();
    c.send(RESET);
    // The RUN opens the result stream (SUCCESS, or IGNORED if it was still opening); the PULL
    // that computes the count is stopped (IGNORED); the RESET succeeds.
    expect([SUCCESS, IGNORED]).toContain((await c.next()).tag);
    expect((await c.next()).tag).toBe(IGNORED);
    expect((await c.next()).tag).toBe(SUCCESS);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(service.pool?.inUse).toBe(0);
    c.send(RUN, 'RETURN 3', {}, {});
    expect((await c.next()).tag).toBe(SUCCESS);
    c.close();
  });

  it('answers TELEMETRY and ROUTE with a single-server table at the address the client used', async () => {
    const c = new RawClient(port);
    await c.login();
    c.send(TELEMETRY, { api: 1 });
    expect((await c.next()).tag).toBe(SUCCESS);
    c.send(ROUTE, { address: 'example.test:7687' }, [], {});
    const route = await c.next();
    expect(route.meta.rt).toMatchObject({
      db: 'neo4j',
      servers: [
        { addresses: ['example.test:7687'], role: 'WRITE' },
        { addresses: ['example.test:7687'], role: 'READ' },
        { addresses: ['example.test:7687'], role: 'ROUTE' },
      ],
    });
    c.send(LOGOFF);
    expect((await c.next()).tag).toBe(SUCCESS);
    c.send(RUN, 'RETURN 1', {}, {});
    expect((await c.next()).tag).toBe(FAILURE);
    await c.closed;
  });

  it('closes on GOODBYE', async () => {
    const c = new RawClient(port);
    await c.login();
    c.send(GOODBYE);
    await c.closed;
  });

  it('rolls back a transaction left idle and frees its slot', async () => {
    // The connections of the tests before give their slots back as their sockets close, which
    // a loaded machine may not have got to yet.
    await waitFor(() => service.pool?.inUse === 0, 10_000, 'the earlier connections to free their slots');
    const c = new RawClient(port);
    await c.login();
    c.send(BEGIN, {});
    expect((await c.next()).tag).toBe(SUCCESS);
    expect(service.pool?.inUse).toBe(1);
    // Rolled back once idle for txIdleTimeoutMs (300 ms), however late the timer fires.
    await waitFor(() => service.pool?.inUse === 0, 10_000, 'the idle transaction to be rolled back');
    c.send(RUN, 'RETURN 1', {}, {});
    expect((await c.next()).meta).toMatchObject({ code: 'Neo.ClientError.Transaction.TransactionTimedOut' });
    c.send(RESET);
    expect((await c.next()).tag).toBe(SUCCESS);
    c.close();
  });

  it('rolls back the open transaction of a client that goes away', async () => {
    const c = new RawClient(port);
    await c.login();
    c.send(BEGIN, {});
    await c.next();
    expect(service.pool?.inUse).toBe(1);
    c.close();
    const deadline = Date.now() + 2000;
    while (service.pool?.inUse !== 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    expect(service.pool?.inUse).toBe(0);
  });
});

describe('streamed results', () => {
  const big = 'UNWIND range(1, 1000000) AS i RETURN i';
  const untilFree = async () => {
    const deadline = Date.now() + 2000;
    while (service.pool?.inUse !== 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    return service.pool?.inUse;
  };

  it('an auto-commit result holds its slot until pulled to its end, discarded, reset or dropped', async () => {
    const c = new RawClient(port);
    await c.login();
    c.send(RUN, 'UNWIND range(1, 5) AS i RETURN i', {}, {});
    await c.next();
    c.send(PULL, { n: 2 });
    expect(rowsOf((await c.summary()).records)).toEqual([1, 2]);
    expect(service.pool?.inUse).toBe(1);
    // The stream cannot tell that the last 3 rows are the last before it is asked for more:
    // has_more, then a PULL answered with the summary alone.
    c.send(PULL, { n: 3 });
    const last = await c.summary();
    expect(rowsOf(last.records)).toEqual([3, 4, 5]);
    expect(last.summary.meta).toEqual({ has_more: true });
    c.send(PULL, { n: 3 });
    const end = await c.summary();
    expect(end.records).toEqual([]);
    expect(end.summary.meta).toMatchObject({ type: 'r' });
    expect(service.pool?.inUse).toBe(0);
    // DISCARD n: drops n records and keeps the rest; DISCARD -1 closes the stream.
    c.send(RUN, big, {}, {});
    await c.next();
    c.send(DISCARD, { n: 999_998 });
    expect((await c.summary()).summary.meta).toEqual({ has_more: true });
    c.send(PULL, { n: -1 });
    expect(rowsOf((await c.summary()).records)).toEqual([999_999, 1_000_000]);
    c.send(RUN, big, {}, {});
    await c.next();
    c.send(PULL, { n: 3 });
    await c.summary();
    c.send(DISCARD, { n: -1 });
    expect((await c.summary()).summary.tag).toBe(SUCCESS);
    expect(service.pool?.inUse).toBe(0);
    // RESET closes it.
    c.send(RUN, big, {}, {});
    await c.next();
    c.send(PULL, { n: 3 });
    await c.summary();
    c.send(RESET);
    expect((await c.next()).tag).toBe(SUCCESS);
    expect(service.pool?.inUse).toBe(0);
    // So does a client that goes away midway.
    c.send(RUN, big, {}, {});
    await c.next();
    c.send(PULL, { n: 3 });
    await c.summary();
    expect(service.pool?.inUse).toBe(1);
    c.close();
    expect(await untilFree()).toBe(0);
  });

  it('closes an auto-commit result left idle, freeing its slot; the next PULL says so', async () => {
    await waitFor(() => service.pool?.inUse === 0, 10_000, 'the earlier connections to free their slots');
    const c = new RawClient(port);
    await c.login();
    c.send(RUN, big, {}, {});
    await c.next();
    c.send(PULL, { n: 2 });
    await c.summary();
    expect(service.pool?.inUse).toBe(1);
    await waitFor(() => service.pool?.inUse === 0, 10_000, 'the idle result to be closed');
    c.send(PULL, { n: 2 });
    expect((await c.next()).meta).toMatchObject({ code: 'Neo.ClientError.Transaction.TransactionTimedOut' });
    c.send(RESET);
    expect((await c.next()).tag).toBe(SUCCESS);
    c.send(RUN, 'RETURN 5', {}, {});
    c.send(PULL, { n: -1 });
    await c.next();
    expect(rowsOf((await c.summary()).records)).toEqual([5]);
    c.close();
  });

  it('reads an open result of a transaction into memory when the next RUN needs the slot', async () => {
    const c = new RawClient(port);
    await c.login();
    c.send(RUN, 'CREATE NODE TABLE Streamed(id INT64, PRIMARY KEY(id))', {}, {});
    c.send(PULL, { n: -1 });
    await c.next();
    expect((await c.summary()).summary.tag).toBe(SUCCESS);
    c.send(BEGIN, {});
    expect((await c.next()).tag).toBe(SUCCESS);
    c.send(RUN, 'UNWIND range(1, 5000) AS i RETURN i', {}, {});
    await c.next();
    c.send(PULL, { n: 2, qid: 0 });
    expect(rowsOf((await c.summary()).records)).toEqual([1, 2]);
    c.send(RUN, 'CREATE (n:Streamed {id: 1}) RETURN 9 AS nine', {}, {});
    expect((await c.next()).meta.qid).toBe(1);
    c.send(PULL, { n: -1, qid: 1 });
    const created = await c.summary();
    expect(rowsOf(created.records)).toEqual([9]);
    expect(created.summary.meta).toMatchObject({ type: 'rw', stats: { 'nodes-created': 1 } });
    c.send(PULL, { n: 10, qid: 0 });
    expect(rowsOf((await c.summary()).records)).toEqual([3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    // A third RUN while the first is still open (now in memory), then COMMIT drops what is left.
    c.send(RUN, 'MATCH (n:Streamed) UNWIND range(1, 100) AS k RETURN n.id', {}, {});
    await c.next();
    c.send(PULL, { n: 1, qid: 2 });
    expect(rowsOf((await c.summary()).records)).toEqual([1]);
    c.send(COMMIT);
    expect((await c.next()).tag).toBe(SUCCESS);
    expect(service.pool?.inUse).toBe(0);
    c.send(RUN, 'MATCH (n:Streamed) RETURN count(*)', {}, {});
    c.send(PULL, { n: -1 });
    await c.next();
    expect(rowsOf((await c.summary()).records)).toEqual([1]);
    c.close();
  });
  it('refuses to read an open result past maxResultBytes into memory, and frees the slot', async () => {
    const { service: bounded, port: boundedPort } = await start({ maxResultBytes: 200_000 });
    try {
      const c = new RawClient(boundedPort);
      await c.login();
      c.send(BEGIN, {});
      expect((await c.next()).tag).toBe(SUCCESS);
      // A billion rows stream lazily one batch at a time; the next RUN would have to hold them.
      c.send(RUN, 'UNWIND range(1, 1000000000) AS i RETURN i', {}, {});
      await c.next();
      c.send(PULL, { n: 2, qid: 0 });
      expect(rowsOf((await c.summary()).records)).toEqual([1, 2]);
      const started = Date.now();
      c.send(RUN, 'RETURN 1', {}, {});
      const failure = await c.next();
      expect(failure.meta).toMatchObject({ code: 'Neo.ClientError.Statement.ExecutionFailed' });
      expect(String(failure.meta.message)).toMatch(/maxResultBytes \(200000 bytes\): PULL or DISCARD/);
      expect(Date.now() - started).toBeLessThan(10_000); // stopped near the bound, not at the end
      c.send(RESET);
      expect((await c.next()).tag).toBe(SUCCESS);
      expect(bounded.pool?.inUse).toBe(0);
      // A result under the bound is still read into memory as before.
      c.send(BEGIN, {});
      expect((await c.next()).tag).toBe(SUCCESS);
      c.send(RUN, 'UNWIND range(1, 1000) AS i RETURN i', {}, {});
      await c.next();
      c.send(RUN, 'RETURN 7 AS seven', {}, {});
      expect((await c.next()).meta.qid).toBe(1);
      c.send(PULL, { n: -1, qid: 0 });
      const rest = rowsOf((await c.summary()).records);
      expect(rest.length).toBe(1000);
      expect(rest[999]).toBe(1000);
      c.send(COMMIT);
      expect((await c.next()).tag).toBe(SUCCESS);
      c.close();
    } finally {
      await bounded.close();
    }
  });
});

describe('hostile bytes', () => {
  it('answers a malformed message with a FAILURE and closes', async () => {
    const c = new RawClient(port);
    await c.login();
    c.socket.write(Buffer.from([0x00, 0x02, 0xb1, 0xe5, 0x00, 0x00])); // unknown marker
    expect((await c.next()).meta).toMatchObject({ code: 'Neo.ClientError.Request.InvalidFormat' });
    await c.closed;
  });

  it('refuses a message larger than maxBodyBytes without reading it whole', async () => {
    const { service: small, port: smallPort } = await start({ maxBodyBytes: 1000 });
    try {
      const c = new RawClient(smallPort);
      await c.login();
      c.socket.write(Buffer.from([0xff, 0xff]));
      c.socket.write(Buffer.alloc(0xffff, 0x41));
      expect((await c.next()).meta.message).toMatch(/larger than the 1000 bytes/);
      await c.closed;
    } finally {
      await small.close();
    }
  });

  it('closes a connection that never finishes the handshake', async () => {
    const { service: quick, port: quickPort } = await start({ headersTimeoutMs: 100 });
    try {
      const socket = connect({ port: quickPort, host: '127.0.0.1' });
      socket.on('error', () => undefined);
      socket.write(Buffer.from([0x60, 0x60]));
      const started = Date.now();
      await new Promise((resolve) => socket.on('close', resolve));
      expect(Date.now() - started).toBeLessThan(2000);
    } finally {
      await quick.close();
    }
  });

  it('refuses a request before HELLO and closes', async () => {
    const c = new RawClient(port);
    await c.handshake(0x00040405);
    c.send(RUN, 'RETURN 1', {}, {});
    expect((await c.next()).tag).toBe(FAILURE);
    await c.closed;
  });
});

describe('authentication', () => {
  it("logs in with the service's tokens and applies their roles to access modes", async () => {
    const { service: guarded, port: guardedPort } = await start({
      auth: {
        tokens: [
          { token: 'reader-token-123456', role: 'reader' },
          { token: 'writer-token-123456', role: 'writer' },
        ],
      },
    });
    try {
      const none = new RawClient(guardedPort);
      await none.handshake(0x00040405);
      none.send(HELLO, { user_agent: 'raw/1' });
      await none.next();
      none.send(LOGON, { scheme: 'none' });
      expect((await none.next()).meta).toMatchObject({ code: 'Neo.ClientError.Security.Unauthorized' });
      await none.closed;

      const reader = new RawClient(guardedPort);
      await reader.login(0x00040405, { scheme: 'bearer', credentials: 'reader-token-123456' });
      reader.send(RUN, 'RETURN 1', {}, {});
      expect((await reader.next()).tag).toBe(SUCCESS);
      reader.send(RESET);
      await reader.next();
      reader.send(RUN, 'CREATE NODE TABLE T(id INT64, PRIMARY KEY(id))', {}, {});
      expect((await reader.next()).meta).toMatchObject({ code: 'Neo.ClientError.Security.Forbidden' });
      reader.close();

      const writer = new RawClient(guardedPort);
      await writer.login(0x00040405, {
        scheme: 'basic',
        principal: 'neo4j',
        credentials: 'writer-token-123456',
      });
      writer.send(RUN, 'CREATE NODE TABLE T(id INT64, PRIMARY KEY(id))', {}, {});
      expect((await writer.next()).meta).toMatchObject({ code: 'Neo.ClientError.Security.Forbidden' });
      writer.close();

      const wrong = new RawClient(guardedPort);
      await wrong.handshake(0x00040405);
      wrong.send(HELLO, { user_agent: 'raw/1' });
      await wrong.next();
      wrong.send(LOGON, { scheme: 'bearer', credentials: 'not-a-known-token-000' });
      expect((await wrong.next()).meta).toMatchObject({ code: 'Neo.ClientError.Security.Unauthorized' });
      await wrong.closed;
    } finally {
      await guarded.close();
    }
  });
});

describe('connection limits (issue 34, item 5)', () => {
  const READER = 'reader-token-123456';
  const ADMIN = 'admin-token-1234567';
  const tokens = {
    tokens: [
      { token: READER, role: 'reader' as const },
      { token: ADMIN, role: 'admin' as const },
    ],
  };
  const bearer = (token: string) => ({ scheme: 'bearer', credentials: token });

  /** Tries to log in on a fresh connection; expects the refusal of a limit, returns its message. */
  async function refusedLogin(at: number, token: string): Promise<string> {
    const c = new RawClient(at);
    await c.handshake(0x00000405);
    c.send(HELLO, { user_agent: 'raw/1' });
    expect((await c.next()).tag).toBe(SUCCESS);
    c.send(LOGON, bearer(token));
    const refused = await c.next();
    expect(refused.tag).toBe(FAILURE);
    expect(refused.meta).toMatchObject({ code: 'Neo.TransientError.Request.ResourceExhaustion' });
    await c.closed;
    return String(refused.meta.message);
  }

  /** Logs in on a fresh connection; retries while the server still counts closed ones. */
  async function loginEventually(at: number, token: string): Promise<RawClient> {
    for (let attempt = 0; ; attempt++) {
      const c = new RawClient(at);
      try {
        await c.login(0x00000405, bearer(token));
        return c;
      } catch (error) {
        c.close();
        if (attempt >= 50) throw error;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }
  }

  it('closes logged-in connections left idle, but not those with a transaction or result open', async () => {
    const { service: s, port: p } = await start({ boltIdleTimeoutMs: 200 });
    try {
      const inTx = new RawClient(p);
      await inTx.login(0x00000405);
      inTx.send(BEGIN, {});
      expect((await inTx.next()).tag).toBe(SUCCESS);
      const streaming = new RawClient(p);
      await streaming.login(0x00000405);
      streaming.send(RUN, 'UNWIND [1, 2, 3] AS x RETURN x', {}, {});
      expect((await streaming.next()).tag).toBe(SUCCESS);
      const idle = new RawClient(p);
      await idle.login(0x00000405);
      let timer: NodeJS.Timeout | undefined;
      const gaveUp = new Promise<string>((resolve) => {
        timer = setTimeout(() => resolve('still open'), 5000);
      });
      expect(await Promise.race([idle.closed.then(() => 'closed'), gaveUp])).toBe('closed');
      clearTimeout(timer);
      // Their idle timeouts came before the idle one's: they are still served.
      inTx.send(RUN, 'RETURN 1 AS x', {}, {});
      expect((await inTx.next()).tag).toBe(SUCCESS);
      inTx.send(PULL, { n: -1 });
      expect(rowsOf((await inTx.summary()).records)).toEqual([1]);
      streaming.send(PULL, { n: -1 });
      expect(rowsOf((await streaming.summary()).records)).toEqual([1, 2, 3]);
      inTx.close();
      streaming.close();
    } finally {
      await s.close();
    }
  });

  it('refuses a token more than boltMaxConnectionsPerToken logged-in connections', async () => {
    const { service: s, port: p } = await start({ auth: tokens, boltMaxConnectionsPerToken: 2 });
    try {
      const first = new RawClient(p);
      await first.login(0x00000405, bearer(READER));
      const second = new RawClient(p);
      await second.login(0x00000405, bearer(READER));
      expect(await refusedLogin(p, READER)).toContain('boltMaxConnectionsPerToken');
      // Another token is not held back; a LOGOFF gives the token's place back.
      const admin = new RawClient(p);
      await admin.login(0x00000405, bearer(ADMIN));
      second.send(LOGOFF);
      expect((await second.next()).tag).toBe(SUCCESS);
      const fourth = new RawClient(p);
      await fourth.login(0x00000405, bearer(READER));
      for (const c of [first, second, admin, fourth]) c.close();
    } finally {
      await s.close();
    }
  });

  it('lets a client in while sockets that send nothing hold every connection', async () => {
    const { service: s, port: p } = await start({ maxConnections: 5 });
    const silent: Socket[] = [];
    try {
      for (let i = 0; i < 30; i++) {
        const socket = connect({ port: p, host: '127.0.0.1' });
        socket.on('error', () => undefined);
        await new Promise<void>((resolve) => {
          socket.once('connect', () => resolve());
          socket.once('close', () => resolve());
        });
        silent.push(socket);
      }
      const client = new RawClient(p);
      await client.login(0x00000405);
      client.send(RUN, 'RETURN 1 AS x', {}, {});
      expect((await client.next()).tag).toBe(SUCCESS);
      client.close();
    } finally {
      for (const socket of silent) socket.destroy();
      await s.close();
    }
  });

  it('keeps adminReservedConnections past maxConnections for admin tokens', async () => {
    const { service: s, port: p } = await start({
      auth: tokens,
      maxConnections: 2,
      adminReservedConnections: 1,
    });
    try {
      const readers = [new RawClient(p), new RawClient(p)];
      for (const c of readers) await c.login(0x00000405, bearer(READER));
      expect(await refusedLogin(p, READER)).toContain('kept for admin tokens');
      const admin = await loginEventually(p, ADMIN);
      admin.send(RUN, 'RETURN 1 AS x', {}, {});
      expect((await admin.next()).tag).toBe(SUCCESS);
      admin.close();
      for (const c of readers) c.close();
    } finally {
      await s.close();
    }
  });
});
