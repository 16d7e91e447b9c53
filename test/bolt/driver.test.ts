// The Bolt server end to end with the official neo4j-driver: sessions, transactions, values,
// errors, routing and paging (docs/bolt.md).
import neo4j, {
  Date as BoltDate,
  DateTime,
  Duration,
  isNode,
  isPath,
  isRelationship,
  LocalDateTime,
  LocalTime,
  Neo4jError,
  type Session,
} from 'neo4j-driver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BoltFixture, startBolt } from './helpers.js';

let f: BoltFixture;

beforeAll(async () => {
  f = await startBolt({ threadNum: 3, maxOpenTransactions: 2 });
  const session = f.driver.session();
  try {
    await session.run(
      'CREATE NODE TABLE Person(id INT64, name STRING, score DOUBLE, born DATE, PRIMARY KEY(id))',
    );
    await session.run('CREATE REL TABLE Knows(FROM Person TO Person, since INT64)');
    await session.run('CREATE NODE TABLE Counter(id INT64, n INT64, PRIMARY KEY(id))');
    await session.run(
      "CREATE (:Person {id: 1, name: 'Alice', score: 2.0, born: date('1990-05-17')}), (:Person {id: 2, name: 'Bob', score: 3.5}), (:Person {id: 3, name: 'Cleo'})",
    );
    await session.run('MATCH (a:Person {id: 1}), (b:Person {id: 2}) CREATE (a)-[:Knows {since: 2020}]->(b)');
    await session.run('MATCH (a:Person {id: 3}), (b:Person {id: 2}) CREATE (a)-[:Knows {since: 2021}]->(b)');
    await session.run('CREATE (:Counter {id: 1, n: 0})');
  } finally {
    await session.close();
  }
});

afterAll(async () => {
  await f?.close();
});

async function withSession<T>(body: (session: Session) => Promise<T>, config = {}): Promise<T> {
  const session = f.driver.session(config);
  try {
    return await body(session);
  } finally {
    await session.close();
  }
}

async function one(query: string, params: Record<string, unknown> = {}): Promise<unknown> {
  return withSession(async (session) => (await session.run(query, params)).records[0]?.get(0));
}

