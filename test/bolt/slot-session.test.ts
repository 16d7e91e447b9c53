// The pool's protocol entry points the Bolt server runs on (src/service/pool.ts):
// runInSessionOnSlot (access modes, typed parameters and results, the slot's session) and
// resetSession.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Database } from '../../src/core/database.js';
import { QueryResult } from '../../src/core/query-result.js';
import { TypedParameter } from '../../src/native/addon.js';
import { type ExecutionSlotLease, resetSession, runInSessionOnSlot } from '../../src/service/pool.js';
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
  return new QueryResult(await runInSessionOnSlot(lease.slot, query, params, { accessMode, inSession }));
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

describe('runInSessionOnSlot', () => {
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
    await runInSessionOnSlot(lease.slot, 'BEGIN TRANSACTION', {}, { accessMode: undefined, inSession: true });
    await run('CREATE (:P {id: 2})', {}, 'update', true);
    expect((await run('MATCH (p:P) RETURN count(*)', {}, 'read', true)).rows).toEqual([[1]]);
    await resetSession(lease.slot);
    expect((await run('MATCH (p:P) RETURN count(*)', {}, 'read', true)).rows).toEqual([[0]]);
    // Without the session, a transaction cannot be opened.
    await expect(
      runInSessionOnSlot(lease.slot, 'BEGIN TRANSACTION', {}, { accessMode: undefined, inSession: false }),
    ).rejects.toThrow(/transaction/i);
  });

  it('forgets session settings on reset', async () => {
    await run('CALL disable_map_key_check = false', {}, 'schema', true);
    const duplicate = 'RETURN map([1, 1], [2, 3]) AS m';
    await expect(run(duplicate, {}, 'read', true)).rejects.toThrow();
    await resetSession(lease.slot);
    await expect(run(duplicate, {}, 'read', true)).resolves.toBeDefined();
  });
});
