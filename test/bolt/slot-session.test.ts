// The slot's protocol entry points the Bolt server runs on (src/runtime/pool.ts):
// runStatement (access modes, typed parameters and results, the slot's session), openCursor
// and fetchPacked (the same, as a result stream) and resetSession.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Database } from '../../src/core/database.js';
import { QueryResult } from '../../src/core/query-result.js';
import { rowsOf, TypedParameter } from '../../src/native/addon.js';
import type { ExecutionSlotLease } from '../../src/runtime/pool.js';
import { GraphDBService } from '../../src/service/service.js';

let service: GraphDBService;
let lease: ExecutionSlotLease;

type Mode = 'read' | 'insert' | 'update' | 'schema';
async function run(
  query: string,
  params: Record<string, unknown> = {},
  accessMode: Mode = 'schema',
  inSession = false,
) {
  return new QueryResult(await lease.slot.runStatement(query, params, { accessMode, inSession }));
}

beforeEach(async () => {
  service = new GraphDBService(new Database(':memory:'), { threadNum: 2 });
  lease = await service.acquireExecutionSlot();
  await run(
    'CREATE NODE TABLE P(id INT64, d DATE, x DOUBLE, t TIMESTAMP, tz TIMESTAMP_TZ, i INTERVAL, PRIMARY KEY(id))',
  );
});

afterEach(async () => {
  lease.release();
  await service.close();
});

describe('ExecutionSlot.runStatement', () => {
  it('refuses what the access mode does not allow, before it runs', async () => {
    await expect(run('CREATE (:P {id: 1})', {}, 'read')).rejects.toMatchObject({
      code: 'ACCESS_MODE_VIOLATION',
    });
    await expect(run('CREATE NODE TABLE Q(id INT64, PRIMARY KEY(id))', {}, 'update')).rejects.toMatchObject({
      code: 'ACCESS_MODE_VIOLATION',
    });
    expect((await run('MATCH (p:P) RETURN count(*) AS n', {}, 'read')).rows).toEqual([[0]]);
    await expect(run('RETURN 1; RETURN 2', {}, 'read')).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
  });

  it('takes typed parameters and gives typed values back, in properties too', async () => {
    await run('CREATE (:P {id: 1, d: $d, x: $x, t: $t, tz: $tz, i: $i})', {
      d: TypedParameter.date(19000),
      x: TypedParameter.double(2),
      t: TypedParameter.timestamp(1_700_000_000_123_456n, false),
      tz: TypedParameter.timestamp(-5n, true),
      i: TypedParameter.interval(14, -3, 3_000_001n),
    });
    const result = await run('MATCH (p:P) RETURN p, p.d, p.x, p.t, p.tz, p.i, 2.5 AS y', {}, 'read');
    expect(result.types.slice(1)).toEqual([
      'DATE',
      'DOUBLE',
      'TIMESTAMP',
      'TIMESTAMP_TZ',
      'INTERVAL',
      'DOUBLE',
    ]);
    const [node, d, x, t, tz, i, y] = result.rows[0] as unknown[];
    expect(d).toEqual(TypedParameter.date(19000));
    expect(x).toBeInstanceOf(Number);
    expect(Number(x)).toBe(2);
    expect(y).toBe(2.5);
    expect(t).toEqual(TypedParameter.timestamp(1_700_000_000_123_456n, false));
    expect(tz).toEqual(TypedParameter.timestamp(-5n, true));
    expect(i).toEqual(TypedParameter.interval(14, -3, 3_000_001n));
    expect((node as Record<string, unknown>).d).toEqual(TypedParameter.date(19000));
    expect((node as Record<string, unknown>).x).toBeInstanceOf(Number);
  });

  it('refuses a typed parameter out of range with a clear error', async () => {
    const bad = TypedParameter.date(2 ** 40);
    await expect(run('RETURN $d', { d: bad })).rejects.toThrow(/out of range/);
  });

  it('keeps a transaction open in the session until reset, which rolls it back', async () => {
    // With an access mode a transaction statement is refused; without one it runs.
    await expect(run('BEGIN TRANSACTION', {}, 'update', true)).rejects.toMatchObject({
      code: 'INVALID_REQUEST',
    });
    await lease.slot.runStatement('BEGIN TRANSACTION', {}, { accessMode: undefined, inSession: true });
    await run('CREATE (:P {id: 2})', {}, 'update', true);
    expect((await run('MATCH (p:P) RETURN count(*)', {}, 'read', true)).rows).toEqual([[1]]);
    await lease.slot.resetSession();
    expect((await run('MATCH (p:P) RETURN count(*)', {}, 'read', true)).rows).toEqual([[0]]);
    // Without the session, a transaction cannot be opened.
    await expect(
      lease.slot.runStatement('BEGIN TRANSACTION', {}, { accessMode: undefined, inSession: false }),
    ).rejects.toThrow(/transaction/i);
  });

  it('forgets session settings on reset', async () => {
    await run('CALL disable_map_key_check = false', {}, 'schema', true);
    const duplicate = 'RETURN map([1, 1], [2, 3]) AS m';
    await expect(run(duplicate, {}, 'read', true)).rejects.toThrow();
    await lease.slot.resetSession();
    await expect(run(duplicate, {}, 'read', true)).resolves.toBeDefined();
  });
});