describe('connection', () => {
  it('verifies connectivity and names the server', async () => {
    const info = await f.driver.getServerInfo();
    expect(info.agent).toMatch(/^QuiverDB\//);
    expect(Number(info.protocolVersion)).toBeGreaterThanOrEqual(5);
  });

  it('works through a neo4j:// routing URL', async () => {
    const driver = neo4j.driver(`neo4j://127.0.0.1:${f.port}`, neo4j.auth.basic('neo4j', 'x'));
    try {
      await driver.verifyConnectivity();
      const session = driver.session({ defaultAccessMode: neo4j.session.READ });
      const result = await session.executeRead((tx) => tx.run('MATCH (p:Person) RETURN count(*) AS n'));
      expect(result.records[0]?.get('n').toNumber()).toBe(3);
      await session.close();
    } finally {
      await driver.close();
    }
  });

  it('refuses a database other than neo4j', async () => {
    const session = f.driver.session({ database: 'other' });
    await expect(session.run('RETURN 1')).rejects.toMatchObject({
      code: 'Neo.ClientError.Database.DatabaseNotFound',
    });
    await session.close();
  });
});

describe('values', () => {
  it('round-trips every parameter type', async () => {
    const params = {
      nul: null,
      yes: true,
      int: neo4j.int(42),
      big: neo4j.int('9223372036854775807'),
      neg: neo4j.int('-9223372036854775808'),
      float: 1.0,
      frac: -2.75,
      text: 'héllo ✓',
      bytes: new Uint8Array([0, 1, 254, 255]),
      list: [neo4j.int(1), neo4j.int(2), neo4j.int(3)],
      map: { a: neo4j.int(1), b: 'two' },
      date: new BoltDate(2024, 2, 29),
      local: new LocalDateTime(2024, 1, 2, 3, 4, 5, 123456000),
      zoned: new DateTime(2024, 1, 2, 3, 4, 5, 0, 0),
      duration: new Duration(14, 3, 3661, 500000000),
    };
    const names = Object.keys(params);
    const query = `RETURN ${names.map((name) => `$${name} AS ${name}`).join(', ')}`;
    const record = await withSession(async (session) => (await session.run(query, params)).records[0]);
    expect(record?.get('nul')).toBeNull();
    expect(record?.get('yes')).toBe(true);
    expect(record?.get('int')).toEqual(neo4j.int(42));
    expect(record?.get('big').toString()).toBe('9223372036854775807');
    expect(record?.get('neg').toString()).toBe('-9223372036854775808');
    // A whole Float stays a Float (a JS number), an Integer an Integer.
    expect(record?.get('float')).toBe(1);
    expect(neo4j.isInt(record?.get('float'))).toBe(false);
    expect(record?.get('frac')).toBe(-2.75);
    expect(record?.get('text')).toBe('héllo ✓');
    expect(Array.from(record?.get('bytes'))).toEqual([0, 1, 254, 255]);
    expect(record?.get('list')).toEqual([neo4j.int(1), neo4j.int(2), neo4j.int(3)]);
    expect(record?.get('map')).toEqual({ a: neo4j.int(1), b: 'two' });
    expect(record?.get('date').toString()).toBe('2024-02-29');
    expect(record?.get('local').toString()).toBe('2024-01-02T03:04:05.123456000');
    const zoned = record?.get('zoned');
    expect(zoned.toString()).toBe('2024-01-02T03:04:05Z');
    const duration = record?.get('duration');
    expect([duration.months, duration.days, duration.seconds, duration.nanoseconds].map(Number)).toEqual([
      14, 3, 3661, 500000000,
    ]);
  });

  it('takes a DateTime with an offset as its instant', async () => {
    const value = await one('RETURN $t AS t', { t: new DateTime(2024, 1, 2, 3, 4, 5, 0, 3600) });
    expect((value as DateTime).toString()).toBe('2024-01-02T02:04:05Z');
  });

  it('takes a LocalTime as its ISO text (GraphDB has no time type)', async () => {
    expect(await one('RETURN $t AS t', { t: new LocalTime(13, 5, 7, 250000000) })).toBe('13:05:07.25');
  });

  it('refuses a time finer than microseconds, a point and a node parameter, by name', async () => {
    await expect(one('RETURN $t', { t: new LocalDateTime(2024, 1, 1, 0, 0, 0, 1) })).rejects.toMatchObject({
      code: 'Neo.ClientError.Statement.TypeError',
      message: expect.stringMatching(/microseconds/),
    });
    await expect(one('RETURN $p', { p: new neo4j.types.Point(7203, 1, 2) })).rejects.toMatchObject({
      code: 'Neo.ClientError.Statement.TypeError',
      message: expect.stringMatching(/spatial/),
    });
  });

  it('gives nodes, relationships and paths as the driver types, with typed properties', async () => {
    const record = await withSession(
      async (session) =>
        (
          await session.run(
            'MATCH p = (a:Person {id: 1})-[k:Knows]->(b:Person)<-[:Knows]-(c:Person) WHERE c.id = 3 RETURN a, k, p, [a, b] AS pair, {who: c} AS s',
          )
        ).records[0],
    );
    const a = record?.get('a');
    expect(isNode(a)).toBe(true);
    expect(a.labels).toEqual(['Person']);
    expect(a.properties.name).toBe('Alice');
    expect(a.properties.score).toBe(2); // a DOUBLE property, whole: still a float
    expect(neo4j.isInt(a.properties.score)).toBe(false);
    expect(a.properties.born.toString()).toBe('1990-05-17');
    expect(typeof a.elementId).toBe('string');
    const k = record?.get('k');
    expect(isRelationship(k)).toBe(true);
    expect(k.type).toBe('Knows');
    expect(k.properties.since).toEqual(neo4j.int(2020));
    expect(k.startNodeElementId).toBe(a.elementId);
    const p = record?.get('p');
    expect(isPath(p)).toBe(true);
    expect(p.length).toBe(2);
    expect(p.start.properties.name).toBe('Alice');
    expect(p.end.properties.name).toBe('Cleo');
    expect(p.segments[1].relationship.properties.since).toEqual(neo4j.int(2021));
    expect(record?.get('pair').map((n: { properties: { name: string } }) => n.properties.name)).toEqual([
      'Alice',
      'Bob',
    ]);
    expect(isNode(record?.get('s').who)).toBe(true);
  });

  it('gives a variable-length relationship as a list of relationships', async () => {
    const rels = (await one(
      'MATCH (a:Person {id: 1})-[e:Knows*1..2]-(c:Person {id: 3}) RETURN e',
    )) as unknown[];
    expect(rels).toHaveLength(2);
    expect(rels.every(isRelationship)).toBe(true);
  });

  it('gives a path that comes back to a node with its real end', async () => {
    // Walk semantics may take the same relationship back: the path ends where it started.
    const p = (await one(
      'MATCH p = (a:Person {id: 1})-[:Knows]->(:Person)<-[:Knows]-(c:Person) WHERE c.id = 1 RETURN p',
    )) as { end: { properties: { name: string } }; segments: { end: { properties: { name: string } } }[] };
    expect(p.segments.map((s) => s.end.properties.name)).toEqual(['Bob', 'Alice']);
    expect(p.end.properties.name).toBe('Alice');
  });
});

describe('errors', () => {
  it('maps syntax, semantic, type and constraint errors to Neo4j codes', async () => {
    await expect(one('RETURN RETURN')).rejects.toMatchObject({
      code: 'Neo.ClientError.Statement.SyntaxError',
    });
    await expect(one('MATCH (x:NoSuchLabel) RETURN x')).rejects.toMatchObject({
      code: 'Neo.ClientError.Statement.SemanticError',
    });
    await expect(one("CREATE (:Person {id: 1, name: 'again'})")).rejects.toMatchObject({
      code: 'Neo.ClientError.Schema.ConstraintValidationFailed',
    });
    const error = await one('RETURN RETURN').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Neo4jError);
    expect((error as Neo4jError).retryable).toBe(false);
  });

  it('recovers after a failure (RESET) on the same session', async () => {
    await withSession(async (session) => {
      await expect(session.run('RETURN RETURN')).rejects.toThrow();
      expect((await session.run('RETURN 7 AS n')).records[0]?.get('n')).toEqual(neo4j.int(7));
      const tx = session.beginTransaction();
      await expect(tx.run('MATCH (x:Nope) RETURN x')).rejects.toThrow();
      await tx.close();
      expect((await session.run('RETURN 8 AS n')).records[0]?.get('n')).toEqual(neo4j.int(8));
    });
  });
});

