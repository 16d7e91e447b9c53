#!/usr/bin/env node
// HTTP throughput of the GraphDB service next to bare echo servers.
//
//   node benchmarks/http/bench.mjs [--seconds N] [--clients N] [--persons N] [--threads N]
//                                  [--rounds N] [--json FILE]
//
// 1. Generates a graph of --persons Person nodes (default 100k) with UNWIND batches and serves
//    it with GraphDBService (port 0, loopback).
// 2. Runs --clients (default 32) closed-loop keep-alive clients for --seconds (default 10)
//    against POST /cypher with a point lookup, `MATCH (p:Person {id: $id}) RETURN p.name`,
//    random ids.
// 3. Measures the same way, with the same request bodies, a bare `node:http` server that answers
//    every request with its body as application/json (the ceiling: what any Node HTTP server
//    costs), and a bare Hono app on @hono/node-server doing the same two ways (POST /echo with
//    c.req.text(), POST /echo-raw reading Node's IncomingMessage).
// With --rounds N (default 1) it measures all four in turn N times, and reports each one's
// median round: on a shared machine the ratios of one round are measured under the same load.
// Prints requests/s, latency percentiles and the ratios. The load generator runs in a worker
// thread (its own event loop), so it does not share the server's JavaScript thread.
// Needs the built package (`npm run build`).

