// One small adapter per system, so workloads are written once:
//   const system = await openSystem('graphdb' | 'kuzu' | 'sqlite' | 'duckdb', dir, { threads });
//   const system = openHttpClient(url);           // either system behind POST /cypher
//   const conn = system.connect();
//   await conn.exec(text, params, { write });   // runs and materialises every row; row count
//   await conn.query(text, params);             // { columns, types, rows } for comparisons
//   await system.checkpoint(); await system.close();
// Both are used the way an application would: GraphDB through its public API with one native
// thread per connection; Kùzu through its npm package with a prepared statement per query text
// (prepared once, executed with new parameters every time). Kùzu admits one write transaction
// at a time and fails the others, so its connections take a process-wide write lock, the
// equivalent of GraphDB's database lock.
//
// The SQL peers (sqlite: better-sqlite3; duckdb: @duckdb/node-api) hold the social graph as a
// `person` table and a `knows(src, dst, since)` table with indexes on both directions, and run
// the SQL form of each operation (`query.sql`; graph systems run `query.cypher`, or the query
// when it is a string). SQLite runs in WAL mode with `synchronous=FULL` (every commit is
// fdatasync'ed, as GraphDB's syncOnCommit), or `synchronous=NORMAL` for the workloads that run
// GraphDB without sync (a commit reaches the WAL file, not the disk); DuckDB with its defaults.
// Both are optional devDependencies: `peerUnavailable(name)` says why one cannot run.

import fs from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const require = createRequire(path.join(root, 'package.json'));

/** GraphDB and its peers, in report order. The SQL peers run the social-graph workloads only. */
export const SYSTEMS = ['graphdb', 'kuzu', 'sqlite', 'duckdb'];
export const PEERS = SYSTEMS.slice(1);
export const SQL_SYSTEMS = ['sqlite', 'duckdb'];
/** The package each peer comes from (a devDependency). */
export const PEER_PACKAGES = { kuzu: 'kuzu', sqlite: 'better-sqlite3', duckdb: '@duckdb/node-api' };

export async function openSystem(name, dir, options = {}) {
  if (name === 'graphdb') return openGraphDB(dir, options);
  if (name === 'kuzu') return openKuzu(dir, options);
  if (name === 'sqlite') return openSqlite(dir, options);
  if (name === 'duckdb') return openDuckDB(dir, options);
  throw new Error(`unknown system '${name}'`);
}

/**
 * Null when peer `name` can run here, else why not (its package is missing or its native
 * part does not load): the runner skips such a peer with that message.
 */
export async function peerUnavailable(name) {
  const pkg = PEER_PACKAGES[name];
  try {
    if (name === 'sqlite') {
      const Sqlite = require(pkg);
      new Sqlite(':memory:').close();
    } else if (name === 'duckdb') {
      const { DuckDBInstance } = await import(pkg);
      const instance = await DuckDBInstance.create(':memory:');
      instance.closeSync?.();
    } else {
      require(pkg);
    }
    return null;
  } catch (error) {
    const first = String(error?.message ?? error).split('\n')[0];
    return `${pkg} cannot be loaded (${first}); \`npm install\` installs it`;
  }
}

/** The text of `query` for a system: Cypher for the graph systems, its SQL form for the others. */
function queryText(query, system) {
  if (typeof query === 'string') {
    if (SQL_SYSTEMS.includes(system)) throw new Error(`${system} has no SQL form of: ${query}`);
    return query;
  }
  if (!SQL_SYSTEMS.includes(system)) return query.cypher;
  const sql = typeof query.sql === 'string' ? query.sql : query.sql?.[system];
  if (!sql) throw new Error(`${system} has no SQL form of: ${query.cypher}`);
  return sql;
}

/** The GraphDB package in `graphdbRoot`, a folder holding dist/ and build/ (the runner's snapshot). */
export function importGraphDB(graphdbRoot = root) {
  return import(pathToFileURL(path.join(graphdbRoot, 'dist', 'index.js')).href);
}

