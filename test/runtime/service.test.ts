import net from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { databaseInternals } from '../../src/core/database.js';
import { Database, GraphDBError, GraphDBService, type ServiceConfig } from '../../src/index.js';
import { request, slowRequest } from './helpers.js';

const NOT_INITED = 'GraphDB service has not been inited!';
const NOT_STARTED = 'GraphDB service has not been started!';
const RUNNING = 'GraphDB service is running ...';

const cleanup: (() => Promise<void> | void)[] = [];

afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
  vi.restoreAllMocks();
});

function openDb(maxThreadNum = 2): Database {
  const db = new Database(':memory:', { maxThreadNum });
  cleanup.push(() => db.close());
  return db;
}

function newService(db: Database, config: ServiceConfig = { queryPort: 0 }): GraphDBService {
  const service = new GraphDBService(db, config);
  cleanup.push(() => service.close());
  return service;
}

function captureStderr(): string[] {
  const lines: string[] = [];
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    lines.push(String(chunk));
    return true;
  });
  return lines;
}

describe('GraphDBService states', () => {
  it('walks initialized -> running -> stopped -> not initialized with the exact messages', async () => {
    const service = newService(openDb());
    expect(service.serviceStatus()).toEqual({ code: 'OK', message: NOT_STARTED });
    expect(service.isRunning()).toBe(false);

    const url = await service.start();
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(Number(new URL(url).port)).toBeGreaterThan(0);
    expect(service.isRunning()).toBe(true);
    expect(service.serviceStatus()).toEqual({ code: 'OK', message: RUNNING });
    expect((await fetch(`${url}/status`)).status).toBe(200);

    await service.stop();
    expect(service.isRunning()).toBe(false);
    expect(service.serviceStatus()).toEqual({ code: 'OK', message: NOT_STARTED });

    await service.close();
    expect(service.isRunning()).toBe(false);
    expect(service.serviceStatus()).toEqual({ code: 'OK', message: NOT_INITED });
  });

  it('can be started again after a stop', async () => {
    const service = newService(openDb());
    const first = await service.start();
    await service.stop();
    await expect(fetch(`${first}/status`)).rejects.toThrow();
    const second = await service.start();
    expect(service.serviceStatus().message).toBe(RUNNING);
    const r = await fetch(`${second}/cypher`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: request('RETURN 1 AS one'),
    });
    expect(r.status).toBe(200);
    expect((await r.json()).rows).toEqual([[1]]);
  });

  it('start() rejects while running and leaves the service running', async () => {
    const service = newService(openDb());
    const url = await service.start();
    await expect(service.start()).rejects.toThrow(/already running/);
    await expect(service.runAndWaitForExit()).rejects.toThrow(/already running/);
    expect(service.isRunning()).toBe(true);
    expect((await fetch(`${url}/status`)).status).toBe(200);
  });

  it('a second start() while starting rejects; start() during a stop waits for it', async () => {
    const service = newService(openDb());
    const first = service.start();
    await expect(service.start()).rejects.toThrow(/already starting/);
    const url = await first;
    const stopping = service.stop();
    const restarted = await service.start();
    await stopping;
    expect(service.isRunning()).toBe(true);
    expect(restarted).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(url).toMatch(/^http:/);
    expect((await fetch(`${restarted}/status`)).status).toBe(200);
  });

  it('close() while starting lets the start finish, then stops and closes', async () => {
    const service = newService(openDb());
    const starting = service.start();
    await service.close();
    const url = await starting;
    expect(service.serviceStatus().message).toBe(NOT_INITED);
    await expect(fetch(`${url}/status`)).rejects.toThrow();
  });

  it('start() and runAndWaitForExit() reject once the service is closed', async () => {
    const service = newService(openDb());
    await service.close();
    await expect(service.start()).rejects.toThrow(NOT_INITED);
    await expect(service.runAndWaitForExit()).rejects.toThrow(NOT_INITED);
    expect(service.serviceStatus().message).toBe(NOT_INITED);
  });

  it('start() rejects with the reason when the address cannot be bound', async () => {
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    cleanup.push(() => new Promise<void>((resolve) => blocker.close(() => resolve())));
    const port = (blocker.address() as net.AddressInfo).port;
    const service = newService(openDb(), { queryPort: port });
    await expect(service.start()).rejects.toThrow(/EADDRINUSE/);
    expect(service.isRunning()).toBe(false);
    expect(service.serviceStatus().message).toBe(NOT_STARTED);
  });

  it('stop() when not running prints the status message to stderr and changes nothing', async () => {
    const service = newService(openDb());
    const lines = captureStderr();
    await service.stop();
    expect(lines.join('')).toContain(NOT_STARTED);
    await service.close();
    await service.stop();
    expect(lines.join('')).toContain(NOT_INITED);
    expect(service.serviceStatus().message).toBe(NOT_INITED);
  });

  it('stop() is idempotent, including concurrent calls', async () => {
    const service = newService(openDb());
    await service.start();
    const lines = captureStderr();
    await Promise.all([service.stop(), service.stop(), service.stop()]);
    expect(lines).toEqual([]); // concurrent calls share the one stop
    await service.stop();
    expect(lines.join('')).toContain(NOT_STARTED);
    expect(service.isRunning()).toBe(false);
  });

  it('close() stops a running service, is idempotent, and asyncDispose closes', async () => {
    const db = openDb();
    const service = new GraphDBService(db, { queryPort: 0 });
    const url = await service.start();
    await Promise.all([service.close(), service.close()]);
    await service.close();
    expect(service.serviceStatus().message).toBe(NOT_INITED);
    await expect(fetch(`${url}/status`)).rejects.toThrow();

    {
      await using disposable = new GraphDBService(db, { queryPort: 0 });
      await disposable.start();
      expect(disposable.isRunning()).toBe(true);
    }
    // Disposed: the database is free again.
    const again = newService(db);
    expect(again.serviceStatus().message).toBe(NOT_STARTED);
  });

  it('serviceStatus() never throws', async () => {
    const service = newService(openDb());
    expect(() => service.serviceStatus()).not.toThrow();
    await service.close();
    expect(() => service.serviceStatus()).not.toThrow();
    expect(service.serviceStatus().code).toBe('OK');
  });
});

