// The anomaly tests of the LDBC SNB ACID test suite (Waudby et al., "Towards Testing ACID
// Compliance in the LDBC Social Network Benchmark"), on the embedded API: each test sets up a
// small graph, runs write transactions and read transactions concurrently from several
// connections (each with its own native thread), and then checks that the anomaly did not
// happen. The database may serialise transactions or abort some with a conflict; a refused
// transaction is counted, never an anomaly. Each test is bounded by LIMITS.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Connection } from '../../src/index.js';
import {
  type Backend,
  idSequence,
  pause,
  readValue,
  runWorkload,
  sleep,
  TestDatabase,
  type TxOptions,
  type TxOutcome,
  transaction,
  type WorkloadStats,
} from './helpers.js';

const LIMITS = { durationMs: 350, maxTransactions: 600, minPerWorker: 12, hardLimitMs: 5000 };
const backends: Backend[] = ['in-memory', 'on-disk'];

type Status = TxOutcome<unknown>['status'];

function pick<T>(items: readonly T[]): T {
  return items[Math.floor(Math.random() * items.length)]!;
}

/** Collects anomalies; the test asserts the list stays empty (the first few are kept). */
class Violations {
  readonly list: string[] = [];
  add(message: string): void {
    if (this.list.length < 10) this.list.push(message);
  }
}

/** The workload must have exercised both sides, or a passing test would prove nothing. */
function expectExercised(stats: WorkloadStats, writes: number, reads: number): void {
  expect(stats.maxInFlight).toBeGreaterThanOrEqual(2);
  expect(writes).toBeGreaterThanOrEqual(10);
  expect(reads).toBeGreaterThanOrEqual(10);
}

/**
 * One anomaly workload: the first `writers` connections run write transactions, the others run
 * read transactions (READ ONLY and read-write in turn).
 */
interface Anomaly<W, R> {
  writers?: number;
  /** The body of write transaction `id` (ids are unique within the test). */
  write: (c: Connection, id: number) => Promise<W>;
  /** How write transaction `id` ends (default: COMMIT). */
  writeOptions?: (id: number) => TxOptions;
  /** Sees every committed write transaction. */
  committed?: (id: number, value: W) => void;
  /** The body of a read transaction. */
  read?: (c: Connection) => Promise<R>;
  /** Returns a description of the anomaly a read transaction saw, if any. */
  check?: (value: R) => string | undefined;
}

/**
 * Runs `anomaly` on the connections of `t` and asserts that it ran concurrently and saw no
 * anomaly. Returns the number of committed write transactions.
 */