/** `syncOnCommit`: GraphDB's option (default true, as in the package). */
async function openGraphDB(dir, { threads, graphdbRoot, syncOnCommit }) {
  const { Database } = await importGraphDB(graphdbRoot);
  const db = new Database(dir, {
    ...(threads ? { maxThreadNum: threads } : {}),
    ...(syncOnCommit === undefined ? {} : { syncOnCommit }),
  });
  return {
    name: 'graphdb',
    connect() {
      const conn = db.connect();
      return {
        async exec(query, params) {
          const result = await conn.query(queryText(query, 'graphdb'), params);
          return result.rows.length;
        },
        async query(query, params) {
          const result = await conn.query(queryText(query, 'graphdb'), params);
          return { columns: result.columns, types: result.types, rows: result.rows };
        },
      };
    },
    async checkpoint() {
      await db.checkpoint();
    },
    async close() {
      db.close();
    },
  };
}

export async function openKuzu(dir) {
  const kuzu = require('kuzu');
  const db = new kuzu.Database(dir);
  await db.init();
  const writeLock = createMutex();
  const admin = new kuzu.Connection(db);
  const connections = [admin];
  return {
    name: 'kuzu',
    connect() {
      const conn = new kuzu.Connection(db);
      connections.push(conn);
      const prepared = new Map();
      const run = async (query, params) => {
        const text = queryText(query, 'kuzu');
        if (!params || Object.keys(params).length === 0) return conn.query(text);
        let statement = prepared.get(text);
        if (!statement) {
          statement = await conn.prepare(text);
          if (!statement.isSuccess()) throw new Error(statement.getErrorMessage());
          prepared.set(text, statement);
        }
        return conn.execute(statement, params);
      };
      const locked = (write, fn) => (write ? writeLock(fn) : fn());
      return {
        exec(text, params, { write = false } = {}) {
          return locked(write, async () => {
            const result = await run(text, params);
            const rows = await result.getAll();
            result.close();
            return rows.length;
          });
        },
        query(text, params, { write = false } = {}) {
          return locked(write, async () => {
            const result = await run(text, params);
            const columns = result.getColumnNamesSync();
            const types = result.getColumnDataTypesSync();
            const objects = await result.getAll();
            result.close();
            return { columns, types, rows: objects.map((o) => columns.map((c) => o[c])) };
          });
        },
      };
    },
    async checkpoint() {
      const result = await admin.query('CHECKPOINT');
      result.close();
    },
    async close() {
      // Kùzu can crash at exit when a database closes under open connections or results.
      for (const conn of connections) await conn.close();
      await db.close();
    },
  };
}

/** The SQL schema of the social graph (the Cypher one is SOCIAL_SCHEMA in workloads.mjs). */
const SQL_SCHEMA = {
  sqlite: [
    'CREATE TABLE person(id INTEGER PRIMARY KEY, name TEXT, age INTEGER, city TEXT)',
    'CREATE TABLE knows(src INTEGER NOT NULL, dst INTEGER NOT NULL, since TEXT)',
  ],
  duckdb: [
    'CREATE TABLE person(id BIGINT PRIMARY KEY, name VARCHAR, age BIGINT, city VARCHAR)',
    'CREATE TABLE knows(src BIGINT NOT NULL, dst BIGINT NOT NULL, since DATE)',
  ],
};
/**
 * Built after the load, as a user loading a dump would. Both directions are indexed, as
 * GraphDB and Kùzu keep adjacency both ways. SQLite's two-column indexes cover a hop; DuckDB
 * uses its (ART) indexes for equality on one column, so it gets one per column.
 */
const SQL_INDEXES = {
  sqlite: ['CREATE INDEX knows_src_dst ON knows(src, dst)', 'CREATE INDEX knows_dst_src ON knows(dst, src)'],
  duckdb: ['CREATE INDEX knows_src ON knows(src)', 'CREATE INDEX knows_dst ON knows(dst)'],
};