import { readFileSync, writeFileSync } from 'node:fs';
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
      rounds: { type: 'string', default: '1' },
      json: { type: 'string' },
    },
  });
  const seconds = Number(values.seconds);
  const warmup = Number(values.warmup);
  const clients = Number(values.clients);
  const persons = Number(values.persons);
  const threads = Number(values.threads);
  const rounds = Number(values.rounds);
  for (const [name, value] of Object.entries({ seconds, warmup, clients, persons, threads, rounds })) {
    if (!Number.isFinite(value) || value < 0) throw new Error(`--${name} must be a non-negative number`);
  }
  if (!Number.isInteger(rounds) || rounds < 1) throw new Error('--rounds must be a whole number >= 1');

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

  // --- the bare node:http echo server (the ceiling) ------------------------------------------
  const nodeServer = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length });
      res.end(body);
    });
  });
  await new Promise((resolve) => nodeServer.listen(0, '127.0.0.1', resolve));
  const nodeUrl = `http://127.0.0.1:${nodeServer.address().port}/echo`;

  // Sanity check: the lookup answers what we expect.
  const probe = await fetch(`${serviceUrl}/cypher`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: LOOKUP, access_mode: 'read', parameters: { id: 42 } }),
  });
  const probeBody = await probe.json();
  if (probe.status !== 200 || probeBody.rows?.[0]?.[0] !== 'person-42') {
    throw new Error(`unexpected lookup answer ${probe.status}: ${JSON.stringify(probeBody)}`);
  }

  const options = { clients, seconds, warmup, persons };
  const targets = {
    cypher: { url: `${serviceUrl}/cypher`, what: 'POST /cypher' },
    echoNode: { url: nodeUrl, what: 'bare node:http echo' },
    echo: { url: `${echoUrl}/echo`, what: 'bare Hono POST /echo (c.req.text())' },
    echoRaw: {
      url: `${echoUrl}/echo-raw`,
      what: 'bare Hono POST /echo-raw (body read from the IncomingMessage)',
    },
  };
  const measured = { cypher: [], echoNode: [], echo: [], echoRaw: [] };
  log(
    `${clients} keep-alive clients, ${seconds} s (+${warmup} s warm-up) per measurement, ${rounds} round(s)`,
  );
  for (let round = 1; round <= rounds; round++) {
    for (const [name, target] of Object.entries(targets)) {
      log(`round ${round}: measuring ${target.what}`);
      measured[name].push(await runClients({ ...options, url: target.url }));
    }
    const r = measured.cypher.at(-1).requestsPerSecond / measured.echoNode.at(-1).requestsPerSecond;
    log(
      `round ${round}: /cypher : node:http echo = ${r.toFixed(3)} (load average ${os.loadavg()[0].toFixed(2)})`,
    );
  }
  const median = (list) =>
    [...list].sort((a, b) => a.requestsPerSecond - b.requestsPerSecond)[(list.length - 1) >> 1];
  const cypher = median(measured.cypher);
  const echoNode = median(measured.echoNode);
  const echo = median(measured.echo);
  const echoRaw = median(measured.echoRaw);

  await new Promise((resolve) => echoServer.close(resolve));
  echoServer.closeAllConnections?.();
  await new Promise((resolve) => nodeServer.close(resolve));
  nodeServer.closeAllConnections?.();
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
    rounds,
    loadAverage: os.loadavg().map((v) => round(v)),
    loadSeconds: round(loadSeconds),
    cypher,
    echoNode,
    echo,
    echoRaw,
    ratioNode: round(cypher.requestsPerSecond / echoNode.requestsPerSecond, 3),
    // The median of the rounds' own ratios (each measured under the same load).
    ratioNodeOfRounds: round(
      [...measured.cypher.keys()]
        .map((i) => measured.cypher[i].requestsPerSecond / measured.echoNode[i].requestsPerSecond)
        .sort((a, b) => a - b)[(rounds - 1) >> 1],
      3,
    ),
    ratio: round(cypher.requestsPerSecond / echo.requestsPerSecond, 3),
    ratioRaw: round(cypher.requestsPerSecond / echoRaw.requestsPerSecond, 3),
    perRound: measured.cypher.map((c, i) => ({
      cypher: c.requestsPerSecond,
      echoNode: measured.echoNode[i].requestsPerSecond,
      ratioNode: round(c.requestsPerSecond / measured.echoNode[i].requestsPerSecond, 3),
      cypherCpuMicros: c.serverCpuMicrosPerRequest,
      echoNodeCpuMicros: measured.echoNode[i].serverCpuMicrosPerRequest,
    })),
    // The median over the rounds of each server's CPU time per request (null where unknown).
    serverCpuMicrosPerRequest: Object.fromEntries(
      Object.entries(measured).map(([name, list]) => {
        const known = list.map((r) => r.serverCpuMicrosPerRequest).filter((v) => v !== null);
        return [name, known.length ? known.sort((a, b) => a - b)[(known.length - 1) >> 1] : null];
      }),
    ),
  };
  const line = (name, r) =>
    `${name.padEnd(22)} ${String(Math.round(r.requestsPerSecond)).padStart(8)} req/s   ` +
    `p50 ${r.latencyMs.p50.toFixed(2)} ms   p99 ${r.latencyMs.p99.toFixed(2)} ms   errors ${r.errors}` +
    (r.serverCpuMicrosPerRequest === null ? '' : `   server CPU ${r.serverCpuMicrosPerRequest} µs/request`);
  console.log(line('POST /cypher (lookup)', cypher));
  console.log(line('bare node:http echo', echoNode));
  console.log(line('bare Hono POST /echo', echo));
  console.log(line('bare Hono /echo-raw', echoRaw));
  console.log(`ratio /cypher : node:http echo = ${result.ratioNode.toFixed(3)}`);
  if (rounds > 1) console.log(`  median of the rounds' ratios  = ${result.ratioNodeOfRounds.toFixed(3)}`);
  const cpu = result.serverCpuMicrosPerRequest;
  if (cpu.cypher !== null && cpu.echoNode !== null) {
    console.log(
      `server CPU per request: /cypher ${cpu.cypher} µs, node:http echo ${cpu.echoNode} µs (median rounds)`,
    );
  }
  console.log(`ratio /cypher : Hono echo      = ${result.ratio.toFixed(3)}`);
  console.log(`ratio /cypher : Hono echo-raw  = ${result.ratioRaw.toFixed(3)}`);
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
  const cpuAtStart = serverCpuMicros();
  const started = performance.now();
  await sleep(seconds * 1000);
  stopped = true;
  const elapsed = (performance.now() - started) / 1000;
  const cpuAtEnd = serverCpuMicros();
  const countedRequests = completed;
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
    // CPU time of the process but this load generator's thread (the server's JavaScript thread,
    // its native threads, GC), per request: much steadier than requests/s on a shared machine.
    serverCpuMicrosPerRequest:
      cpuAtStart === null || cpuAtEnd === null || countedRequests === 0
        ? null
        : round((cpuAtEnd - cpuAtStart) / countedRequests, 1),
    latencyMs: { p50: round(pct(0.5), 3), p90: round(pct(0.9), 3), p99: round(pct(0.99), 3) },
  });
}

/**
 * CPU time (µs) of this process minus the calling thread's (Linux: /proc/thread-self), or null
 * where that cannot be read. Thread times come in clock ticks (10 ms), fine over a window of
 * seconds.
 */
function serverCpuMicros() {
  try {
    const fields = readFileSync('/proc/thread-self/stat', 'utf8').split(') ')[1].split(' ');
    const threadTicks = Number(fields[11]) + Number(fields[12]); // utime, stime
    const usage = process.cpuUsage();
    return usage.user + usage.system - threadTicks * 10_000;
  } catch {
    return null;
  }
}

function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

if (isMainThread) {
  await main();
} else {
  await client(workerData);
}
