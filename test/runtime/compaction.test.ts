import { afterEach, describe, expect, it, vi } from 'vitest';
import { Database, GraphDBService, type ServiceConfig } from '../../src/index.js';
import { nativeDb, request, sleep, waitFor } from './helpers.js';

let db: Database;
let service: GraphDBService;

async function withWrites(config: ServiceConfig, writes = 12): Promise<void> {
  db = new Database(':memory:', { maxThreadNum: 2 });
  service = new GraphDBService(db, {
    queryPort: 0,
    autoCompactionIntervalMs: 20,
    autoCompactionMinWrites: 10,
    ...config,
  });
  using lease = await service.acquireExecutionSlot();
  await lease.slot.executeTransactionalRequest(request('CREATE NODE TABLE N(id INT64, PRIMARY KEY(id))'));
  await lease.slot.executeTransactionalRequest(request('CREATE REL TABLE E(FROM N TO N)'));
  await lease.slot.executeTransactionalRequest(request('UNWIND range(1, 20) AS i CREATE (:N {id: i})'));
  for (let i = 1; i < writes; i++) {
    await lease.slot.executeTransactionalRequest(
      request('MATCH (a:N {id: $a}), (b:N {id: $b}) CREATE (a)-[:E]->(b)', {
        parameters: { a: i, b: i + 1 },
      }),
    );
  }
}

afterEach(async () => {
  vi.restoreAllMocks();
  await service?.close();
  db?.close();
});

describe('auto-compaction', () => {
  it('compacts once the running service is idle and enough writes accumulated', async () => {
    await withWrites({});
    const native = nativeDb(db);
    expect(native.writesSinceCompaction).toBeGreaterThanOrEqual(10);
    await sleep(100);
    expect(native.writesSinceCompaction).toBeGreaterThanOrEqual(10); // not running yet: no loop
    await service.start();
    await waitFor(() => native.writesSinceCompaction === 0, 5000, 'auto-compaction');
    // The data is intact afterwards.
    using lease = await service.acquireExecutionSlot();
    const r = await lease.slot.executeTransactionalRequest(request('MATCH (:N)-[e:E]->(:N) RETURN count(e)'));
    expect(r.rows).toEqual([[11]]);
  });

  it('does not compact while a slot is leased, nor below the write threshold', async () => {
    await withWrites({ autoCompactionMinWrites: 1000 });
    const native = nativeDb(db);
    await service.start();
    await sleep(150);
    expect(native.writesSinceCompaction).toBeGreaterThan(0);
    await service.close();
    db.close();

    await withWrites({});
    const busy = nativeDb(db);
    const lease = await service.acquireExecutionSlot();
    await service.start();
    await sleep(150);
    expect(busy.writesSinceCompaction).toBeGreaterThanOrEqual(10);
    lease.release();
    await waitFor(() => busy.writesSinceCompaction === 0, 5000, 'auto-compaction after release');
  });

  it('does not run with autoCompaction false, and stops with the service', async () => {
    await withWrites({ autoCompaction: false });
    const native = nativeDb(db);
    await service.start();
    await sleep(150);
    expect(native.writesSinceCompaction).toBeGreaterThanOrEqual(10);
    await service.close();
    db.close();

    await withWrites({});
    const stopped = nativeDb(db);
    await service.start();
    await service.stop();
    await sleep(150);
    expect(stopped.writesSinceCompaction).toBeGreaterThanOrEqual(10);
  });
});