/** Reads a `|`-separated CSV with a header line; calls row(fields) per line. */
function forEachCsvRow(file, row) {
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  for (let i = 1; i < lines.length; i++) {
    if (lines[i] !== '') row(lines[i].split('|'));
  }
}

/**
 * SQLite through better-sqlite3, in `dir`/social.sqlite. Synchronous, as the package is: each
 * call runs on the calling thread. `syncOnCommit: false` (the *_nosync workloads) selects
 * synchronous=NORMAL, which in WAL mode does not fsync at commit.
 */
function openSqlite(dir, { syncOnCommit }) {
  const Sqlite = require(PEER_PACKAGES.sqlite);
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, 'social.sqlite');
  const handles = [];
  const open = () => {
    const db = new Sqlite(file);
    db.pragma('journal_mode = WAL');
    db.pragma(`synchronous = ${syncOnCommit === false ? 'NORMAL' : 'FULL'}`);
    db.pragma('busy_timeout = 10000');
    handles.push(db);
    return db;
  };
  const admin = open();
  return {
    name: 'sqlite',
    connect() {
      const db = open();
      const statements = new Map();
      const statement = (query) => {
        const text = queryText(query, 'sqlite');
        let prepared = statements.get(text);
        if (!prepared) {
          prepared = db.prepare(text);
          statements.set(text, prepared);
        }
        return prepared;
      };
      const run = (query, params) => {
        const prepared = statement(query);
        if (!prepared.reader) {
          prepared.run(params ?? {});
          return { columns: [], rows: [] };
        }
        const rows = prepared.raw(true).all(params ?? {});
        return { columns: prepared.columns().map((c) => c.name), rows };
      };
      return {
        async exec(query, params) {
          return run(query, params).rows.length;
        },
        async query(query, params) {
          return run(query, params);
        },
      };
    },
    /** Schema, the CSVs in one transaction, then the indexes. */
    async loadSocial(data) {
      for (const text of SQL_SCHEMA.sqlite) admin.exec(text);
      const person = admin.prepare('INSERT INTO person VALUES (?, ?, ?, ?)');
      const knows = admin.prepare('INSERT INTO knows VALUES (?, ?, ?)');
      admin.transaction(() => {
        forEachCsvRow(data.personFile, (f) => person.run(Number(f[0]), f[1], Number(f[2]), f[3]));
        forEachCsvRow(data.knowsFile, (f) => knows.run(Number(f[0]), Number(f[1]), f[2]));
      })();
      for (const text of SQL_INDEXES.sqlite) admin.exec(text);
      admin.exec('ANALYZE');
    },
    async checkpoint() {
      admin.pragma('wal_checkpoint(TRUNCATE)');
    },
    async close() {
      for (const db of handles) db.close();
    },
  };
}

/**
 * DuckDB through @duckdb/node-api, in `dir`/social.duckdb, with its defaults (threads = cores;
 * commits write its WAL). Integer parameters are bound as BIGINT, so the index on id applies.
 * Writes take a process-wide lock, as Kùzu's do: DuckDB fails a transaction that conflicts with
 * a concurrent one.
 */
