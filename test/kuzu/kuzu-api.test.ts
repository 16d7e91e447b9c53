// The `quiverdb/kuzu` API (src/kuzu): Kùzu's classes and value mapping over GraphDB. Kùzu's
// own suite runs in kuzu-api-suite.test.ts; these tests cover what it does not.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kuzuColumnName } from '../../src/kuzu/column-names.js';
import {
  Connection,
  Database,
  type KuzuRow,
  type QueryResult,
  STORAGE_VERSION,
  VERSION,
} from '../../src/kuzu/index.js';

let db: Database;
let conn: Connection;

function one(result: QueryResult | QueryResult[]): QueryResult {
  if (Array.isArray(result)) throw new Error('expected one result');
  return result;
}

async function rows(text: string): Promise<KuzuRow[]> {
  return one(await conn.query(text)).getAll();
}

beforeAll(async () => {
  db = new Database();
  conn = new Connection(db);
  for (const statement of [
    'CREATE NODE TABLE person(name STRING, age INT64, born DATE, PRIMARY KEY(name))',
    'CREATE REL TABLE knows(FROM person TO person, since INT64)',
    'CREATE NODE TABLE city(name STRING, PRIMARY KEY(name))',
    'CREATE REL TABLE livesIn(FROM person TO city)',
    "CREATE (:person {name: 'Alice', age: 30, born: date('1990-05-06')})",
    "CREATE (:person {name: 'Bob'})",
    "CREATE (:city {name: 'Oslo'})",
    "MATCH (a:person {name: 'Alice'}), (b:person {name: 'Bob'}) CREATE (a)-[:knows {since: 2001}]->(b)",
    "MATCH (a:person {name: 'Alice'}), (c:city) CREATE (a)-[:livesIn]->(c)",
  ]) {
    await conn.query(statement);
  }
});

afterAll(async () => {
  await db.close();
});

describe('values as Kùzu gives them', () => {
  it('maps scalars: INT64 as a Number, INT128 as a BigInt, DECIMAL as a Number', async () => {
    const [row] = await rows(
      'RETURN CAST(9007199254740993 AS INT64) AS big, CAST(3 AS INT128) AS h, ' +
        'CAST(-1.25 AS DECIMAL(10,2)) AS d, CAST(18446744073709551615 AS UINT64) AS u, ' +
        "uuid('A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11') AS id, BLOB('\\\\xAA\\\\x01') AS b",
    );
    expect(row).toEqual({
      big: 9007199254740992,
      h: 3n,
      d: -1.25,
      u: 2 ** 64, // the nearest double, as Kùzu gives it
      id: 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11',
      b: Buffer.from([0xaa, 0x01]),
    });
  });

  it('maps DATE and TIMESTAMP of every unit to Dates, INTERVAL to milliseconds', async () => {
    const [row] = await rows(
      "RETURN date('1900-01-01') AS d, timestamp('2011-08-20 11:25:30.123') AS t, " +
        "CAST('2011-08-20 11:25:30.123456789' AS TIMESTAMP_NS) AS ns, " +
        "CAST('2011-08-20 11:25:30' AS TIMESTAMP_SEC) AS sec, " +
        "CAST('2011-08-20 11:25:30.123+01' AS TIMESTAMP_TZ) AS tz, " +
        "interval('1 month 3 days 4 microseconds') AS i",
    );
    expect(row?.d).toEqual(new Date('1900-01-01T00:00:00Z'));
    expect(row?.t).toEqual(new Date('2011-08-20T11:25:30.123Z'));
    expect(row?.ns).toEqual(new Date('2011-08-20T11:25:30.123Z'));
    expect(row?.sec).toEqual(new Date('2011-08-20T11:25:30Z'));
    expect(row?.tz).toEqual(new Date('2011-08-20T10:25:30.123Z'));
    // Kùzu counts a month as 30 days and drops what is below a millisecond.
    expect(row?.i).toBe(33 * 86_400_000);
  });

  it('maps MAP to an object keyed by the keys text, STRUCT to an object, UNION by its tag', async () => {
    const [row] = await rows(
      "RETURN map([1, 2], ['a', 'b']) AS m, {a: 1, b: [1, 2]} AS s, union_value(x := 7) AS u",
    );
    expect(row).toEqual({ m: { '1': 'a', '2': 'b' }, s: { a: 1, b: [1, 2] }, u: { tag: 7 } });
  });

  it("gives nodes and relationships with their properties first and Kùzu's table numbers", async () => {
    const [row] = await rows(
      "MATCH (a:person {name: 'Alice'})-[r:livesIn]->(c:city) RETURN a, r, c, id(c) AS cid",
    );
    // Kùzu numbers tables in creation order and gives each relationship table two numbers.
    const alice = { offset: 0, table: 0 };
    const oslo = { offset: 0, table: 3 };
    expect(JSON.stringify(row)).toBe(
      JSON.stringify({
        a: { name: 'Alice', age: 30, born: new Date('1990-05-06T00:00:00Z'), _label: 'person', _id: alice },
        r: { _src: alice, _dst: oslo, _label: 'livesIn', _id: { offset: 0, table: 4 } },
        c: { name: 'Oslo', _label: 'city', _id: oslo },
        cid: oslo,
      }),
    );
  });

  it('gives a variable-length relationship as {_nodes, _rels}', async () => {
    const [row] = await rows("MATCH (a:person {name: 'Alice'})-[e:knows*1..1]->(b) RETURN e");
    expect(row?.e).toEqual({
      _nodes: [],
      _rels: [
        {
          since: 2001,
          _src: { offset: 0, table: 0 },
          _dst: { offset: 1, table: 0 },
          _label: 'knows',
          _id: { offset: 0, table: 1 },
        },
      ],
    });
  });

  it('reads a Date parameter as a DATE, as Kùzu does', async () => {
    const statement = await conn.prepare('MATCH (p:person) WHERE p.born = $d RETURN p.name AS name');
    const result = one(await conn.execute(statement, { d: new Date('1990-05-06T15:00:00Z') }));
    expect(await result.getAll()).toEqual([{ name: 'Alice' }]);
  });
});

