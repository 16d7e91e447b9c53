// An auto-commit RUN whose statement is a short read runs at once on a free slot, as HTTP's
// inline path does (issue 34 item 19): no slot is leased and no result stream opened, and what
// the client sees is the same as over the streamed path (rows, typed values, failures).
import neo4j from 'neo4j-driver';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ExecutionSlot } from '../../src/runtime/pool.js';
import { type BoltFixture, startBolt } from './helpers.js';

let f: BoltFixture;

beforeAll(async () => {
  f = await startBolt({ threadNum: 2 });
  const session = f.driver.session();
  await session.run('CREATE NODE TABLE P(id INT64 PRIMARY KEY, name STRING, born DATE)');
  await session.run(
    "UNWIND range(1, 2000) AS i CREATE (:P {id: i, name: 'p' + string(i), born: date('2000-01-01')})",
  );
  await session.close();
});

afterAll(async () => {
  await f?.close();
});

afterEach(() => {
  vi.restoreAllMocks();
});

describe('short reads over Bolt', () => {
  it('run inline: a point read opens no result stream on a slot', async () => {
    const opened = vi.spyOn(ExecutionSlot.prototype, 'openCursor');
    const session = f.driver.session({ defaultAccessMode: neo4j.session.READ });
    try {
      for (const id of [1, 7, 1999]) {
        const result = await session.run('MATCH (p:P {id: $id}) RETURN p.name AS name, p.born AS born', {
          id: neo4j.int(id),
        });
        expect(result.records.map((r) => r.get('name'))).toEqual([`p${id}`]);
        expect(result.records[0]?.get('born').toString()).toBe('2000-01-01');
      }
      expect(opened).not.toHaveBeenCalled();
      // A statement that is not a short read (it scans every node) still streams from a slot.
      const all = await session.run('MATCH (p:P) RETURN count(*) AS n, max(p.name) AS top');
      expect(all.records[0]?.get('n').toNumber()).toBe(2000);
      expect(opened).toHaveBeenCalledTimes(1);
    } finally {
      await session.close();
    }
  });

  it('fail as they do on a slot, and leave the connection usable', async () => {
    const session = f.driver.session({ defaultAccessMode: neo4j.session.READ });
    try {
      await expect(session.run('MATCH (p:P {id: $id}) RETURN p.nope', { id: neo4j.int(1) })).rejects.toThrow(
        /Cannot find property nope/,
      );
      const again = await session.run('MATCH (p:P {id: 2}) RETURN p.name AS name');
      expect(again.records[0]?.get('name')).toBe('p2');
    } finally {
      await session.close();
    }
  });
});
