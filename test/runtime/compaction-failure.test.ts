import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { Database, ExecutionSlot, GraphDBService } from '../../src/index.js';
import { request, waitFor } from './helpers.js';

beforeEach(() => {
  vi.spyOn(ExecutionSlot.prototype, 'compact').mockImplementation(() =>
    Promise.reject(new Error('disk on fire')),
  );
});

let db: Database;
let service: GraphDBService;

afterEach(async () => {
  vi.restoreAllMocks();
  await service?.close();
  db?.close();
});

it('logs a failed auto-compaction to stderr, releases its slot and keeps serving', async () => {
  db = new Database(':memory:', { maxThreadNum: 2 });
  service = new GraphDBService(db, {
    queryPort: 0,
    autoCompactionIntervalMs: 20,
    autoCompactionMinWrites: 1,
  });
  {
    using lease = await service.acquireExecutionSlot();
    await lease.slot.executeTransactionalRequest(request('CREATE NODE TABLE N(id INT64, PRIMARY KEY(id))'));
    await lease.slot.executeTransactionalRequest(request('UNWIND range(1, 5) AS i CREATE (:N {id: i})'));
  }
  const logged: string[] = [];
  const write = process.stderr.write.bind(process.stderr);
  vi.spyOn(process.stderr, 'write').mockImplementation(((chunk: string | Uint8Array, ...rest: never[]) => {
    if (String(chunk).includes('compaction')) {
      logged.push(String(chunk));
      return true;
    }
    return write(chunk, ...rest);
  }) as typeof process.stderr.write);
  const url = await service.start();
  await waitFor(() => logged.length > 0, 5000, 'a logged compaction failure');
  expect(logged[0]).toMatch(/auto-compaction failed: disk on fire/);
  // Backs off: retries after 40, 80, 160 ms ... rather than every 20 ms tick.
  await new Promise((resolve) => setTimeout(resolve, 200));
  expect(logged.length).toBeLessThanOrEqual(4);
  expect(service.isRunning()).toBe(true);
  const r = await fetch(`${url}/cypher`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: request('MATCH (n:N) RETURN count(n)'),
  });
  expect((await r.json()).rows).toEqual([[5]]);
  await waitFor(() => service.pool?.available === 2, 1000, 'the compaction slot to return');
});