describe('transactions', () => {
  it('commits an explicit transaction and rolls one back, leaving nothing', async () => {
    await withSession(async (session) => {
      const tx = session.beginTransaction();
      await tx.run('CREATE (:Person {id: 100, name: $n})', { n: 'kept' });
      await tx.run('CREATE (:Person {id: 101})');
      await tx.commit();
      const rolled = session.beginTransaction();
      await rolled.run('CREATE (:Person {id: 102})');
      const inside = await rolled.run('MATCH (p:Person) WHERE p.id >= 100 RETURN count(*) AS n');
      expect(inside.records[0]?.get('n').toNumber()).toBe(3);
      await rolled.rollback();
    });
    const count = await one('MATCH (p:Person) WHERE p.id >= 100 RETURN count(*) AS n');
    expect((count as { toNumber(): number }).toNumber()).toBe(2);
    await one('MATCH (p:Person) WHERE p.id >= 100 DELETE p');
  });

  it('runs executeRead in read mode: a write in it is refused', async () => {
    await withSession(async (session) => {
      const n = await session.executeRead(async (tx) =>
        (await tx.run('MATCH (p:Person) RETURN count(*) AS n')).records[0]?.get('n'),
      );
      expect(n.toNumber()).toBe(3);
      await expect(session.executeRead((tx) => tx.run('CREATE (:Person {id: 200})'))).rejects.toMatchObject({
        code: 'Neo.ClientError.Statement.AccessMode',
      });
      const auto = f.driver.session({ defaultAccessMode: neo4j.session.READ });
      await expect(auto.run('CREATE (:Person {id: 201})')).rejects.toMatchObject({
        code: 'Neo.ClientError.Statement.AccessMode',
      });
      await auto.close();
    });
    expect(
      (
        (await one('MATCH (p:Person) WHERE p.id >= 200 RETURN count(*)')) as { toNumber(): number }
      ).toNumber(),
    ).toBe(0);
  });

  it('retries executeWrite on a transient error: more transactions than the server holds at once', async () => {
    // maxOpenTransactions 2 allows two explicit transactions at once; the third BEGIN is refused with a
    // transient error (below) and the driver retries it: all three increments land.
    // (Read transactions: a second write transaction would wait for the first's writer gate.)
    const read = { defaultAccessMode: neo4j.session.READ };
    const sessions = [f.driver.session(read), f.driver.session(read), f.driver.session(read)];
    const open = [sessions[0]?.beginTransaction(), sessions[1]?.beginTransaction()];
    await Promise.all(open.map((tx) => tx?.run('RETURN 1')));
    const third = sessions[2]?.beginTransaction();
    const refused = await third?.run('RETURN 1').catch((error: unknown) => error);
    expect(refused).toMatchObject({
      code: 'Neo.TransientError.Transaction.MaximumTransactionLimitReached',
      retryable: true,
    });
    for (const tx of open) await tx?.rollback();
    for (const session of sessions) await session.close();
    let attempts = 0;
    const increment = () =>
      withSession((session) =>
        session.executeWrite(async (tx) => {
          attempts++;
          const r = await tx.run('MATCH (c:Counter {id: 1}) RETURN c.n AS n');
          const n = r.records[0]?.get('n').toNumber() as number;
          await new Promise((resolve) => setTimeout(resolve, 30));
          await tx.run('MATCH (c:Counter {id: 1}) SET c.n = $n', { n: n + 1 });
        }),
      );
    await Promise.all([increment(), increment(), increment()]);
    expect(attempts).toBeGreaterThanOrEqual(3);
    expect(((await one('MATCH (c:Counter {id: 1}) RETURN c.n')) as { toNumber(): number }).toNumber()).toBe(
      3,
    );
  });
});