describe('runAndWaitForExit', () => {
  it('installs SIGINT/SIGTERM handlers only while it waits and settles after stop()', async () => {
    const service = newService(openDb());
    const before = [process.listenerCount('SIGINT'), process.listenerCount('SIGTERM')];
    let url = '';
    let settled = false;
    const run = service.runAndWaitForExit({ onListening: (u) => (url = u) }).then(() => (settled = true));
    await vi.waitFor(() => expect(service.isRunning()).toBe(true));
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(process.listenerCount('SIGINT')).toBe(before[0]! + 1);
    expect(process.listenerCount('SIGTERM')).toBe(before[1]! + 1);
    expect(settled).toBe(false);
    await service.stop();
    await run;
    expect(settled).toBe(true);
    expect([process.listenerCount('SIGINT'), process.listenerCount('SIGTERM')]).toEqual(before);
  });

  it.each(['SIGINT', 'SIGTERM'] as const)('stops on %s', async (signal) => {
    const service = newService(openDb());
    const before = process.listenerCount(signal);
    const run = service.runAndWaitForExit();
    await vi.waitFor(() => expect(process.listenerCount(signal)).toBe(before + 1));
    process.emit(signal, signal);
    await run;
    expect(service.isRunning()).toBe(false);
    expect(service.serviceStatus().message).toBe(NOT_STARTED);
    expect(process.listenerCount(signal)).toBe(before);
  });

  it('settles when the service is closed', async () => {
    const service = newService(openDb());
    const run = service.runAndWaitForExit();
    await vi.waitFor(() => expect(service.isRunning()).toBe(true));
    await service.close();
    await run;
    expect(service.serviceStatus().message).toBe(NOT_INITED);
  });
});

