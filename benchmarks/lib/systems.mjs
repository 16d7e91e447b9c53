// One small adapter per system, so workloads are written once:
//   const system = await openSystem('graphdb' | 'kuzu', dir, { threads });
//   const conn = system.connect();
//   await conn.exec(text, params, { write });   // runs and materialises every row; row count
//   await conn.query(text, params);             // { columns, types, rows } for comparisons
//   await system.checkpoint(); await system.close();
// Both are used the way an application would: GraphDB through its public API with one native
// thread per connection; Kùzu through its npm package with a prepared statement per query text
// (prepared once, executed with new parameters every time). Kùzu admits one write transaction
// at a time and fails the others, so its connections take a process-wide write lock, the
// equivalent of GraphDB's database lock.

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

/** `graphdbRoot`: a package folder holding dist/ and build/ (the runner's snapshot of them). */
async function openGraphDB(dir, { threads, graphdbRoot = root }) {
  const { Database } = await import(pathToFileURL(path.join(graphdbRoot, 'dist', 'index.js')).href);
  const db = new Database(dir, threads ? { maxThreadNum: threads } : {});
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

async function openKuzu(dir, _options) {
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