describe('a real TX_CONFLICT', () => {
  it('is retried by executeWrite: the write waits past writeWaitMs for another transaction', async () => {
    // A write transaction holds the writer gate until it commits; another connection's write
    // waits for it at most writeWaitMs (here 200 ms), then fails with TX_CONFLICT, which the
    // driver retries (its first retry comes after about a second): by then the gate is free.
    const g = await startBolt({}, 'bolt', { writeWaitMs: 200 });
    try {
      const setup = g.driver.session();
      await setup.run('CREATE NODE TABLE Item(id INT64, PRIMARY KEY(id))');
      await setup.close();
      const holder = g.driver.session();
      const held = holder.beginTransaction();
      await held.run('CREATE (:Item {id: 1})');
      // Seen directly: BEGIN waits 200 ms for the gate, then fails with a transient error.
      const direct = g.driver.session();
      let started = Date.now();
      const refused = await direct
        .beginTransaction()
        .run('CREATE (:Item {id: 3})')
        .catch((error: unknown) => error);
      expect(Date.now() - started).toBeGreaterThanOrEqual(190);
      expect(refused).toMatchObject({ code: 'Neo.TransientError.Transaction.Outdated', retryable: true });
      expect((refused as Error).message).toMatch(/200 ms/);
      await direct.close();
      // executeWrite retries it: the holder commits 400 ms in, the first attempt has failed at
      // 200 ms, and the retry comes after the driver's first delay (1 s, +-20%), so success
      // after 800 ms or more shows a retry (without one the call would have failed at 200 ms).
      const writer = g.driver.session();
      started = Date.now();
      setTimeout(() => void held.commit(), 400);
      await writer.executeWrite((tx) => tx.run('CREATE (:Item {id: 2})'));
      expect(Date.now() - started).toBeGreaterThanOrEqual(800);
      await writer.close();
      await holder.close();
      const check = g.driver.session();
      const ids = await check.run('MATCH (i:Item) RETURN i.id AS id ORDER BY id');
      expect(ids.records.map((r) => r.get('id').toNumber())).toEqual([1, 2]);
      await check.close();
    } finally {
      await g.close();
    }
  }, 20_000);
});

