import { afterEach, describe, expect, it } from 'vitest';
import {
  Database,
  ExecutionSlot,
  ExecutionSlotLease,
  GraphDBError,
  GraphDBService,
  QueryResult,
  TpExecutionSlotPool,
} from '../../src/index.js';
import { nativeDb, request, sleep, slowRequest, waitFor } from './helpers.js';

let db: Database;
let service: GraphDBService;

async function setup(maxThreadNum = 2, threadNum = 0): Promise<TpExecutionSlotPool> {
  db = new Database(':memory:', { maxThreadNum });
  service = new GraphDBService(db, { queryPort: 0, threadNum, autoCompaction: false });
  return service.pool!;
}

afterEach(async () => {
  await service?.close();
  db?.close();
});

describe('execution slots', () => {
  it('runs a JSON request and resolves to a QueryResult', async () => {
    await setup();
    const lease = await service.acquireExecutionSlot();
    expect(lease).toBeInstanceOf(ExecutionSlotLease);
    expect(lease.slot).toBeInstanceOf(ExecutionSlot);
    const r = await lease.slot.executeTransactionalRequest(
      request('RETURN $a + 1 AS answer, $xs AS xs', {
        access_mode: 'read',
        parameters: { a: 41, xs: [1, 2] },
      }),
    );
    expect(r).toBeInstanceOf(QueryResult);
    expect(r.columns).toEqual(['answer', 'xs']);
    expect(r.rows).toEqual([[42, [1, 2]]]);
    expect(r.toObjects()).toEqual([{ answer: 42, xs: [1, 2] }]);
    lease.release();
  });

  it('rejects failing requests with GraphDBError codes', async () => {
    await setup();
    using lease = await service.acquireExecutionSlot();
    const { slot } = lease;
    await slot.executeTransactionalRequest(
      request('CREATE NODE TABLE Person(id INT64, name STRING, PRIMARY KEY(id))'),
    );
    await slot.executeTransactionalRequest(request('CREATE (:Person {id: 1, name: "A"})'));
    const cases: [string, string][] = [
      ['{oops', 'INVALID_REQUEST'],
      [request('MATCH (n) RETRN n'), 'QUERY_SYNTAX'],
      [request('MATCH (n:Nope) RETURN n'), 'QUERY_BINDING'],
      [request('CREATE (:Person {id: 2})', { access_mode: 'read' }), 'ACCESS_MODE_VIOLATION'],
      [request('CREATE (:Person {id: 1})'), 'CONSTRAINT_VIOLATION'],
      [request('RETURN 1 / 0'), 'QUERY_RUNTIME'],
    ];
    for (const [json, code] of cases) {
      const error = await slot.executeTransactionalRequest(json).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(GraphDBError);
      expect((error as GraphDBError).code).toBe(code);
    }
    const syntax = (await slot
      .executeTransactionalRequest(request('MATCH (n) RETRN n'))
      .catch((e) => e)) as GraphDBError;
    expect(syntax.line).toBe(1);
    expect(syntax.column).toBe(11);
    await expect(slot.executeTransactionalRequest(42 as unknown as string)).rejects.toThrow(TypeError);
  });

  it('refuses a second statement on a busy slot with SLOT_BUSY', async () => {
    await setup();
    using lease = await service.acquireExecutionSlot();
    const first = lease.slot.executeTransactionalRequest(slowRequest());
    expect(lease.slot.busy).toBe(true);
    await expect(lease.slot.executeTransactionalRequest(request('RETURN 1'))).rejects.toMatchObject({
      code: 'SLOT_BUSY',
    });
    expect((await first).rows).toEqual([[45000150000]]);
    // Free again as soon as the first statement settled.
    expect(lease.slot.busy).toBe(false);
    expect((await lease.slot.executeTransactionalRequest(request('RETURN 1 AS x'))).rows).toEqual([[1]]);
  });
});