async function openDuckDB(dir) {
  const { DuckDBInstance } = await import(PEER_PACKAGES.duckdb);
  fs.mkdirSync(dir, { recursive: true });
  const instance = await DuckDBInstance.create(path.join(dir, 'social.duckdb'));
  const writeLock = createMutex();
  const connections = [];
  const connectRaw = async () => {
    const conn = await instance.connect();
    connections.push(conn);
    return conn;
  };
  const admin = await connectRaw();
  const bindable = (params) =>
    Object.fromEntries(
      Object.entries(params ?? {}).map(([k, v]) => [k, Number.isInteger(v) ? BigInt(v) : v]),
    );
  return {
    name: 'duckdb',
    connect() {
      const ready = connectRaw();
      const statements = new Map();
      const run = async (query, params) => {
        const conn = await ready;
        const text = queryText(query, 'duckdb');
        if (!params || Object.keys(params).length === 0) {
          // Unprepared, as the Kùzu adapter does: a prepared `SELECT count(*) FROM knows` run
          // again on a reopened database returned the count of its first run (DuckDB 1.5.6).
          const reader = await conn.runAndReadAll(text);
          return { columns: reader.columnNames(), rows: reader.getRows() };
        }
        let prepared = statements.get(text);
        if (!prepared) {
          prepared = await conn.prepare(text);
          statements.set(text, prepared);
        }
        prepared.bind(bindable(params));
        const reader = await prepared.runAndReadAll();
        return { columns: reader.columnNames(), rows: reader.getRows() };
      };
      const locked = (write, fn) => (write ? writeLock(fn) : fn());
      return {
        exec(query, params, { write = false } = {}) {
          return locked(write, async () => (await run(query, params)).rows.length);
        },
        query(query, params, { write = false } = {}) {
          return locked(write, () => run(query, params));
        },
      };
    },
    /** Schema, COPY of both CSVs, then the indexes. */
    async loadSocial(data) {
      for (const text of SQL_SCHEMA.duckdb) await admin.run(text);
      const csv = "(HEADER true, DELIMITER '|')";
      await admin.run(`COPY person FROM '${data.personFile}' ${csv}`);
      await admin.run(`COPY knows FROM '${data.knowsFile}' ${csv}`);
      for (const text of SQL_INDEXES.duckdb) await admin.run(text);
    },
    async checkpoint() {
      await admin.run('CHECKPOINT');
    },
    async close() {
      for (const conn of connections) conn.closeSync();
      instance.closeSync();
    },
  };
}

/** A FIFO async mutex: `lock(fn)` runs fn after every earlier caller's fn settled. */
function createMutex() {
  let tail = Promise.resolve();
  return (fn) => {
    const run = tail.then(fn);
    tail = run.catch(() => {});
    return run;
  };
}

/**
 * The same interface over HTTP, for the load generator of the `http_*` workloads: every
 * connection is one keep-alive client (its own socket) sending `POST /cypher` with
 * `{query, parameters, access_mode}` and awaiting the answer before the next request.
 *
 * A request fails unless the answer is 200 with `rows` as an array of rows, as many as the
 * operation expects (`exec`'s `rows` for an exact count, `minRows` for a lower bound). `exec`
 * counts a failure and resolves to 0 rows, so the clients keep to the timed window;
 * `requestCounts()` tells the workload, which fails the trial on any. `query` (for checks)
 * throws instead.
 */
export function openHttpClient(url) {
  const target = new URL('/cypher', url);
  const agents = [];
  const checker = requestChecker();

  const post = (agent, text, params, write) =>
    new Promise((resolve) => {
      const body = JSON.stringify({
        query: queryText(text, 'graphdb'),
        parameters: params ?? {},
        access_mode: write ? 'update' : 'read',
      });
      const request = http.request(
        target,
        {
          method: 'POST',
          agent,
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
        },
        (response) => {
          const chunks = [];
          response.on('data', (chunk) => chunks.push(chunk));
          response.on('end', () =>
            resolve({ status: response.statusCode, text: Buffer.concat(chunks).toString() }),
          );
          response.on('error', (error) => resolve({ status: 0, text: error.message }));
        },
      );
      request.on('error', (error) => resolve({ status: 0, text: error.message }));
      request.end(body);
    });

  /** The parsed answer, or a string saying what is wrong with it. */
  const answer = async (agent, text, params, options = {}) => {
    const { status, text: payload } = await post(agent, text, params, options.write ?? false);
    let parsed = null;
    try {
      parsed = JSON.parse(payload);
    } catch {
      // reported below
    }
    const failed = status !== 200 ? `HTTP ${status || 'request failed'}: ${payload.slice(0, 200)}` : null;
    const rows = parsed?.rows;
    const ok = Array.isArray(rows) && rows.every(Array.isArray);
    const problem = checker.check(
      failed ?? (ok ? null : `no rows in ${payload.slice(0, 200)}`),
      rows,
      queryText(text, 'graphdb'),
      params,
      options,
    );
    return problem ?? parsed;
  };

  return {
    name: 'http',
    connect() {
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      agents.push(agent);
      return {
        async exec(text, params, options) {
          const result = await answer(agent, text, params, options);
          return typeof result === 'string' ? 0 : result.rows.length;
        },
        async query(text, params, options) {
          const result = await answer(agent, text, params, options);
          if (typeof result === 'string') throw new Error(result);
          return { columns: result.columns, types: result.types, rows: result.rows };
        },
      };
    },
    requestCounts: checker.counts,
    async checkpoint() {},
    async close() {
      for (const agent of agents) agent.destroy();
    },
  };
}

