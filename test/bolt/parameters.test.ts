// A RUN's large parameter map is converted where the statement runs, not on the event loop
// (issue 34): the Bolt server leaves a message of 16 KiB or more with its parameters encoded
// (src/bolt/packstream.ts EncodedMap) and the slot decodes them (native/main/bolt_parameters.h)
// into the values the JavaScript path makes of a small map.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Structure } from '../../src/bolt/packstream.js';
import { Database } from '../../src/core/database.js';
import { GraphDBService } from '../../src/service/service.js';
import { waitFor } from '../runtime/helpers.js';
import { FAILURE, IGNORED, PULL, RawClient, RESET, RUN, SUCCESS } from './raw-client.js';

let service: GraphDBService;
let port: number;

beforeAll(async () => {
  // One slot: a lease the test holds keeps every Bolt statement waiting for it.
  service = new GraphDBService(new Database(':memory:'), {
    queryPort: 0,
    boltPort: 0,
    autoCompaction: false,
    console: false,
    threadNum: 1,
  });
  await service.start();
  port = service.boltPort as number;
});

afterAll(async () => {
  await service?.close();
});

/** Runs `query` with `params` and returns its records, or the FAILURE's code and message. */
async function runOn(client: RawClient, query: string, params: Record<string, unknown>) {
  client.send(RUN, query, params, {});
  client.send(PULL, { n: -1 });
  const first = await client.next();
  if (first.tag !== SUCCESS) {
    await client.next(); // the PULL's IGNORED
    client.send(RESET);
    expect((await client.next()).tag).toBe(SUCCESS);
    return { failure: first.meta };
  }
  return { records: (await client.summary()).records };
}

/** Padding that makes a RUN message larger than the server converts on the event loop. */
const PAD = 'x'.repeat(20_000);

const values: Record<string, unknown> = {
  ints: [1, -7, 2 ** 40, 2n ** 62n],
  mixed: [1, 2.5, null],
  whole: 3.0,
  text: 'naïve ✓',
  bytes: Buffer.from([0, 1, 254]),
  map: { b: 1, '10': 'ten', a: [true], '2': null, b2: { z: 1 } },
  nested: [[1, 2], [3]],
  // Embeddings as JavaScript writes them: whole numbers beside fractions, lists beside empty ones.
  embeddings: [[1, 0], [0.5, 0], []],
  date: new Structure(0x44, [19_000]),
  localDateTime: new Structure(0x64, [1_700_000_000, 123_456_000]),
  dateTime: new Structure(0x49, [1_700_000_000, 0, 3600]),
  zoned: new Structure(0x69, [1_700_000_000, 5_000, 'Europe/Paris']),
  duration: new Structure(0x45, [14, 3, 62, 500_000_000]),
  localTime: new Structure(0x74, [3_723_000_000_001]),
  time: new Structure(0x54, [3_723_500_000_000, -5400]),
};

describe('large parameter maps', () => {
  it('convert on the slot to the values the event loop makes of small ones', async () => {
    const client = new RawClient(port);
    await client.login(0x00000405);
    for (const [name, value] of Object.entries(values)) {
      const small = await runOn(client, 'RETURN $v AS v', { v: value });
      const large = await runOn(client, 'RETURN $v AS v, size($pad) AS pad', { v: value, pad: PAD });
      expect(small.records, name).toBeDefined();
      expect(large.records?.[0]?.[0], name).toEqual(small.records?.[0]?.[0]);
      expect(large.records?.[0]?.[1]).toBe(PAD.length);
    }
    // A map key given twice keeps its first place and its last value, as in the small form.
    client.send(RUN, 'RETURN $m AS m, size($pad) AS pad', { m: { a: 1, b: 2 }, pad: PAD }, {});
    client.send(PULL, { n: -1 });
    expect((await client.next()).tag).toBe(SUCCESS);
    expect((await client.summary()).records).toEqual([[{ a: 1, b: 2 }, PAD.length]]);
    client.close();
  });

  it('refuse what the engine cannot take with the same TypeError as small ones', async () => {
    const client = new RawClient(port);
    await client.login(0x00000405);
    const refused = [
      [new Structure(0x58, [7203, 1.0, 2.0]), /^(parameter \$v: )?QuiverDB has no spatial types/],
      [[1, 'a'], /^(parameter \$v: )?list parameter mixes element types INT64 and STRING/],
      [
        new Structure(0x64, [1, 1_001]),
        /^(parameter \$v: )?a LocalDateTime parameter has nanoseconds \(1001\)/,
      ],
      [new Structure(0x4e, [1, [], {}]), /^(parameter \$v: )?nodes, relationships and paths/],
      [[[1], ['a']], /^(parameter \$v: )?list parameter mixes element types INT64\[\] and STRING\[\]/],
    ] as const;
    for (const [value, message] of refused) {
      const small = await runOn(client, 'RETURN $v AS v', { v: value });
      const large = await runOn(client, 'RETURN $v AS v, $pad AS pad', { v: value, pad: PAD });
      expect(large.failure?.code).toBe('Neo.ClientError.Statement.TypeError');
      expect(large.failure?.code).toBe(small.failure?.code);
      expect(large.failure?.message).toMatch(message);
    }
    client.close();
  });

  it('leave the event loop free: /status answers while a 99,000-value RUN waits for the slot', async () => {
    const lease = await service.acquireExecutionSlot(); // the only slot
    const client = new RawClient(port);
    let released = false;
    try {
      await client.login(0x00000405);
      // 98,990 integers, then a Point the engine refuses: converted on the event loop, the
      // RUN would fail at once, before it ever waits for a slot.
      const p: unknown[] = Array.from({ length: 98_990 }, (_, i) => i);
      p.push(new Structure(0x58, [7203, 1.0, 2.0]));
      client.send(RUN, 'RETURN size($p) AS n', { p }, {});
      client.send(PULL, { n: -1 });
      await waitFor(() => (service.pool?.waiting ?? 0) === 1);
      expect((await fetch(`${service.url}/status`)).status).toBe(200);
      // Another connection's RUN is read and queued meanwhile too.
      const other = new RawClient(port);
      await other.login(0x00000405);
      other.send(RUN, 'RETURN 1 AS one', {}, {});
      other.send(PULL, { n: -1 });
      await waitFor(() => (service.pool?.waiting ?? 0) === 2);
      expect((await fetch(`${service.url}/status`)).status).toBe(200);
      lease.release();
      released = true;
      // The slot converts the parameters when it runs the statement: the Point is refused then.
      const failure = await client.next();
      expect(failure.tag).toBe(FAILURE);
      expect(failure.meta.code).toBe('Neo.ClientError.Statement.TypeError');
      expect(failure.meta.message).toMatch(/^parameter \$p: QuiverDB has no spatial types/);
      expect((await client.next()).tag).toBe(IGNORED);
      expect((await other.next()).tag).toBe(SUCCESS);
      expect((await other.summary()).records).toEqual([[1]]);
      other.close();
    } finally {
      if (!released) lease.release();
    }
    client.send(RESET);
    expect((await client.next()).tag).toBe(SUCCESS);
    // And a valid one of the same size runs.
    const valid = Array.from({ length: 98_990 }, (_, i) => i);
    expect(await runOn(client, 'RETURN size($p) AS n, $p[98990] AS last', { p: valid })).toEqual({
      records: [[98_990, 98_989]],
    });
    client.close();
  });
});