describe('leases', () => {
  it('a lease has a single owner: slot throws after release, release is idempotent', async () => {
    const pool = await setup();
    const lease = await service.acquireExecutionSlot();
    const slot = lease.slot;
    expect(pool.available).toBe(1);
    lease.release();
    lease.release();
    expect(lease.released).toBe(true);
    expect(pool.available).toBe(2);
    expect(() => lease.slot).toThrow(expect.objectContaining({ code: 'CONNECTION_CLOSED' }));
    // A slot handle kept past release is dead, even once another lease holds the slot.
    const next = await service.acquireExecutionSlot();
    const other = await service.acquireExecutionSlot();
    await expect(slot.executeTransactionalRequest(request('RETURN 1'))).rejects.toMatchObject({
      code: 'CONNECTION_CLOSED',
    });
    expect([next.slot.id, other.slot.id].sort()).toEqual([0, 1]);
    next.release();
    other.release();
  });

  it('using releases the slot at the end of the block', async () => {
    const pool = await setup();
    {
      using lease = await service.acquireExecutionSlot();
      expect(pool.available).toBe(1);
      expect(pool.inUse).toBe(1);
      await lease.slot.executeTransactionalRequest(request('RETURN 1'));
    }
    expect(pool.available).toBe(2);
    expect(pool.inUse).toBe(0);
  });

  it('a slot released while its statement runs returns to the pool when it settles', async () => {
    const pool = await setup(1);
    const lease = await service.acquireExecutionSlot();
    const running = lease.slot.executeTransactionalRequest(slowRequest());
    lease.release();
    expect(pool.available).toBe(0);
    let acquired = false;
    const next = service.acquireExecutionSlot().then((l) => {
      acquired = true;
      return l;
    });
    await sleep(10);
    expect(acquired).toBe(false);
    await running;
    const nextLease = await next;
    expect(nextLease.slot.busy).toBe(false);
    nextLease.release();
  });

  it('keeps leases exclusive under many concurrent acquirers', async () => {
    const pool = await setup(3);
    const holders = new Map<number, number>();
    let concurrent = 0;
    let peak = 0;
    let violations = 0;
    const worker = async (i: number) => {
      using lease = await service.acquireExecutionSlot();
      const id = lease.slot.id;
      if (holders.has(id)) violations++;
      holders.set(id, i);
      peak = Math.max(peak, ++concurrent);
      if (i % 3 === 0) await lease.slot.executeTransactionalRequest(request('RETURN 1'));
      else await sleep(i % 4);
      holders.delete(id);
      concurrent--;
    };
    await Promise.all(Array.from({ length: 200 }, (_, i) => worker(i)));
    expect(violations).toBe(0);
    expect(peak).toBe(3);
    expect(pool.available).toBe(3);
    expect(pool.waiting).toBe(0);
  });

  it('hands slots to waiters in FIFO order', async () => {
    const pool = await setup(1);
    const first = await service.acquireExecutionSlot();
    const order: number[] = [];
    const waiters = [1, 2, 3, 4, 5].map((n) =>
      service.acquireExecutionSlot().then((lease) => {
        order.push(n);
        return lease;
      }),
    );
    expect(pool.waiting).toBe(5);
    // No barging: a free-slot probe does not jump the queue.
    expect(pool.tryAcquireExecutionSlot()).toBeNull();
    first.release();
    for (const waiter of waiters) (await waiter).release();
    expect(order).toEqual([1, 2, 3, 4, 5]);
    expect(pool.waiting).toBe(0);
  });

  it('an aborted wait rejects with the signal reason and leaves the queue', async () => {
    const pool = await setup(1);
    const held = await service.acquireExecutionSlot();
    const a = new AbortController();
    const b = new AbortController();
    const waitingA = service.acquireExecutionSlot({ signal: a.signal });
    const waitingB = service.acquireExecutionSlot({ signal: b.signal });
    const waitingC = service.acquireExecutionSlot();
    expect(pool.waiting).toBe(3);
    a.abort();
    await expect(waitingA).rejects.toMatchObject({ name: 'AbortError' });
    const reason = new Error('gave up');
    b.abort(reason);
    await expect(waitingB).rejects.toBe(reason);
    expect(pool.waiting).toBe(1);
    held.release();
    const c = await waitingC; // the slot went to the remaining waiter
    expect(c.slot.id).toBe(0);
    c.release();
    // An already aborted signal rejects at once, even with a free slot.
    await expect(service.acquireExecutionSlot({ signal: AbortSignal.abort() })).rejects.toMatchObject({
      name: 'AbortError',
    });
    expect(pool.available).toBe(1);
  });

  it('leases are unusable after the service closed; waiters are rejected', async () => {
    const pool = await setup(1);
    const lease = await service.acquireExecutionSlot();
    const slot = lease.slot;
    const waiting = service.acquireExecutionSlot();
    await service.close();
    await expect(waiting).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
    expect(() => lease.slot).toThrow(expect.objectContaining({ code: 'SERVICE_UNAVAILABLE' }));
    await expect(slot.executeTransactionalRequest(request('RETURN 1'))).rejects.toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
    });
    expect(() => lease.release()).not.toThrow();
    await expect(service.acquireExecutionSlot()).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
    expect(pool.closed).toBe(true);
    expect(pool.available).toBe(0);
    expect(service.pool).toBeNull();
  });
});

describe('TpExecutionSlotPool', () => {
  it('reports size, available, waiting and the executed query count', async () => {
    const pool = await setup(2);
    expect(pool).toBeInstanceOf(TpExecutionSlotPool);
    expect([pool.size, pool.available, pool.waiting, pool.inUse]).toEqual([2, 2, 0, 0]);
    expect(pool.getExecutedQueryNum()).toBe(0);
    const a = await pool.acquireExecutionSlot();
    const b = await pool.acquireExecutionSlot();
    const c = pool.acquireExecutionSlot();
    expect([pool.available, pool.waiting, pool.inUse]).toEqual([0, 1, 2]);
    await a.slot.executeTransactionalRequest(request('RETURN 1'));
    await b.slot.executeTransactionalRequest(request('RETURN 2'));
    await b.slot.executeTransactionalRequest('not json').catch(() => undefined);
    expect(pool.getExecutedQueryNum()).toBe(3);
    expect(b.slot.executedQueryNum).toBe(2);
    a.release();
    b.release();
    (await c).release();
    expect([pool.available, pool.waiting, pool.inUse]).toEqual([2, 0, 0]);
  });

  it('never runs more than pool-size statements at once, and reaches that many', async () => {
    await setup(3);
    const native = nativeDb(db);
    native.resetPeakActiveStatements();
    const run = async () => {
      using lease = await service.acquireExecutionSlot();
      return lease.slot.executeTransactionalRequest(slowRequest());
    };
    const results = await Promise.all(Array.from({ length: 12 }, run));
    for (const r of results) expect(r.rows).toEqual([[45000150000]]);
    expect(native.peakActiveStatements).toBeLessThanOrEqual(3);
    expect(native.peakActiveStatements).toBe(3);
  });

  it('a smaller threadNum bounds concurrency below maxThreadNum', async () => {
    await setup(3, 2);
    const native = nativeDb(db);
    native.resetPeakActiveStatements();
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        using lease = await service.acquireExecutionSlot();
        await lease.slot.executeTransactionalRequest(slowRequest(150_000));
      }),
    );
    expect(native.peakActiveStatements).toBe(2);
    await waitFor(() => native.activeStatements === 0);
  });
});