describe('ExecutionSlot.openCursor', () => {
  it('streams typed values batch by batch, with the summary on the last', async () => {
    await run('CREATE (:P {id: 1, d: $d, x: $x})', {
      d: TypedParameter.date(19000),
      x: TypedParameter.double(2),
    });
    const header = await lease.slot.openCursor(
      'MATCH (p:P) UNWIND range(1, 5) AS k RETURN k, p.d, p.x, $y AS y',
      { y: TypedParameter.double(3) },
      { accessMode: 'read', inSession: false },
    );
    expect(header[0]).toEqual(['k', 'p.d', 'p.x', 'y']);
    expect(header[2]).toEqual([]);
    const [first, firstDone] = await lease.slot.fetchPacked(2);
    expect(firstDone).toBe(false);
    const rows = rowsOf(first);
    expect(rows.map((r) => r[0])).toEqual([1, 2]);
    expect(rows[0]?.[1]).toEqual(TypedParameter.date(19000));
    expect(rows[0]?.[2]).toBeInstanceOf(Number);
    expect(rows[0]?.[3]).toBeInstanceOf(Number);
    // The slot runs nothing else while the stream is open.
    await expect(run('RETURN 1')).rejects.toMatchObject({ code: 'SLOT_BUSY' });
    const [rest, done] = await lease.slot.fetchPacked(10);
    expect(done).toBe(true);
    expect(rowsOf(rest).map((r) => r[0])).toEqual([3, 4, 5]);
    expect(rowsOf(rest)[2]?.[1]).toEqual(TypedParameter.date(19000));
    expect((await run('RETURN 1 AS one')).rows).toEqual([[1]]);
  });

  it('refuses what the access mode does not allow, and runs a write at once with its counters', async () => {
    await expect(
      lease.slot.openCursor('CREATE (:P {id: 3})', {}, { accessMode: 'read', inSession: false }),
    ).rejects.toMatchObject({ code: 'ACCESS_MODE_VIOLATION' });
    await expect(
      lease.slot.openCursor('RETURN 1; RETURN 2', {}, { accessMode: 'read', inSession: false }),
    ).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
    await lease.slot.openCursor(
      'CREATE (:P {id: 3}) RETURN 7 AS seven',
      {},
      {
        accessMode: 'update',
        inSession: false,
      },
    );
    const [last, done] = await lease.slot.fetchPacked(10);
    expect(done).toBe(true);
    expect(rowsOf(last)).toEqual([[7]]);
    expect(last[4]).toBe(1); // nodes created
    expect((await run('MATCH (p:P) RETURN count(*)', {}, 'read')).rows).toEqual([[1]]);
  });

  it("streams in the session's transaction, and a closed stream leaves the transaction open", async () => {
    await lease.slot.runStatement('BEGIN TRANSACTION', {}, { accessMode: undefined, inSession: true });
    await run('CREATE (:P {id: 4})', {}, 'update', true);
    await lease.slot.openCursor(
      'MATCH (p:P) UNWIND range(1, 100) AS k RETURN p.id',
      {},
      {
        accessMode: 'read',
        inSession: true,
      },
    );
    const [batch] = await lease.slot.fetchPacked(3);
    expect(rowsOf(batch)).toEqual([[4], [4], [4]]);
    await lease.slot.closeStream();
    expect((await run('MATCH (p:P) RETURN count(*)', {}, 'read', true)).rows).toEqual([[1]]);
    await lease.slot.resetSession();
    expect((await run('MATCH (p:P) RETURN count(*)', {}, 'read', true)).rows).toEqual([[0]]);
  });
});