describe('column names', () => {
  it("names unaliased expressions in Kùzu's canonical form", async () => {
    const result = one(
      await conn.query(
        "MATCH (a:person) WHERE a.name = 'Alice' RETURN count(*), a.age + 1, lower(a.name), a.age",
      ),
    );
    expect(result.getColumnNamesSync()).toEqual(['COUNT_STAR()', '+(a.age,1)', 'LOWER(a.name)', 'a.age']);
    expect(await result.getAll()).toEqual([
      { 'COUNT_STAR()': 1, '+(a.age,1)': 31, 'LOWER(a.name)': 'alice', 'a.age': 30 },
    ]);
  });

  it('rewrites operators, literals and predicates, and leaves what it does not know', () => {
    expect(kuzuColumnName('1 + 2 * 3')).toBe('+(1,*(2,3))');
    expect(kuzuColumnName("a.x > 1 AND NOT a.y STARTS WITH 'b'")).toBe(
      'AND(GREATER_THAN(a.x,1),NOT(STARTS_WITH(a.y,b)))',
    );
    expect(kuzuColumnName('[1.5, -2, true, null]')).toBe('LIST_CREATION(1.500000,-2,True,)');
    expect(kuzuColumnName('-a.x IN [1]')).toBe('LIST_CONTAINS(LIST_CREATION(1),NEGATE(a.x))');
    expect(kuzuColumnName('count(DISTINCT id(a))')).toBe('COUNT(DISTINCT a._ID)');
    expect(kuzuColumnName('CAST(a.x AS string)')).toBe('CAST(a.x, STRING)');
    expect(kuzuColumnName('CASE WHEN a THEN 1 END')).toBe('CASE WHEN a THEN 1 END');
    expect(kuzuColumnName('total')).toBe('total');
  });
});

