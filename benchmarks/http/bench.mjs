#!/usr/bin/env node
// HTTP throughput of the GraphDB service next to a bare Hono server.
//
//   node benchmarks/http/bench.mjs [--seconds N] [--clients N] [--persons N] [--threads N]
//                                  [--json FILE]
//
// 1. Generates a graph of --persons Person nodes (default 100k) with UNWIND batches and serves
//    it with GraphDBService (port 0, loopback).
// 2. Runs --clients (default 32) closed-loop keep-alive clients for --seconds (default 10)
//    against POST /cypher with a point lookup, `MATCH (p:Person {id: $id}) RETURN p.name`,
//    random ids.
// 3. Serves a bare Hono app on @hono/node-server whose POST /echo returns the request body as
//    application/json, and measures it the same way with the same request bodies.
// Prints requests/s, latency percentiles and the ratio. The load generator runs in a worker
// thread (its own event loop), so it does not share the server's JavaScript thread.
// Needs the built package (`npm run build`).

import { writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import { parseArgs } from 'node:util';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';

async function main() {
  const { values } = parseArgs({
    options: {
      seconds: { type: 'string', default: '10' },
      warmup: { type: 'string', default: '1' },
      clients: { type: 'string', default: '32' },
      persons: { type: 'string', default: '100000' },
      threads: { type: 'string', default: '0' },
      json: { type: 'string' },
    },
  });
  const seconds = Number(values.seconds);
  const warmup = Number(values.warmup);
  const clients = Number(values.clients);
  const persons = Number(values.persons);
  const threads = Number(values.threads);
  for (const [name, value] of Object.entries({ seconds, warmup, clients, persons, threads })) {
    if (!Number.isFinite(value) || value < 0) throw new Error(`--${name} must be a non-negative number`);
  }

  const { Database, GraphDBService } = await import('../../dist/index.js');
  const { Hono } = await import('hono');
  const { createAdaptorServer } = await import('@hono/node-server');

  // --- the graph ---------------------------------------------------------------------------
  const db = new Database(':memory:', threads > 0 ? { maxThreadNum: threads } : {});
  const loadStarted = performance.now();
  {
    const conn = db.connect();
    await conn.query('CREATE NODE TABLE Person(id INT64, name STRING, age INT64, PRIMARY KEY(id))');
    const batch = 10_000;
    for (let start = 0; start < persons; start += batch) {
      const rows = [];
      for (let id = start; id < Math.min(persons, start + batch); id++) {
        rows.push({ id, name: `person-${id}`, age: 18 + (id % 63) });
      }
      await conn.query('UNWIND $rows AS r CREATE (:Person {id: r.id, name: r.name, age: r.age})', { rows });
    }
    conn.close();
  }
  const loadSeconds = (performance.now() - loadStarted) / 1000;
  log(`loaded ${persons} Person nodes in ${loadSeconds.toFixed(2)} s`);

  const service = new GraphDBService(db, { queryPort: 0, autoCompaction: false });
  const serviceUrl = await service.start();
  log(`GraphDB service on ${serviceUrl} with ${service.pool.size} execution slots`);

  // --- the bare Hono echo servers ----------------------------------------------------------
  // `/echo` is the idiomatic handler (c.req.text()); `/echo-raw` reads the body straight from
  // Node's IncomingMessage as the service's /cypher handler does, so it isolates the cost of
  // the HTTP stack itself.
  const echoApp = new Hono();
  echoApp.post('/echo', async (c) => c.body(await c.req.text(), 200, { 'content-type': 'application/json' }));
  echoApp.post('/echo-raw', async (c) => {
    const incoming = c.env.incoming;
    const chunks = [];
    for await (const chunk of incoming) chunks.push(chunk);
    const body = Buffer.concat(chunks).toString('utf8');
    return new Response(body, { status: 200, headers: { 'content-type': 'application/json' } });
  });
  const echoServer = createAdaptorServer({ fetch: echoApp.fetch, hostname: '127.0.0.1' });
  await new Promise((resolve) => echoServer.listen(0, '127.0.0.1', resolve));
  const echoUrl = `http://127.0.0.1:${echoServer.address().port}`;

  // Sanity check: the lookup answers what we expect.
  const probe = await fetch(`${serviceUrl}/cypher`, {
    method: 'POST',
    body: JSON.stringify({ query: LOOKUP, access_mode: 'read', parameters: { id: 42 } }),
  });
  const probeBody = await probe.json();
  if (probe.status !== 200 || probeBody.rows?.[0]?.[0] !== 'person-42') {
    throw new Error(`unexpected lookup answer ${probe.status}: ${JSON.stringify(probeBody)}`);
  }

  const options = { clients, seconds, warmup, persons };
  log(`measuring POST /cypher: ${clients} keep-alive clients, ${seconds} s (+${warmup} s warm-up)`);
  const cypher = await runClients({ ...options, url: `${serviceUrl}/cypher` });
  log('measuring bare Hono POST /echo (c.req.text()) the same way');
  const echo = await runClients({ ...options, url: `${echoUrl}/echo` });
  log('measuring bare Hono POST /echo-raw (body read from the IncomingMessage) the same way');
  const echoRaw = await runClients({ ...options, url: `${echoUrl}/echo-raw` });

  await new Promise((resolve) => echoServer.close(resolve));
  echoServer.closeAllConnections?.();
  await service.close();
  db.close();

  const result = {
    date: new Date().toISOString(),
    node: process.version,
    cpus: os.availableParallelism?.() ?? os.cpus().length,
    slots: threads > 0 ? threads : db.maxThreadNum,
    persons,
    clients,
    seconds,
    loadSeconds: round(loadSeconds),
    cypher,
    echo,
    echoRaw,
    ratio: round(cypher.requestsPerSecond / echo.requestsPerSecond, 3),
    ratioRaw: round(cypher.requestsPerSecond / echoRaw.requestsPerSecond, 3),
  };
  const line = (name, r) =>
    `${name.padEnd(22)} ${String(Math.round(r.requestsPerSecond)).padStart(8)} req/s   ` +
    `p50 ${r.latencyMs.p50.toFixed(2)} ms   p99 ${r.latencyMs.p99.toFixed(2)} ms   errors ${r.errors}`;
  console.log(line('POST /cypher (lookup)', cypher));
  console.log(line('bare Hono POST /echo', echo));
  console.log(line('bare Hono /echo-raw', echoRaw));
  console.log(`ratio /cypher : echo     = ${result.ratio.toFixed(3)}`);
  console.log(`ratio /cypher : echo-raw = ${result.ratioRaw.toFixed(3)}`);
  if (values.json) {
    writeFileSync(values.json, `${JSON.stringify(result, null, 2)}\n`);
    log(`wrote ${values.json}`);
  }
}

const LOOKUP = 'MATCH (p:Person {id: $id}) RETURN p.name';

function log(message) {
  process.stderr.write(`${message}\n`);
}

function round(value, digits = 2) {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

function runClients(options) {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL(import.meta.url), { workerData: options });
    worker.once('message', resolve);
    worker.once('error', reject);
    worker.once('exit', (code) => {
      if (code !== 0) reject(new Error(`load generator exited with ${code}`));
    });
  });
}