describe('paging', () => {
  it('pulls a result larger than fetchSize in batches, every row once', async () => {
    const session = f.driver.session({ fetchSize: 100 });
    try {
      const result = session.run('UNWIND range(1, 2500) AS i RETURN i');
      let count = 0;
      let sum = 0;
      for await (const record of result) {
        count++;
        sum += record.get('i').toNumber();
      }
      expect(count).toBe(2500);
      expect(sum).toBe((2500 * 2501) / 2);
    } finally {
      await session.close();
    }
  });

  it('discards the rest of a result the client stops reading', async () => {
    await withSession(
      async (session) => {
        const result = session.run('UNWIND range(1, 5000) AS i RETURN i');
        for await (const record of result) {
          if (record.get('i').toNumber() === 10) break;
        }
        expect((await session.run('RETURN 1 AS x')).records).toHaveLength(1);
      },
      { fetchSize: 50 },
    );
  });
});

describe("a reader's transaction", () => {
  it('is READ ONLY in write mode too, so writers never wait for it', async () => {
    // neo4j-driver's beginTransaction() asks for write mode. A reader may only read, so its
    // transaction must not hold the writer gate: a writer's statements go on at once (with
    // writeWaitMs 200, a held gate would fail them with TX_CONFLICT).
    const tokens = {
      admin: 'admin-token-for-bolt-1',
      reader: 'reader-token-for-bolt-1',
      writer: 'writer-token-for-bolt-1',
    };
    const g = await startBolt(
      {
        auth: {
          tokens: Object.entries(tokens).map(([role, token]) => ({
            token,
            role: role as 'admin' | 'reader' | 'writer',
          })),
        },
      },
      'bolt',
      { writeWaitMs: 200 },
    );
    const as = (token: string) => neo4j.driver(`bolt://127.0.0.1:${g.port}`, neo4j.auth.bearer(token));
    const admin = as(tokens.admin);
    const reader = as(tokens.reader);
    const writer = as(tokens.writer);
    try {
      await admin.executeQuery('CREATE NODE TABLE Item(id INT64, PRIMARY KEY(id))');
      const readerSession = reader.session();
      const held = readerSession.beginTransaction();
      expect((await held.run('RETURN 1 AS one')).records[0]?.get('one').toNumber()).toBe(1);
      // The writer's auto-commit write and explicit transaction both run while it is open.
      const writerSession = writer.session();
      await writerSession.run('CREATE (:Item {id: 1})');
      const tx = writerSession.beginTransaction();
      await tx.run('CREATE (:Item {id: 2})');
      await tx.commit();
      // The reader's transaction is still usable, and sees what was committed before it only.
      expect((await held.run('MATCH (i:Item) RETURN count(*) AS n')).records[0]?.get('n').toNumber()).toBe(0);
      // A write in it is refused by the reader's role.
      await expect(held.run('CREATE (:Item {id: 3})')).rejects.toMatchObject({
        code: 'Neo.ClientError.Security.Forbidden',
      });
      await held.rollback().catch(() => undefined);
      await readerSession.close();
      await writerSession.close();
      const count = await admin.executeQuery('MATCH (i:Item) RETURN count(*) AS n');
      expect(count.records[0]?.get('n').toNumber()).toBe(2);
    } finally {
      await Promise.all([admin.close(), reader.close(), writer.close()]);
      await g.close();
    }
  }, 20_000);
});