/**
 * Counts the requests of a load generator and the failed ones, with the first few distinct
 * failures: `check(problem, rows, ...)` returns the problem (a request that failed, or rows not
 * as many as `options.rows` / at least `options.minRows`), null when the answer is fine.
 */
function requestChecker() {
  const counts = { requests: 0, errors: 0, first: [] };
  return {
    check(failed, rows, text, params, { rows: expected, minRows = 0 } = {}) {
      counts.requests++;
      let problem = failed;
      if (!problem && expected !== undefined && rows.length !== expected) {
        problem = `${rows.length} rows, expected ${expected}`;
      } else if (!problem && rows.length < minRows) {
        problem = `${rows.length} rows, expected at least ${minRows}`;
      }
      if (!problem) return null;
      counts.errors++;
      if (counts.first.length < 3 && !counts.first.some((f) => f.startsWith(problem))) {
        counts.first.push(`${problem} (for ${text} ${JSON.stringify(params)})`);
      }
      return problem;
    },
    counts() {
      return { requests: counts.requests, errors: counts.errors, first: [...counts.first] };
    },
  };
}

/**
 * The same interface over Bolt, for the load generator of the `bolt_*` workloads: the official
 * neo4j-driver, one session per connection, each statement awaited before the next (reads in
 * read mode, writes in write mode). Whole numbers go as Integers (a JS number would be a
 * Float), and integers come back as numbers. Failures are counted as over HTTP.
 */
export async function openBoltClient(url) {
  const neo4j = (await import('neo4j-driver')).default;
  const driver = neo4j.driver(url, undefined, { maxConnectionPoolSize: 64, disableLosslessIntegers: true });
  const checker = requestChecker();
  const sessions = [];
  const integers = (params) => {
    const out = {};
    for (const [name, value] of Object.entries(params ?? {})) {
      out[name] = Number.isInteger(value) ? neo4j.int(value) : value;
    }
    return out;
  };
  const run = async (session, text, params, options = {}) => {
    let rows = [];
    let failed = null;
    let columns = [];
    try {
      const result = await session.run(queryText(text, 'graphdb'), integers(params), {});
      columns = result.records[0]?.keys ?? [];
      rows = result.records.map((record) => record.keys.map((key) => record.get(key)));
    } catch (error) {
      failed = `${error.code ?? 'ERROR'}: ${String(error.message).slice(0, 200)}`;
    }
    return { problem: checker.check(failed, rows, text, params, options), columns, rows };
  };
  return {
    name: 'bolt',
    connect() {
      const sessionFor = {
        read: driver.session({ defaultAccessMode: neo4j.session.READ }),
        write: driver.session(),
      };
      sessions.push(sessionFor.read, sessionFor.write);
      const pick = (options) => (options?.write ? sessionFor.write : sessionFor.read);
      return {
        async exec(text, params, options) {
          const answer = await run(pick(options), text, params, options);
          return answer.problem ? 0 : answer.rows.length;
        },
        async query(text, params, options) {
          const answer = await run(pick(options), text, params, options);
          if (answer.problem) throw new Error(answer.problem);
          return { columns: answer.columns, types: [], rows: answer.rows };
        },
      };
    },
    requestCounts: checker.counts,
    async checkpoint() {},
    async close() {
      for (const session of sessions) await session.close();
      await driver.close();
    },
  };
}
