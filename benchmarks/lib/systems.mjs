// One small adapter per system, so workloads are written once:
//   const system = await openSystem('graphdb' | 'kuzu', dir, { threads });
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

import http from 'node:http';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const require = createRequire(path.join(root, 'package.json'));

export const SYSTEMS = ['graphdb', 'kuzu'];

export async function openSystem(name, dir, options = {}) {
  if (name === 'graphdb') return openGraphDB(dir, options);
  if (name === 'kuzu') return openKuzu(dir, options);
  throw new Error(`unknown system '${name}'`);
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
        async exec(text, params) {
          const result = await conn.query(text, params);
          return result.rows.length;
        },
        async query(text, params) {
          const result = await conn.query(text, params);
          return { columns: result.columns, types: result.types, rows: result.rows };
        },
      };
    },
    async checkpoint() {
      db.checkpoint();
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
      const run = async (text, params) => {
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
        query: text,
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
      text,
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
      const result = await session.run(text, integers(params), {});
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