describe('Connection', () => {
  it('resolves a text of several statements to one result each', async () => {
    const results = await conn.query('RETURN 1 AS a; RETURN 2 AS a');
    expect(Array.isArray(results)).toBe(true);
    const all = await Promise.all((results as QueryResult[]).map((r) => r.getAll()));
    expect(all).toEqual([[{ a: 1 }], [{ a: 2 }]]);
    const sync = conn.querySync('RETURN 1 AS a; RETURN 2 AS a') as QueryResult[];
    expect(sync.map((r) => r.getAllSync())).toEqual(all);
  });

  it("rejects with Kùzu's messages, as plain Errors keeping GraphDB's code", async () => {
    const error = await conn.query('MATCH (a:dog) RETURN a').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).constructor).toBe(Error);
    expect((error as Error).message).toBe('Binder exception: Table dog does not exist.');
    expect((error as { code?: string }).code).toBe('QUERY_BINDING');
    expect(() => conn.querySync(42 as unknown as string)).toThrow('statement must be a string.');
  });

  it('reports a prepared statement that does not bind, and runs the right text after it', async () => {
    const missing = await conn.prepare('MATCH (a:dog) WHERE a.x = $x RETURN a');
    expect(missing.isSuccess()).toBe(false);
    expect(missing.getErrorMessage()).toBe('Binder exception: Table dog does not exist.');
    expect(conn.prepareSync('MATCH (a:dog) RETURN a').getErrorMessage()).toBe(missing.getErrorMessage());
    // The check stops at a parameter, whose type comes with its value.
    const statement = await conn.prepare('MATCH (p:person) WHERE p.name = $name RETURN p.age AS age');
    expect(statement.isSuccess()).toBe(true);
    const [first, second] = await Promise.all([
      conn.execute(statement, { name: 'Alice' }),
      conn.execute(statement, { name: 'Bob' }),
    ]);
    expect(await one(first).getAll()).toEqual([{ age: 30 }]);
    expect(await one(second).getAll()).toEqual([{ age: null }]);
  });

  it('reports a prepared statement that does not parse', async () => {
    const statement = await conn.prepare('MATCH (a:person RETURN a');
    expect(statement.isSuccess()).toBe(false);
    expect(statement.getErrorMessage()).toMatch(/^Parser exception/);
    expect(conn.prepareSync('MATCH (a:person RETURN a').getErrorMessage()).toBe(statement.getErrorMessage());
    await expect(conn.execute(statement, {})).rejects.toThrow(statement.getErrorMessage());
    const good = conn.prepareSync('RETURN $x AS x');
    expect(good.isSuccess()).toBe(true);
    expect((conn.executeSync(good, { x: 5 }) as QueryResult).getAllSync()).toEqual([{ x: 5 }]);
  });

  it('stops a statement past setQueryTimeout with "Interrupted."', async () => {
    const timed = new Connection(db);
    timed.setQueryTimeout(1);
    await expect(
      timed.query('UNWIND range(1, 100000) AS x UNWIND range(1, 100000) AS y RETURN count(x + y)'),
    ).rejects.toThrow(/^Interrupted\.$/);
    await timed.close();
  });

  it('calls a progress callback before the statement settles', async () => {
    const calls: number[][] = [];
    const result = one(await conn.query('MATCH (a:person) RETURN count(*)', (...args) => calls.push(args)));
    expect(calls.at(-1)).toEqual([1, 1, 1]);
    expect(result.getNumTuples()).toBe(1);
  });

  it('refuses use once the database is closed, and a closed result', async () => {
    const other = new Database(':memory:');
    const c = new Connection(other);
    const result = one(c.querySync('RETURN 1 AS x'));
    other.closeSync();
    const closedMessage =
      'Runtime exception: The current operation is not allowed because the parent database is closed.';
    expect(() => c.querySync('RETURN 1')).toThrow(closedMessage);
    expect(() => result.hasNext()).toThrow(closedMessage);
    const own = one(conn.querySync('RETURN 1 AS x'));
    own.close();
    expect(() => own.getNextSync()).toThrow('Query result is closed.');
  });

  it('exports the version and the storage version (the table files format version)', () => {
    expect(VERSION).toMatch(/^\d+\.\d+\.\d+/);
    const header = fs.readFileSync(
      path.join(
        path.dirname(fileURLToPath(import.meta.url)),
        '..',
        '..',
        'native',
        'storage',
        'table_file.h',
      ),
      'utf8',
    );
    expect(STORAGE_VERSION).toBe(Number(/kFileFormatVersion = (\d+);/.exec(header)?.[1]));
  });
});

describe('Database options', () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'graphdb-kuzu-api-'));
  });
  afterAll(() => {
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('makes every statement a read in read-only mode', async () => {
    const dbPath = path.join(dir, 'ro');
    const writable = new Database(dbPath);
    const w = new Connection(writable);
    await w.query('CREATE NODE TABLE t(id INT64, PRIMARY KEY(id))');
    await w.query('CREATE (:t {id: 1})');
    await writable.close();
    const readOnly = new Database(dbPath, 0, true, true);
    const r = new Connection(readOnly);
    expect(await one(await r.query('MATCH (n:t) RETURN n.id')).getAll()).toEqual([{ 'n.id': 1 }]);
    await expect(r.query('CREATE (:t {id: 2})')).rejects.toThrow(
      'Connection exception: Cannot execute write operations in a read-only database!',
    );
    await readOnly.close();
  });

  it('shows autoCheckpoint and checkpointThreshold in current_setting', async () => {
    const configured = new Database(path.join(dir, 'settings'), 0, true, false, 0, false, 4096);
    const c = new Connection(configured);
    const auto = one(await c.query("CALL current_setting('auto_checkpoint') RETURN *"));
    expect(await auto.getAll()).toEqual([{ auto_checkpoint: 'False' }]);
    const threshold = one(c.querySync("CALL current_setting('checkpoint_threshold') RETURN *"));
    expect(threshold.getAllSync()).toEqual([{ checkpoint_threshold: '4096' }]);
    await configured.close();
  });

  it("checks the constructor's arguments with Kùzu's messages", () => {
    expect(() => new Database({} as unknown as string)).toThrow('Database path must be a string.');
    expect(() => new Database('', -1)).toThrow('Buffer manager size must be a positive integer.');
    expect(() => new Database('', 0, true, false, -5)).toThrow('Max DB size must be a positive integer.');
    expect(() => new Database('', 0, true, 'yes' as unknown as boolean)).toThrow(
      'readOnly must be a boolean.',
    );
    expect(() => new Connection({} as Database)).toThrow('database must be a valid Database object.');
  });
});