async function runAnomaly<W, R>(t: TestDatabase, anomaly: Anomaly<W, R>): Promise<number> {
  const writers = anomaly.writers ?? 2;
  const nextId = idSequence();
  const violations = new Violations();
  let writes = 0;
  let committed = 0;
  let reads = 0;
  const writer = (conn: Connection) => async (): Promise<Status> => {
    const id = nextId();
    const outcome = await transaction(conn, (c) => anomaly.write(c, id), anomaly.writeOptions?.(id));
    if (outcome.status !== 'aborted') writes++;
    if (outcome.status === 'committed') {
      committed++;
      anomaly.committed?.(id, outcome.value);
    }
    return outcome.status;
  };
  const reader = (conn: Connection, readOnly: boolean) => async (): Promise<Status> => {
    const outcome = await transaction(conn, (c) => anomaly.read!(c), { readOnly });
    if (outcome.status === 'committed') {
      reads++;
      const problem = anomaly.check?.(outcome.value);
      if (problem) violations.add(problem);
    }
    return outcome.status;
  };
  const stats = await runWorkload(
    LIMITS,
    t.conns.map((conn, i) => (i < writers ? writer(conn) : reader(conn, (i - writers) % 2 === 0))),
  );
  expectExercised(stats, writes, writers < t.conns.length ? reads : writes);
  expect(violations.list).toEqual([]);
  return committed;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

describe.each(backends)('ACID anomaly tests (%s)', (backend) => {
  let t: TestDatabase;

  beforeEach(() => {
    t = new TestDatabase(backend, 4);
  });

  afterEach(() => {
    t.close();
  });

  /** Runs `check` on the final state, then again after close and reopen when on disk. */
  async function checkFinal(check: () => Promise<void>): Promise<void> {
    await check();
    t.reopen();
    await check();
  }

  async function personSchema(extraColumns = '', relColumns = ''): Promise<void> {
    await t.conn.query(`CREATE NODE TABLE Person(id INT64, version INT64${extraColumns}, PRIMARY KEY(id))`);
    await t.conn.query(`CREATE REL TABLE KNOWS(FROM Person TO Person${relColumns})`);
  }

  const version = (c: Connection, id: number) =>
    readValue(c, 'MATCH (p:Person {id: $id}) RETURN p.version', { id }) as Promise<number>;
  const setVersion = (c: Connection, id: number, value: number) =>
    c.query('MATCH (p:Person {id: $id}) SET p.version = $value', { id, value });

  it('Atomicity: a transaction applies all of its writes or none (commit, rollback, failure)', async () => {
    await personSchema();
    await t.conn.query('CREATE (:Person {id: 0, version: 0})');
    const committed = new Set<number>();
    // Transaction id commits when id % 3 = 0, rolls back when 1, fails (duplicate key) when 2.
    await runAnomaly(t, {
      write: async (c, id) => {
        await c.query('CREATE (:Person {id: $id, version: 0})', { id });
        await pause();
        await c.query('MATCH (a:Person {id: 0}), (b:Person {id: $id}) CREATE (a)-[:KNOWS]->(b)', { id });
        await c.query('MATCH (a:Person {id: 0}) SET a.version = a.version + 1');
        if (id % 3 === 2) {
          const error = await c.query('CREATE (:Person {id: 0, version: 0})').catch((e: unknown) => e);
          expect(error).toMatchObject({ code: 'CONSTRAINT_VIOLATION' });
        }
      },
      writeOptions: (id) => ({ rollback: id % 3 !== 0 }),
      committed: (id) => committed.add(id),
      read: async (c) => {
        const [hub, knows] = (
          await c.query(
            'MATCH (a:Person {id: 0}) OPTIONAL MATCH (a)-[k:KNOWS]->() RETURN a.version, count(k)',
          )
        ).rows[0] as [number, number];
        await pause();
        return [hub, knows, (await readValue(c, 'MATCH (p:Person) RETURN count(*)')) as number];
      },
      check: ([hub, knows, persons]) =>
        hub === knows && persons - 1 === knows
          ? undefined
          : `hub version ${hub}, ${knows} KNOWS, ${persons} persons`,
    });
    await checkFinal(async () => {
      const ids = (await t.rows('MATCH (p:Person) WHERE p.id <> 0 RETURN p.id ORDER BY p.id')).map(
        (r) => r[0],
      );
      expect(ids).toEqual([...committed].sort((a, b) => a - b));
      expect(await t.value('MATCH (:Person {id: 0})-[k:KNOWS]->() RETURN count(k)')).toBe(committed.size);
      expect(await t.value('MATCH (a:Person {id: 0}) RETURN a.version')).toBe(committed.size);
    });
  });

  it('G0 (dirty write): concurrent writers leave one order of versions on both nodes and the edge', async () => {
    await personSchema(', versionHistory INT64[]', ', versionHistory INT64[]');
    const pairs = [
      [1, 2],
      [3, 4],
    ] as const;
    for (const [a, b] of pairs) {
      await t.conn.query(
        'CREATE (a:Person {id: $a, version: 0, versionHistory: []})-[:KNOWS {versionHistory: []}]->' +
          '(b:Person {id: $b, version: 0, versionHistory: []})',
        { a, b },
      );
    }
    const committed: number[] = [];
    // The version histories of a pair, one statement each (a reader) or in one (the final check).
    const histories = async (c: Connection, [a, b]: readonly [number, number], separately: boolean) => {
      if (!separately) {
        return (
          await c.query(
            'MATCH (a:Person {id: $a})-[k:KNOWS]->(b:Person {id: $b}) ' +
              'RETURN a.versionHistory, k.versionHistory, b.versionHistory',
            { a, b },
          )
        ).rows[0] as number[][];
      }
      const ha = await readValue(c, 'MATCH (a:Person {id: $a}) RETURN a.versionHistory', { a });
      await pause();
      const hk = await readValue(c, 'MATCH (:Person {id: $a})-[k:KNOWS]->() RETURN k.versionHistory', { a });
      await pause();
      const hb = await readValue(c, 'MATCH (b:Person {id: $b}) RETURN b.versionHistory', { b });
      return [ha, hk, hb] as number[][];
    };
    await runAnomaly(t, {
      writers: 3,
      write: async (c, id) => {
        const [a, b] = pick(pairs);
        await c.query('MATCH (a:Person {id: $a}) SET a.versionHistory = list_append(a.versionHistory, $id)', {
          a,
          id,
        });
        await pause();
        await c.query(
          'MATCH (:Person {id: $a})-[k:KNOWS]->(:Person {id: $b}) SET k.versionHistory = list_append(k.versionHistory, $id)',
          { a, b, id },
        );
        await pause();
        await c.query('MATCH (b:Person {id: $b}) SET b.versionHistory = list_append(b.versionHistory, $id)', {
          b,
          id,
        });
      },
      committed: (id) => committed.push(id),
      read: (c) => histories(c, pick(pairs), true),
      check: ([ha, hk, hb]) =>
        same(ha, hk) && same(hk, hb) ? undefined : `histories ${JSON.stringify([ha, hk, hb])}`,
    });
    await checkFinal(async () => {
      const all: number[] = [];
      for (const pair of pairs) {
        const [ha, hk, hb] = await histories(t.conn, pair, false);
        expect(hk).toEqual(ha);
        expect(hb).toEqual(ha);
        all.push(...ha!);
      }
      expect(all.sort((x, y) => x - y)).toEqual([...committed].sort((x, y) => x - y));
    });
  });

  it('G1a (aborted read): no transaction reads a write that was rolled back or failed', async () => {
    await personSchema();
    await t.conn.query('CREATE (:Person {id: 1, version: 1})');
    await runAnomaly(t, {
      write: async (c, id) => {
        await setVersion(c, 1, 2);
        await pause();
        if (id % 2 === 0) {
          const error = await c.query('CREATE (:Person {id: 1, version: 3})').catch((e: unknown) => e);
          expect(error).toMatchObject({ code: 'CONSTRAINT_VIOLATION' });
        }
      },
      writeOptions: () => ({ rollback: true }),
      read: (c) => version(c, 1),
      check: (v) => (v === 1 ? undefined : `read version ${v} of an aborted transaction`),
    });
    await checkFinal(async () => {
      expect(await t.rows('MATCH (p:Person) RETURN p.id, p.version')).toEqual([[1, 1]]);
    });
  });

  it('G1b (intermediate read): no transaction reads a value that was later overwritten by its writer', async () => {
    await personSchema();
    await t.conn.query('CREATE (:Person {id: 1, version: 1})');
    // Committed versions are odd; the intermediate version of every writer is even.
    await runAnomaly(t, {
      write: async (c, id) => {
        await setVersion(c, 1, 2 * id);
        await pause();
        await setVersion(c, 1, 2 * id + 1);
      },
      read: (c) => version(c, 1),
      check: (v) => (v % 2 === 1 ? undefined : `read intermediate version ${v}`),
    });
    await checkFinal(async () => {
      expect(((await t.value('MATCH (p:Person {id: 1}) RETURN p.version')) as number) % 2).toBe(1);
    });
  });

  it('G1c (circular information flow): no two transactions each read what the other wrote', async () => {
    await personSchema();
    await t.conn.query('CREATE (:Person {id: 1, version: 0}), (:Person {id: 2, version: 0})');
    // readFrom.get(t) = the transaction whose version t read (0: the initial one).
    const readFrom = new Map<number, number>();
    await runAnomaly(t, {
      writers: 4,
      write: async (c, id) => {
        const [written, read] = pick([
          [1, 2],
          [2, 1],
        ] as const);
        await setVersion(c, written, id);
        await pause();
        return version(c, read);
      },
      committed: (id, from) => readFrom.set(id, from),
    });
    const violations = new Violations();
    for (const [reader, writer] of readFrom) {
      if (writer !== 0 && !readFrom.has(writer))
        violations.add(`${reader} read from ${writer}, which did not commit`);
    }
    // The reads-from graph of committed transactions must be acyclic.
    const state = new Map<number, 'open' | 'done'>();
    for (const start of readFrom.keys()) {
      const path: number[] = [];
      let node: number | undefined = start;
      while (node !== undefined && node !== 0 && !state.has(node)) {
        state.set(node, 'open');
        path.push(node);
        node = readFrom.get(node);
      }
      if (node !== undefined && state.get(node) === 'open') {
        violations.add(`cycle through ${path.slice(path.indexOf(node)).join(' <- ')}`);
      }
      for (const n of path) state.set(n, 'done');
    }
    expect(violations.list).toEqual([]);
  });

  /** Runs `read` twice in one transaction, with a pause between. */
  const twice =
    <R>(read: (c: Connection) => Promise<R>) =>
    async (c: Connection): Promise<[R, R]> => {
      const first = await read(c);
      await pause();
      return [first, await read(c)];
    };

  it('IMP (item-many-preceders): a transaction reads one item twice and sees one version', async () => {
    await personSchema();
    await t.conn.query('CREATE (:Person {id: 1, version: 1})');
    const committed = await runAnomaly(t, {
      write: async (c) => {
        await c.query('MATCH (p:Person {id: 1}) SET p.version = p.version + 1');
      },
      read: twice<number>((c) => version(c, 1)),
      check: ([first, second]) => (first === second ? undefined : `read version ${first}, then ${second}`),
    });
    await checkFinal(async () => {
      expect(await t.value('MATCH (p:Person {id: 1}) RETURN p.version')).toBe(1 + committed);
    });
  });

  it('PMP (predicate-many-preceders): a transaction evaluates one predicate twice and sees one answer', async () => {
    await personSchema();
    await t.conn.query('CREATE NODE TABLE Post(id INT64, PRIMARY KEY(id))');
    await t.conn.query('CREATE REL TABLE LIKES(FROM Person TO Post)');
    await t.conn.query('CREATE (:Post {id: 1})');
    const likes = 'MATCH (:Person)-[l:LIKES]->(:Post {id: 1}) RETURN count(l)';
    const committed = await runAnomaly(t, {
      write: async (c, id) => {
        await c.query('CREATE (:Person {id: $id, version: 0})', { id });
        await pause();
        await c.query('MATCH (p:Person {id: $id}), (m:Post {id: 1}) CREATE (p)-[:LIKES]->(m)', { id });
      },
      read: twice<unknown>((c) => readValue(c, likes)),
      check: ([first, second]) => (first === second ? undefined : `counted ${first} likes, then ${second}`),
    });
    await checkFinal(async () => {
      expect(await t.value(likes)).toBe(committed);
    });
  });

  it('OTV (observed transaction vanishes): once a reader saw a write, it keeps seeing it', async () => {
    await personSchema();
    await t.conn.query(
      'CREATE (a:Person {id: 1, version: 0})-[:KNOWS]->(b:Person {id: 2, version: 0})-[:KNOWS]->' +
        '(c:Person {id: 3, version: 0})-[:KNOWS]->(d:Person {id: 4, version: 0})-[:KNOWS]->(a)',
    );
    const cycle = [1, 2, 3, 4];
    // Walks the cycle one hop per statement.
    const traverse = async (c: Connection): Promise<number[]> => {
      const versions: number[] = [];
      let at = 1;
      for (let hop = 0; hop < cycle.length; hop++) {
        const [v, next] = (
          await c.query('MATCH (p:Person {id: $at})-[:KNOWS]->(q:Person) RETURN p.version, q.id', { at })
        ).rows[0] as [number, number];
        versions.push(v);
        at = next;
      }
      return versions;
    };
    await runAnomaly(t, {
      write: async (c, id) => {
        for (const p of cycle) {
          await setVersion(c, p, id);
          await pause();
        }
      },
      read: twice<number[]>(traverse),
      check: ([first, second]) =>
        Math.max(...first) <= Math.min(...second) ? undefined : `first traversal ${first}, second ${second}`,
    });
    await checkFinal(async () => {
      const versions = (await t.rows('MATCH (p:Person) RETURN p.version')).map((r) => r[0]);
      expect(new Set(versions).size).toBe(1);
    });
  });

  it('FR (fractured read): a reader sees all of a transaction’s writes or none of them', async () => {
    await personSchema();
    await t.conn.query('CREATE (:Person {id: 1, version: 0})-[:KNOWS]->(:Person {id: 2, version: 0})');
    await runAnomaly(t, {
      write: async (c, id) => {
        await setVersion(c, 1, id);
        await pause();
        await setVersion(c, 2, id);
      },
      read: async (c) => {
        const first = await version(c, 1);
        await pause();
        return [first, await readValue(c, 'MATCH (:Person {id: 1})-[:KNOWS]->(q:Person) RETURN q.version')];
      },
      check: ([first, second]) =>
        first === second ? undefined : `read version ${first} of person 1 and ${second} of person 2`,
    });
  });

  it('LU (lost update): read-modify-write transactions lose no update', async () => {
    await personSchema(', numFriends INT64');
    await t.conn.query('CREATE (:Person {id: 0, version: 0, numFriends: 0})');
    const friends = 'MATCH (p:Person {id: 0}) OPTIONAL MATCH (p)-[k:KNOWS]->() RETURN p.numFriends, count(k)';
    const committed = await runAnomaly(t, {
      writers: 3,
      write: async (c, id) => {
        // The new count is computed here, from what this transaction read.
        const n = (await readValue(c, 'MATCH (p:Person {id: 0}) RETURN p.numFriends')) as number;
        await pause();
        await c.query('CREATE (:Person {id: $id, version: 0, numFriends: 1})', { id });
        await c.query('MATCH (a:Person {id: 0}), (b:Person {id: $id}) CREATE (a)-[:KNOWS]->(b)', { id });
        await c.query('MATCH (p:Person {id: 0}) SET p.numFriends = $n', { n: n + 1 });
      },
      read: async (c) => (await c.query(friends)).rows[0] as [number, number],
      check: ([n, edges]) => (n === edges ? undefined : `numFriends ${n} with ${edges} KNOWS edges`),
    });
    await checkFinal(async () => {
      expect((await t.rows(friends))[0]).toEqual([committed, committed]);
    });
  });

  it('WS (write skew): two transactions cannot both act on a constraint the other breaks', async () => {
    // Each pair starts at 70 + 80; a transaction takes 100 from one side only if the sum stays
    // positive afterwards, so each pair can pay once. Workers concentrate on the first pairs
    // not yet seen paid, so that several of them decide on the same pair at the same time.
    const pairs = 60;
    await t.conn.query('CREATE NODE TABLE Account(id INT64, pair INT64, value INT64, PRIMARY KEY(id))');
    await t.conn.query(
      'UNWIND range(0, $n - 1) AS i CREATE (:Account {id: 2 * i, pair: i, value: 70}), ' +
        '(:Account {id: 2 * i + 1, pair: i, value: 80})',
      { n: pairs },
    );
    const value = (c: Connection, id: number) =>
      readValue(c, 'MATCH (x:Account {id: $id}) RETURN x.value', { id }) as Promise<number>;
    let frontier = 0;
    let deductions = 0;
    await runAnomaly(t, {
      writers: 4,
      write: async (c) => {
        const pair = Math.min(pairs - 1, frontier + Math.floor(Math.random() * 2));
        const a = await value(c, 2 * pair);
        await pause();
        const b = await value(c, 2 * pair + 1);
        if (a + b - 100 <= 0) return { pair, paid: false };
        await pause();
        const id = 2 * pair + (Math.random() < 0.5 ? 0 : 1);
        await c.query('MATCH (x:Account {id: $id}) SET x.value = x.value - 100', { id });
        return { pair, paid: true };
      },
      committed: (_, { pair, paid }) => {
        if (paid) deductions++;
        else frontier = Math.max(frontier, pair + 1);
      },
    });
    expect(deductions).toBeGreaterThan(0);
    await checkFinal(async () => {
      const sums = await t.rows('MATCH (x:Account) RETURN x.pair AS p, sum(x.value) AS s ORDER BY p');
      expect(sums.filter(([, s]) => (s as number) <= 0)).toEqual([]);
      expect(sums.filter(([, s]) => s === 50)).toHaveLength(deductions);
    });
  });

  it('a READ ONLY transaction sees one snapshot across its statements while others commit', async () => {
    // Transfers keep the total at 1000; some writers also open new (empty) accounts.
    await t.conn.query('CREATE NODE TABLE Account(id INT64, balance INT64, PRIMARY KEY(id))');
    await t.conn.query('UNWIND range(1, 10) AS i CREATE (:Account {id: i, balance: 100})');
    const nextId = idSequence(100);
    const violations = new Violations();
    let writes = 0;
    let writersInFlight = 0;
    let readsWithWriterWaiting = 0;
    let snapshotReads = 0;
    let autoCommitReads = 0;
    const all = 'MATCH (x:Account) RETURN x.id, x.balance ORDER BY x.id';

    const writer = (conn: Connection) => async (): Promise<Status> => {
      writersInFlight++;
      try {
        const outcome = await transaction(conn, async (c) => {
          const [from, to] = [1 + Math.floor(Math.random() * 10), 1 + Math.floor(Math.random() * 10)];
          const amount = 1 + Math.floor(Math.random() * 20);
          await c.query('MATCH (x:Account {id: $id}) SET x.balance = x.balance - $amount', {
            id: from,
            amount,
          });
          await pause();
          await c.query('MATCH (x:Account {id: $id}) SET x.balance = x.balance + $amount', {
            id: to,
            amount,
          });
          if (Math.random() < 0.3) await c.query('CREATE (:Account {id: $id, balance: 0})', { id: nextId() });
        });
        if (outcome.status === 'committed') writes++;
        return outcome.status;
      } finally {
        writersInFlight--;
      }
    };
    const snapshotReader = (conn: Connection) => async (): Promise<Status> => {
      let sawWriter = false;
      const outcome = await transaction(
        conn,
        async (c) => {
          const first = (await c.query(all)).rows;
          await sleep(2);
          sawWriter = writersInFlight > 0;
          const [count, total] = (await c.query('MATCH (x:Account) RETURN count(*), sum(x.balance)'))
            .rows[0]!;
          await sleep(1);
          const last = (await c.query(all)).rows;
          return { first, count, total, last };
        },
        { readOnly: true },
      );
      if (outcome.status === 'committed') {
        snapshotReads++;
        if (sawWriter) readsWithWriterWaiting++;
        const { first, count, total, last } = outcome.value;
        const firstTotal = first.reduce((s, r) => s + (r[1] as number), 0);
        if (!same(first, last)) violations.add('the accounts changed within the transaction');
        if (first.length !== count) violations.add(`listed ${first.length} accounts, counted ${count}`);
        if (firstTotal !== 1000 || total !== 1000) violations.add(`totals ${firstTotal} and ${total}`);
      }
      return outcome.status;
    };
    // Auto-commit statements read a consistent state too.
    const autoCommitReader = (conn: Connection) => async (): Promise<Status> => {
      const total = await readValue(conn, 'MATCH (x:Account) RETURN sum(x.balance)');
      autoCommitReads++;
      if (total !== 1000) violations.add(`an auto-commit read saw total ${total}`);
      await pause();
      return 'committed';
    };

    const stats = await runWorkload(LIMITS, [
      writer(t.conns[0]!),
      writer(t.conns[1]!),
      snapshotReader(t.conns[2]!),
      autoCommitReader(t.conns[3]!),
    ]);
    expectExercised(stats, writes, snapshotReads);
    expect(autoCommitReads).toBeGreaterThan(0);
    expect(readsWithWriterWaiting).toBeGreaterThan(0);
    expect(violations.list).toEqual([]);
    await checkFinal(async () => {
      expect(await t.value('MATCH (x:Account) RETURN sum(x.balance)')).toBe(1000);
    });
  });
});