describe('GraphDBService construction', () => {
  it('returns exactly the config object given, and the database', () => {
    const db = openDb();
    const config: ServiceConfig = { queryPort: 0, autoCompaction: false };
    const service = newService(db, config);
    expect(service.getServiceConfig()).toBe(config);
    expect(service.db()).toBe(db);
  });

  it('uses an empty config when none is given (defaults are not filled in)', async () => {
    const db = openDb();
    const service = new GraphDBService(db);
    cleanup.push(() => service.close());
    expect(service.getServiceConfig()).toEqual({});
    expect(service.pool?.size).toBe(2);
  });

  it('sizes the pool from threadNum, 0 selecting maxThreadNum', () => {
    const db = openDb(3);
    const auto = new GraphDBService(db, { threadNum: 0 });
    expect(auto.pool?.size).toBe(3);
    return auto.close().then(() => {
      const one = newService(db, { threadNum: 1 });
      expect(one.pool?.size).toBe(1);
    });
  });

  it('validates threadNum against the database maxThreadNum', () => {
    const db = openDb(2);
    expect(() => new GraphDBService(db, { threadNum: 3 })).toThrow(RangeError);
    expect(() => new GraphDBService(db, { threadNum: 3 })).toThrow(/threadNum/);
    expect(() => new GraphDBService(db, { threadNum: -1 })).toThrow(RangeError);
    expect(() => new GraphDBService(db, { threadNum: 1.5 })).toThrow(TypeError);
    expect(() => new GraphDBService(db, { threadNum: '2' as unknown as number })).toThrow(/threadNum/);
    // Nothing was taken over by the failed attempts.
    expect(databaseInternals(db).owner).toBeNull();
  });

  it('validates the other config fields with messages naming them', () => {
    const db = openDb();
    const bad: [unknown, RegExp, typeof TypeError | typeof RangeError][] = [
      [{ queryPort: 70000 }, /queryPort/, RangeError],
      [{ queryPort: '80' }, /queryPort/, TypeError],
      [{ hostStr: '' }, /hostStr/, TypeError],
      [{ hostStr: 1 }, /hostStr/, TypeError],
      [{ autoCompaction: 'yes' }, /autoCompaction/, TypeError],
      [{ maxBodyBytes: 0 }, /maxBodyBytes/, RangeError],
      [{ maxWaiting: -1 }, /maxWaiting/, RangeError],
      [{ requestTimeoutMs: 0 }, /requestTimeoutMs/, RangeError],
      [{ nope: 1 }, /nope/, TypeError],
      [null, /ServiceConfig/, TypeError],
    ];
    for (const [config, message, type] of bad) {
      expect(() => new GraphDBService(db, config as ServiceConfig)).toThrow(type);
      expect(() => new GraphDBService(db, config as ServiceConfig)).toThrow(message);
    }
    expect(() => new GraphDBService({} as Database)).toThrow(TypeError);
  });

  it('closes every embedded connection; later use throws CONNECTION_CLOSED', async () => {
    const db = openDb();
    const a = db.connect();
    const b = db.connect();
    await a.query('RETURN 1');
    const service = newService(db);
    expect(a.closed).toBe(true);
    expect(b.closed).toBe(true);
    await expect(a.query('RETURN 1')).rejects.toMatchObject({ code: 'CONNECTION_CLOSED' });
    expect(() => b.querySync('RETURN 1')).toThrow(GraphDBError);
    // While the service holds the database, no new embedded connections and no db.close().
    expect(() => db.connect()).toThrow(expect.objectContaining({ code: 'SERVICE_UNAVAILABLE' }));
    expect(() => db.close()).toThrow(expect.objectContaining({ code: 'SERVICE_UNAVAILABLE' }));
    await service.close();
    const c = db.connect();
    expect((await c.query('RETURN 2 AS x')).rows).toEqual([[2]]);
    c.close();
  });

  it('refuses while an embedded connection has a statement in flight, changing nothing', async () => {
    const db = openDb();
    const conn = db.connect();
    const running = conn.query('UNWIND range(1, 300000) AS x RETURN sum(x)');
    expect(() => new GraphDBService(db)).toThrow(expect.objectContaining({ code: 'SLOT_BUSY' }));
    expect(conn.closed).toBe(false);
    expect(databaseInternals(db).owner).toBeNull();
    await running;
    const service = newService(db);
    expect(conn.closed).toBe(true);
    expect(service.serviceStatus().message).toBe(NOT_STARTED);
  });

  it('refuses a database another service holds, until that one is closed', async () => {
    const db = openDb();
    const first = newService(db);
    expect(() => new GraphDBService(db)).toThrow(expect.objectContaining({ code: 'SERVICE_UNAVAILABLE' }));
    expect(() => new GraphDBService(db)).toThrow(/another GraphDBService/);
    await first.close();
    const second = newService(db);
    expect(second.pool?.size).toBe(2);
  });

  it('refuses a closed database', () => {
    const db = new Database(':memory:', { maxThreadNum: 1 });
    db.close();
    expect(() => new GraphDBService(db)).toThrow(expect.objectContaining({ code: 'CONNECTION_CLOSED' }));
  });

  it('lets db.close() work again after close(), with statements drained first', async () => {
    const db = new Database(':memory:', { maxThreadNum: 2 });
    const service = new GraphDBService(db);
    const lease = await service.acquireExecutionSlot();
    const running = lease.slot.executeTransactionalRequest(slowRequest());
    const closing = service.close();
    expect((await running).rows[0]![0]).toBe(45000150000);
    await closing;
    expect(() => db.close()).not.toThrow();
    expect(db.closed).toBe(true);
  });
});
