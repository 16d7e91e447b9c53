// Issue 34, items 1 and 4: a statement of tens of thousands of expressions (a WHERE of 10,000
// conjuncts, a map literal of 60,000 entries) is parsed, bound and planned on a worker thread,
// under its time limit, while the event loop goes on serving other requests; past the limits of
// its size it fails with QUERY_SYNTAX. Before, such a statement was compiled on the event loop
// (the inline short-read attempt) with no regard for timeout_ms, and 35,000 conjuncts crashed
// the process.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Database, GraphDBService } from '../../src/index.js';
import { type HttpAnswer, sendRaw } from '../runtime/helpers.js';

let db: Database;
let service: GraphDBService;
let base: string;

/** `count` conjuncts `x > -i` (all TRUE for x = 1), joined by AND. */
function conjuncts(count: number): string {
  return Array.from({ length: count }, (_, i) => `x > -${i}`).join(' AND ');
}

/** A read whose compiling is its whole cost: one row, 10,000 conjuncts and a map of 60,000 keys. */
const BIG =
  `UNWIND [1] AS x WITH x WHERE ${conjuncts(10000)} ` +
  `RETURN x, {${Array.from({ length: 60000 }, (_, i) => `k${i}: ${i}`).join(', ')}}.k59999 AS k`;

beforeAll(async () => {
  db = new Database(':memory:', { maxThreadNum: 2 });
  service = new GraphDBService(db, { queryPort: 0, autoCompaction: false, maxBodyBytes: 4 << 20 });
  base = await service.start();
});

afterAll(async () => {
  await service.close();
  db.close();
});

function post(request: unknown): Promise<HttpAnswer> {
  return sendRaw(base, 'POST', '/cypher', { 'content-type': 'application/json' }, JSON.stringify(request));
}

describe('a large statement over HTTP', () => {
  it('is compiled off the event loop: /status answers while it runs', async () => {
    let answered = false;
    const big = post({ query: BIG }).then((answer) => {
      answered = true;
      return answer;
    });
    // /status, again and again until the statement answers. One answered while a slot was in
    // use could only be answered while the statement was being compiled or run elsewhere.
    let seenBusy = false;
    while (!answered) {
      const status = await sendRaw(base, 'GET', '/status', {});
      expect(status.status).toBe(200);
      const slots = (JSON.parse(status.body) as { slots: { inUse: number } }).slots;
      if (!answered && slots.inUse > 0) seenBusy = true;
    }
    const answer = await big;
    expect(answer.status, answer.body.slice(0, 300)).toBe(200);
    expect(answer.json().rows).toEqual([[1, 59999]]);
    expect(seenBusy).toBe(true);
  });

  it('stops compiling at its timeout_ms', async () => {
    const answer = await post({ query: BIG, timeout_ms: 1 });
    expect(answer.status, answer.body.slice(0, 300)).toBe(408);
    expect(answer.json().error?.code).toBe('QUERY_TIMEOUT');
  });

  it('fails with QUERY_SYNTAX naming the limit past the size a statement may have', async () => {
    const chain = await post({ query: `UNWIND [1] AS x WITH x WHERE ${conjuncts(35000)} RETURN x` });
    expect(chain.status).toBe(400);
    expect(chain.json().error?.code).toBe('QUERY_SYNTAX');
    expect(chain.json().error?.message).toContain('more than 10000 operands');
    expect(chain.body.length).toBeLessThan(4000);
    const list = await post({ query: `RETURN size([${Array(100000).fill('1').join(',')}]) AS n` });
    expect(list.status).toBe(400);
    expect(list.json().error?.message).toContain('more than 100000 expression nodes');
    // The service is still there.
    expect((await post({ query: 'RETURN 1 AS one' })).json().rows).toEqual([[1]]);
  });
});

describe('a large statement in process', () => {
  it('leaves the event loop free while it compiles', async () => {
    const own = new Database(':memory:');
    const conn = own.connect();
    try {
      const order: string[] = [];
      const query = conn.query(BIG).then((result) => {
        order.push('query');
        return result;
      });
      setImmediate(() => order.push('loop'));
      const result = await query;
      expect(result.rows).toEqual([[1, 59999]]);
      // Compiled on the loop, it would have answered before the loop turned.
      expect(order).toEqual(['loop', 'query']);
      await expect(conn.query(BIG, {}, { timeoutMs: 1 })).rejects.toMatchObject({ code: 'QUERY_TIMEOUT' });
    } finally {
      conn.close();
      own.close();
    }
  });
});
