#!/usr/bin/env node
// The server side of the `http_*` workloads: serves one trial's database over HTTP until it gets
// SIGTERM (or its standard input closes, when the runner is gone).
//
//   node benchmarks/server.mjs --system graphdb|kuzu --db PATH [--connections N]
//     [--graphdb PACKAGE_DIR]  (where dist/ and build/ are; default: this package)
//     [--bolt]                 (graphdb only: serve Bolt too and announce its bolt:// URL)
//
// Both systems answer the same route on 127.0.0.1 (a free port): `POST /cypher` with a JSON body
// `{query, parameters, access_mode}`, and a JSON answer whose `rows` are arrays of values.
// - graphdb: what `graphdb serve` runs: `new Database(PATH, { maxThreadNum: N })` served by
//   GraphDBService (createApp on @hono/node-server) with its defaults, N execution slots.
// - kuzu: the server a user would write around the `kuzu` package: a Hono app on
//   @hono/node-server, a pool of N Kùzu connections (prepared statements cached per connection,
//   as in the embedded workloads), writes serialised because Kùzu fails concurrent write
//   transactions, the body read as fast as GraphDB's service reads it (see readBody).
// N defaults to the machine's parallelism: one connection or slot per core.
//
// Prints one JSON line once it listens, `{"listening": URL}`, and one when it has stopped,
// `{"stopped": true, "served": N}` (statements it ran); `{"error"}` and exit code 1 on failure.

import { parseArgs } from 'node:util';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { importGraphDB, openKuzu } from './lib/systems.mjs';
import { defaultParallelism } from './lib/workloads.mjs';

const HOST = '127.0.0.1';

const { values: args } = parseArgs({
  options: {
    system: { type: 'string' },
    db: { type: 'string' },
    connections: { type: 'string' },
    graphdb: { type: 'string' },
    bolt: { type: 'boolean', default: false },
  },
});

function announce(message) {
  process.stdout.write(`${JSON.stringify(message)}\n`);
}

/** `graphdb serve PATH --port 0`, minus the console output. */
async function serveGraphDB(dir, connections) {
  const { Database, GraphDBService } = await importGraphDB(args.graphdb);
  const db = new Database(dir, { maxThreadNum: connections });
  const service = new GraphDBService(db, {
    queryPort: 0,
    hostStr: HOST,
    ...(args.bolt ? { boltPort: 0 } : {}),
  });
  const url = await service.start();
  return {
    // With --bolt the load generator talks Bolt (`graphdb serve --bolt-port 0`).
    url: args.bolt ? service.boltUrl : url,
    async stop() {
      const served = service.pool?.getExecutedQueryNum() ?? 0;
      await service.close();
      db.close();
      return { served };
    },
  };
}

/** A request whose access_mode is not one of these may write (and is serialised). */
const READ_MODES = new Set(['read', 'r']);

/** Kùzu behind Hono, with a FIFO pool of `connections` Kùzu connections. */
async function serveKuzu(dir, connections) {
  const system = await openKuzu(dir);
  const pool = createPool(Array.from({ length: connections }, () => system.connect()));
  let served = 0;
  const app = new Hono();
  app.post('/cypher', async (c) => {
    let body;
    try {
      body = JSON.parse(await readBody(c.env.incoming));
    } catch {
      return c.json({ error: { code: 'INVALID_REQUEST', message: 'the body is not JSON' } }, 400);
    }
    const { query, parameters = {}, access_mode: mode } = body ?? {};
    if (typeof query !== 'string' || query === '') {
      return c.json({ error: { code: 'INVALID_REQUEST', message: 'query must be a non-empty string' } }, 400);
    }
    const conn = await pool.acquire();
    try {
      const result = await conn.query(query, parameters, { write: !READ_MODES.has(mode) });
      served++;
      return c.json(result);
    } catch (error) {
      return c.json({ error: { code: 'QUERY_ERROR', message: String(error?.message ?? error) } }, 400);
    } finally {
      pool.release(conn);
    }
  });
  const server = await new Promise((resolve) => {
    const s = serve({ fetch: app.fetch, port: 0, hostname: HOST }, () => resolve(s));
  });
  return {
    url: `http://${HOST}:${server.address().port}`,
    async stop() {
      const closed = new Promise((resolve) => server.close(resolve));
      server.closeAllConnections();
      await closed;
      await system.close();
      return { served };
    },
  };
}

/**
 * The request body as text, read from Node's IncomingMessage (`c.env.incoming`, which
 * @hono/node-server provides) as GraphDB's service reads it. The idiomatic `c.req.json()`
 * builds a web Request stream first; here it halved the Kùzu server's throughput, which would
 * have measured Hono rather than Kùzu.
 */
async function readBody(incoming) {
  const chunks = [];
  for await (const chunk of incoming) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}

/** A fixed set of items lent one request at a time; requests wait their turn in order. */
function createPool(items) {
  const free = [...items];
  const waiting = [];
  return {
    acquire() {
      return free.length > 0 ? Promise.resolve(free.pop()) : new Promise((resolve) => waiting.push(resolve));
    },
    release(item) {
      const next = waiting.shift();
      if (next) next(item);
      else free.push(item);
    },
  };
}

async function main() {
  if (!args.db) throw new Error('--db is required');
  const connections = Number(args.connections ?? defaultParallelism());
  if (!Number.isInteger(connections) || connections < 1) throw new Error('--connections must be >= 1');
  const start = { graphdb: serveGraphDB, kuzu: serveKuzu }[args.system];
  if (!start) throw new Error(`unknown system '${args.system}'`);
  if (args.bolt && args.system !== 'graphdb') throw new Error(`${args.system} has no Bolt server`);
  const server = await start(args.db, connections);
  announce({ listening: server.url });
  await new Promise((resolve) => {
    process.once('SIGTERM', resolve);
    process.stdin.once('end', resolve).resume();
  });
  announce({ stopped: true, ...(await server.stop()) });
  process.stdin.destroy();
}

try {
  await main();
} catch (error) {
  announce({ error: { code: error.code ?? 'ERROR', message: error.message } });
  process.exitCode = 1;
}