// --- the load generator (worker thread) ------------------------------------------------------
async function client({ url, clients, seconds, warmup, persons }) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: clients });
  const target = new URL(url);
  let seed = 12345;
  const nextId = () => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return seed % persons;
  };
  const send = (body) =>
    new Promise((resolve) => {
      const req = http.request(
        {
          host: target.hostname,
          port: target.port,
          path: target.pathname,
          method: 'POST',
          agent,
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
        },
        (res) => {
          res.on('data', () => {});
          res.on('end', () => resolve(res.statusCode === 200));
        },
      );
      req.on('error', () => resolve(false));
      req.end(body);
    });

  let measuring = false;
  let stopped = false;
  let completed = 0;
  let errors = 0;
  const latencies = [];
  const loop = async () => {
    while (!stopped) {
      const body = JSON.stringify({ query: LOOKUP, access_mode: 'read', parameters: { id: nextId() } });
      const started = performance.now();
      const ok = await send(body);
      if (measuring && !stopped) {
        completed++;
        if (!ok) errors++;
        latencies.push(performance.now() - started);
      }
    }
  };
  const loops = Array.from({ length: clients }, loop);
  await sleep(warmup * 1000);
  measuring = true;
  const started = performance.now();
  await sleep(seconds * 1000);
  stopped = true;
  const elapsed = (performance.now() - started) / 1000;
  await Promise.all(loops);
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const pct = (p) =>
    latencies.length ? latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))] : 0;
  parentPort.postMessage({
    requests: completed,
    errors,
    seconds: round(elapsed, 3),
    requestsPerSecond: round(completed / elapsed, 1),
    latencyMs: { p50: round(pct(0.5), 3), p90: round(pct(0.9), 3), p99: round(pct(0.99), 3) },
  });
}

function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

if (isMainThread) {
  await main();
} else {
  await client(workerData);
}
