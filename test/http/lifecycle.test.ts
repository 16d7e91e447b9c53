import http from 'node:http';
import { Hono } from 'hono';
import { afterEach, describe, expect, it } from 'vitest';
import { createApp } from '../../src/http/app.js';
import { Database, GraphDBService, type ServiceConfig } from '../../src/index.js';
import { request, slowRequest, waitFor } from '../runtime/helpers.js';

let db: Database;
let service: GraphDBService;

function open(config: ServiceConfig, maxThreadNum = 2): GraphDBService {
  db = new Database(':memory:', { maxThreadNum });
  service = new GraphDBService(db, { queryPort: 0, autoCompaction: false, ...config });
  return service;
}

afterEach(async () => {
  await service?.close();
  db?.close();
});

/** A POST on its own new connection (no keep-alive pool), resolving status, headers and body. */
function post(url: string, body: string, agent: http.Agent | false = false) {
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }>(
    (resolve, reject) => {
      const req = http.request(
        `${url}/cypher`,
        {
          method: 'POST',
          agent,
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => {
            text += chunk;
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
        },
      );
      req.on('error', reject);
      req.end(body);
    },
  );
}

describe('overload', () => {
  it('503 with Retry-After once the wait queue is past maxWaiting', async () => {
    const url = await open({ threadNum: 1, maxWaiting: 1 }).start();
    const pool = service.pool!;
    const running = post(url, slowRequest(1_000_000));
    await waitFor(() => pool.inUse === 1, 5000, 'the first request to hold the slot');
    const queued = post(url, slowRequest(1000));
    await waitFor(() => pool.waiting === 1, 5000, 'the second request to wait');
    const refused = await post(url, request('RETURN 1'));
    expect(refused.status).toBe(503);
    expect(refused.headers['retry-after']).toBe('1');
    expect(JSON.parse(refused.body).error.code).toBe('SERVICE_UNAVAILABLE');
    expect(JSON.parse(refused.body).error.message).toMatch(/overloaded/);
    expect((await running).status).toBe(200);
    expect((await queued).status).toBe(200);
    expect((await post(url, request('RETURN 1'))).status).toBe(200);
  });

  it('503 when no slot frees up within requestTimeoutMs', async () => {
    const url = await open({ threadNum: 1, requestTimeoutMs: 50 }).start();
    const running = post(url, slowRequest(1_000_000));
    await waitFor(() => service.pool!.inUse === 1);
    const timedOut = await post(url, request('RETURN 1'));
    expect(timedOut.status).toBe(503);
    expect(timedOut.headers['retry-after']).toBe('1');
    expect(JSON.parse(timedOut.body).error.message).toMatch(/50 ms/);
    expect(service.pool!.waiting).toBe(0);
    expect((await running).status).toBe(200);
  });

  it('a client that disconnects while waiting leaves the queue', async () => {
    const url = await open({ threadNum: 1 }).start();
    const running = post(url, slowRequest(1_000_000));
    await waitFor(() => service.pool!.inUse === 1);
    const body = request('RETURN 1');
    const req = http.request(`${url}/cypher`, {
      method: 'POST',
      agent: false,
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
    });
    req.on('error', () => undefined);
    req.end(body);
    await waitFor(() => service.pool!.waiting === 1, 5000, 'the request to wait');
    req.destroy();
    await waitFor(() => service.pool!.waiting === 0, 5000, 'the waiter to leave');
    expect((await running).status).toBe(200);
  });
});

describe('stop with requests in flight', () => {
  it('lets in-flight requests complete and refuses new connections', async () => {
    // A stop timeout well past what the three requests take on a loaded machine (the default,
    // 10 s, cut them at load 18): this test is about letting them complete, not the timeout.
    const url = await open({ stopTimeoutMs: 60_000 }).start();
    const pool = service.pool!;
    const inFlight = [
      post(url, slowRequest(600_000)),
      post(url, slowRequest(600_000)),
      post(url, slowRequest(600_000)),
    ];
    await waitFor(() => pool.inUse === 2 && pool.waiting === 1, 5000, 'two running and one waiting');
    const stopping = service.stop();
    expect(service.isRunning()).toBe(false);
    await expect(post(url, request('RETURN 1'))).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    const results = await Promise.all(inFlight);
    for (const r of results) {
      expect(r.status).toBe(200);
      expect(JSON.parse(r.body).rows).toEqual([[180000300000]]);
      expect(r.headers.connection).toBe('close');
    }
    await stopping;
    expect(service.serviceStatus().message).toBe('GraphDB service has not been started!');
  }, 90_000);

  it('closes idle keep-alive connections', async () => {
    const url = await open({}).start();
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const first = await post(url, request('RETURN 1'), agent);
    expect(first.status).toBe(200);
    const sockets = Object.values(agent.freeSockets).flat();
    expect(sockets.length).toBe(1);
    const closed = new Promise<void>((resolve) => sockets[0]!.once('close', () => resolve()));
    const started = Date.now();
    await service.stop();
    await closed;
    expect(Date.now() - started).toBeLessThan(2000);
    agent.destroy();
  });

  it('after stopTimeoutMs, cuts requests still waiting and resolves', async () => {
    const url = await open({ threadNum: 1, stopTimeoutMs: 50 }).start();
    const running = post(url, slowRequest(1_500_000)).catch((e: Error) => e);
    await waitFor(() => service.pool!.inUse === 1);
    const waiting = post(url, request('RETURN 1')).catch((e: Error) => e);
    await waitFor(() => service.pool!.waiting === 1);
    const started = Date.now();
    await service.stop();
    expect(Date.now() - started).toBeLessThan(3000);
    expect(service.pool!.waiting).toBe(0);
    const [a, b] = await Promise.all([running, waiting]);
    // Both connections were cut (or answered 503 for the waiter just before the cut).
    expect(a instanceof Error || a.status === 200).toBe(true);
    expect(b instanceof Error || b.status === 503).toBe(true);
  });
});

describe('createApp', () => {
  it('serves requests when mounted in another Hono app, and 503 once the service closes', async () => {
    open({});
    const outer = new Hono();
    outer.route('/db', createApp(service));
    const ok = await outer.request('/db/cypher', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: request('RETURN 40 + 2 AS x'),
    });
    expect(ok.status).toBe(200);
    expect((await ok.json()).rows).toEqual([[42]]);
    const status = await (await outer.request('/db/status')).json();
    expect(status).toMatchObject({ status: 'not_started', message: 'GraphDB service has not been started!' });
    const large = await outer.request('/db/cypher', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'RETURN 1', pad: 'x'.repeat(2 * 1024 * 1024) }),
    });
    expect(large.status).toBe(413);
    await service.close();
    const closed = await outer.request('/db/cypher', { method: 'POST', body: request('RETURN 1') });
    expect(closed.status).toBe(503);
    expect(closed.headers.get('retry-after')).toBe('1');
    expect((await closed.json()).error.code).toBe('SERVICE_UNAVAILABLE');
    const after = await (await outer.request('/db/status')).json();
    expect(after).toMatchObject({ status: 'not_initialized', slots: { total: 0 } });
  });

  it('answers 503 with Connection: close to requests arriving while the service stops', async () => {
    const url = await open({ threadNum: 1 }).start();
    const app = createApp(service);
    const running = post(url, slowRequest(600_000));
    await waitFor(() => service.pool!.inUse === 1);
    const stopping = service.stop();
    const r = await app.request('/cypher', { method: 'POST', body: request('RETURN 1') });
    expect(r.status).toBe(503);
    expect(r.headers.get('retry-after')).toBe('1');
    expect(r.headers.get('connection')).toBe('close');
    expect((await r.json()).error.message).toMatch(/stopping/);
    expect((await running).status).toBe(200);
    await stopping;
  });
});
