// The workloads. Each one runs inside a worker (one fresh process per system and trial) and
// returns metrics; `metrics` below says what each one reports, its unit and which way is better.

import fs from 'node:fs';
import os from 'node:os';
import {
  copyStatements,
  loadQuery,
  NODE_TABLE_NAMES,
  REL_TABLE_NAMES,
  SHORT_READS,
  schemaStatements,
  statementParams,
  UPDATES,
} from './ldbc.mjs';
import { normalizeResult } from './normalize.mjs';
import { createRng } from './prng.mjs';
import { EDGES_PER_PERSON, personName, randomCity, randomSince } from './social.mjs';
import { PEERS } from './systems.mjs';
import { latencySummary, round, timedLoop } from './timing.mjs';

export const SOCIAL_SCHEMA = [
  'CREATE NODE TABLE Person(id INT64, name STRING, age INT64, city STRING, PRIMARY KEY(id))',
  'CREATE REL TABLE knows(FROM Person TO Person, since DATE)',
];

export function socialCopyStatements(data) {
  return [
    `COPY Person FROM '${data.personFile}' (header=true, delim='|')`,
    `COPY knows FROM '${data.knowsFile}' (header=true, delim='|')`,
  ];
}

/**
 * The operations on the social graph: Cypher for GraphDB and Kùzu, SQL for SQLite and DuckDB
 * (over `person` and `knows(src, dst, since)`; a person's friends are the `dst` of its `knows`
 * rows). Each SQL form returns what its Cypher form returns: the same rows for the same
 * parameters, which the `social_differential` check compares.
 */
const INSERT_EDGE_SQL = (since) =>
  `INSERT INTO knows(src, dst, since) SELECT a.id, b.id, ${since} FROM person a, person b WHERE a.id = $a AND b.id = $b`;
export const Q = {
  pointRead: {
    cypher: 'MATCH (p:Person {id: $id}) RETURN p.name, p.age, p.city',
    sql: 'SELECT name, age, city FROM person WHERE id = $id',
  },
  pointName: 'MATCH (p:Person {id: $id}) RETURN p.name',
  oneHop: {
    cypher: 'MATCH (p:Person {id: $id})-[:knows]->(f:Person) RETURN f.name',
    sql: 'SELECT f.name FROM knows k JOIN person f ON f.id = k.dst WHERE k.src = $id',
  },
  twoHopCount: {
    cypher: 'MATCH (p:Person {id: $id})-[:knows]->(:Person)-[:knows]->(f:Person) RETURN count(*)',
    sql: 'SELECT count(*) FROM knows k1 JOIN knows k2 ON k2.src = k1.dst WHERE k1.src = $id',
  },
  insertNode: {
    cypher: 'CREATE (:Person {id: $id, name: $name, age: $age, city: $city})',
    sql: 'INSERT INTO person(id, name, age, city) VALUES ($id, $name, $age, $city)',
  },
  insertEdge: {
    cypher: 'MATCH (a:Person {id: $a}), (b:Person {id: $b}) CREATE (a)-[:knows {since: date($since)}]->(b)',
    sql: { sqlite: INSERT_EDGE_SQL('$since'), duckdb: INSERT_EDGE_SQL('CAST($since AS DATE)') },
  },
  updateProp: {
    cypher: 'MATCH (p:Person {id: $id}) SET p.age = $age',
    sql: 'UPDATE person SET age = $age WHERE id = $id',
  },
  countPersons: { cypher: 'MATCH (p:Person) RETURN count(*)', sql: 'SELECT count(*) FROM person' },
  countKnows: {
    cypher: 'MATCH (:Person)-[k:knows]->(:Person) RETURN count(*)',
    sql: 'SELECT count(*) FROM knows',
  },
};

const WRITE_NOTE =
  'GraphDB with syncOnCommit, SQLite with synchronous=FULL (fdatasync before each commit returns)';
const NOSYNC_NOTE =
  'GraphDB with syncOnCommit off, SQLite with synchronous=NORMAL (commit returns once in the page cache)';
/**
 * Options of the *_nosync workloads: GraphDB without syncOnCommit, SQLite with
 * synchronous=NORMAL; Kùzu and DuckDB run with their defaults in both.
 */
const NO_SYNC = { syncOnCommit: false };

const higher = (unit, note) => ({ unit, better: 'higher', ...(note ? { note } : {}) });
const lower = (unit, note) => ({ unit, better: 'lower', ...(note ? { note } : {}) });

/** What an operation expects: `write`, and the rows it returns (checked by the HTTP client). */
const ONE_ROW = { rows: 1 };
const FRIENDS = { minRows: EDGES_PER_PERSON }; // every generated person has that many out-edges
const WRITE = { write: true, rows: 0 };

/**
 * The social-graph operations. `state` is per connection: its PRNG and the next id it inserts
 * (connections use disjoint id ranges, all above the generated ones).
 */
function socialOps(ctx) {
  const persons = ctx.data.persons;
  const person = (s) => s.rng.int(persons);
  return {
    pointRead: (conn, s) => conn.exec(Q.pointRead, { id: person(s) }, ONE_ROW),
    pointName: (conn, s) => conn.exec(Q.pointName, { id: person(s) }, ONE_ROW),
    oneHop: (conn, s) => conn.exec(Q.oneHop, { id: person(s) }, FRIENDS),
    twoHopCount: (conn, s) => conn.exec(Q.twoHopCount, { id: person(s) }, ONE_ROW),
    insertNode: (conn, s) =>
      conn.exec(
        Q.insertNode,
        { id: s.nextId++, name: personName(s.rng), age: 18 + s.rng.int(63), city: randomCity(s.rng) },
        WRITE,
      ),
    insertEdge: (conn, s) =>
      conn.exec(Q.insertEdge, { a: person(s), b: person(s), since: randomSince(s.rng) }, WRITE),
    updateProp: (conn, s) => conn.exec(Q.updateProp, { id: person(s), age: 18 + s.rng.int(63) }, WRITE),
  };
}

function connectionStates(ctx, count) {
  return Array.from({ length: count }, (_, i) => ({
    rng: createRng(ctx.trial * 1000 + i + 1),
    nextId: ctx.data.persons + i * 100_000_000,
  }));
}

/**
 * A timed social workload running `pick(ops)` per op on 1 connection, on N (`parallel`) or on
 * `clients` (the HTTP clients of the `http_*` workloads).
 */
function socialTimed(metric, pick, { parallel = false, clients, verify } = {}) {
  return async (ctx) => {
    const count = clients ?? (parallel ? ctx.parallelism : 1);
    const conns = Array.from({ length: count }, () => ctx.system.connect());
    const states = connectionStates(ctx, count);
    const ops = socialOps(ctx);
    const op = pick(ops);
    const result = await timedLoop(conns, (conn, i) => op(conn, states[i]), ctx.timing);
    // Over HTTP a failed request is counted, not thrown, so the clients keep to the window; a
    // single one fails the trial, here, before the checks below.
    const requests = ctx.system.requestCounts?.();
    if (requests?.errors > 0) {
      throw new Error(
        `${requests.errors} of ${requests.requests} HTTP requests failed; first: ${requests.first.join(' | ')}`,
      );
    }
    const details = {
      connections: count,
      ...(requests ? { requests: requests.requests, errors: requests.errors } : {}),
      ops: result.ops,
      seconds: round(result.seconds, 3),
      rowsPerOp: round(result.rows / Math.max(1, result.ops), 2),
      p50Ms: result.p50Ms,
      p99Ms: result.p99Ms,
    };
    if (verify) Object.assign(details, await verify(ctx, conns[0], states));
    return { metrics: { [metric]: result.opsPerSec }, details };
  };
}

/**
 * Event-loop lag while one connection loops on awaited point reads and a second on updates
 * without sync (the scenario of docs/concurrency.md, "Fairness of inline reads"): a 5 ms
 * interval measures how late it fires; the reads and writes done in the window are reported
 * too. An application's timers, I/O and other connections get their turns only if the loop
 * does.
 */
const LAG_INTERVAL_MS = 5;
async function loopLag(ctx) {
  const reader = ctx.system.connect();
  const writer = ctx.system.connect();
  const [readState, writeState] = connectionStates(ctx, 2);
  const ops = socialOps(ctx);
  const { warmupMs, durationMs } = ctx.timing;
  const runFor = async (ms, record) => {
    const end = performance.now() + ms;
    const lags = [];
    let last = performance.now();
    const timer = setInterval(() => {
      const now = performance.now();
      lags.push(Math.max(0, now - last - LAG_INTERVAL_MS));
      last = now;
    }, LAG_INTERVAL_MS);
    let reads = 0;
    let writes = 0;
    await Promise.all([
      (async () => {
        while (performance.now() < end) {
          await ops.pointRead(reader, readState);
          reads++;
        }
      })(),
      (async () => {
        while (performance.now() < end) {
          await ops.updateProp(writer, writeState);
          writes++;
        }
      })(),
    ]);
    clearInterval(timer);
    if (record) return { lags, reads, writes };
    return null;
  };
  await runFor(warmupMs, false);
  const { lags, reads, writes } = await runFor(durationMs, true);
  const summary = latencySummary(lags);
  const expectedTicks = durationMs / LAG_INTERVAL_MS;
  return {
    metrics: {
      loop_lag_p99: summary.p99Ms,
      loop_lag_reads: (reads * 1000) / durationMs,
      loop_lag_writes: (writes * 1000) / durationMs,
    },
    details: {
      intervalMs: LAG_INTERVAL_MS,
      ticks: lags.length,
      expectedTicks,
      maxLagMs: round(Math.max(0, ...lags), 2),
      ...summary,
    },
  };
}

const mixedOp = (ops) => (conn, s) => {
  const r = s.rng.next();
  if (r < 0.36) return ops.pointRead(conn, s);
  if (r < 0.72) return ops.oneHop(conn, s);
  if (r < 0.82) return ops.insertNode(conn, s);
  if (r < 0.92) return ops.insertEdge(conn, s);
  return ops.twoHopCount(conn, s);
};

async function verifyPersonCount(ctx, conn, states) {
  const { rows } = await conn.query(Q.countPersons);
  const inserted = states.reduce((n, s, i) => n + (s.nextId - ctx.data.persons - i * 100_000_000), 0);
  const expected = ctx.data.persons + inserted;
  const actual = Number(rows[0][0]);
  if (actual !== expected) throw new Error(`insert_node check: ${actual} persons, expected ${expected}`);
  return { verified: `${actual} persons after ${inserted} inserts` };
}

/** The social graph into an empty database: Cypher DDL and COPY, or the SQL peer's own load. */
async function loadSocial(ctx, conn) {
  if (ctx.system.loadSocial) {
    await ctx.system.loadSocial(ctx.data);
    return 'schema, load of both CSVs, indexes';
  }
  const statements = [...SOCIAL_SCHEMA, ...socialCopyStatements(ctx.data)];
  for (const text of statements) await conn.exec(text);
  return `${statements.length} statements`;
}

async function copyWorkload(ctx) {
  const started = performance.now();
  const conn = ctx.system.connect();
  await loadSocial(ctx, conn);
  await ctx.system.checkpoint();
  const seconds = (performance.now() - started) / 1000;
  const rss = process.memoryUsage().rss / 2 ** 20;
  const { rows } = await conn.query(Q.countKnows);
  const edges = Number(rows[0][0]);
  if (edges !== ctx.data.knows)
    throw new Error(`copy check: ${edges} knows edges, expected ${ctx.data.knows}`);
  return {
    metrics: { copy: seconds, rss_after_load: rss },
    details: { persons: ctx.data.persons, knows: edges, includes: 'DDL, COPY of both tables, checkpoint' },
  };
}

/** IS1-IS7, one after another in the same process, each with its own warm-up and window. */
async function ldbcShortReads(ctx) {
  const params = JSON.parse(fs.readFileSync(ctx.data.paramsFile, 'utf8'));
  const conn = ctx.system.connect();
  const metrics = {};
  const details = {};
  for (const name of SHORT_READS) {
    const [statement] = loadQuery(name);
    const pool = statement.params.includes('personId') ? params.persons : params.messages;
    const key = statement.params[0];
    const rng = createRng(ctx.trial * 7919 + name.charCodeAt(2));
    const result = await timedLoop(
      [conn],
      () => conn.exec(statement.text, { [key]: rng.pick(pool) }),
      ctx.timing,
    );
    metrics[`ldbc_${name}`] = result.opsPerSec;
    details[name] = {
      ops: result.ops,
      rowsPerOp: round(result.rows / Math.max(1, result.ops), 2),
      p50Ms: result.p50Ms,
    };
  }
  return { metrics, details };
}

/**
 * Replays the IU1-IU8 update stream in time order. The first 5% of events warm up untimed;
 * each later event is timed alone (all of its statements). Table counts at the end let the
 * runner check that both systems applied the same changes.
 */
async function ldbcUpdates(ctx) {
  const events = JSON.parse(fs.readFileSync(ctx.data.updatesFile, 'utf8'));
  const limit = ctx.quick ? Math.min(events.length, 2000) : events.length;
  const warmup = Math.floor(limit * 0.05);
  const queries = Object.fromEntries(UPDATES.map((name) => [name, loadQuery(name)]));
  const conn = ctx.system.connect();
  const perType = Object.fromEntries(UPDATES.map((name) => [name, { count: 0, ms: 0, latencies: [] }]));
  for (let i = 0; i < limit; i++) {
    const { query, params } = events[i];
    const started = performance.now();
    for (const statement of queries[query]) {
      const picked = statementParams(statement, params);
      if (picked) await conn.exec(statement.text, picked, { write: true });
    }
    if (i >= warmup) {
      const ms = performance.now() - started;
      const t = perType[query];
      t.count++;
      t.ms += ms;
      t.latencies.push(ms);
    }
  }
  const totalMs = Object.values(perType).reduce((n, t) => n + t.ms, 0);
  const metrics = { ldbc_iu: ((limit - warmup) * 1000) / totalMs };
  const details = { events: limit - warmup, warmupEvents: warmup };
  for (const [name, t] of Object.entries(perType)) {
    if (t.count === 0) continue;
    metrics[`ldbc_${name}`] = (t.count * 1000) / t.ms;
    details[name] = { count: t.count, ...latencySummary(t.latencies) };
  }
  return { metrics, details, tableCounts: await ldbcTableCounts(conn) };
}

async function ldbcTableCounts(conn) {
  const counts = {};
  for (const name of NODE_TABLE_NAMES) {
    counts[name] = Number((await conn.query(`MATCH (n:${name}) RETURN count(*)`)).rows[0][0]);
  }
  for (const name of REL_TABLE_NAMES) {
    counts[name] = Number((await conn.query(`MATCH ()-[r:${name}]->() RETURN count(*)`)).rows[0][0]);
  }
  return counts;
}

/** Runs every IS query over its substitution parameters; results normalised for comparison. */
async function ldbcDifferential(ctx) {
  const params = JSON.parse(fs.readFileSync(ctx.data.paramsFile, 'utf8'));
  const perQuery = ctx.quick ? 20 : 100;
  const conn = ctx.system.connect();
  const results = [];
  for (const name of SHORT_READS) {
    const [statement] = loadQuery(name);
    const isPerson = statement.params.includes('personId');
    const pool = isPerson ? params.persons : params.messages;
    const key = statement.params[0];
    // Persons are few: walk them in a shuffled order so no id repeats before all are used.
    const order = shuffled(pool, createRng(4242 + name.charCodeAt(2)));
    for (let i = 0; i < perQuery; i++) {
      const value = order[i % order.length];
      const entry = { query: name, params: { [key]: value } };
      try {
        entry.result = normalizeResult(await conn.query(statement.text, entry.params));
      } catch (error) {
        entry.error = { code: error.code ?? 'ERROR', message: error.message };
      }
      results.push(entry);
    }
  }
  fs.writeFileSync(ctx.out, JSON.stringify(results));
  return { metrics: {}, details: { queries: results.length } };
}

function shuffled(items, rng) {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

async function prepare(ctx) {
  const conn = ctx.system.connect();
  let loaded;
  if (ctx.dataset === 'ldbc') {
    const statements = [...schemaStatements(), ...copyStatements(ctx.data.dir)];
    for (const text of statements) await conn.exec(text);
    loaded = `${statements.length} statements`;
  } else {
    loaded = await loadSocial(ctx, conn);
  }
  await ctx.system.checkpoint();
  return { metrics: {}, details: { loaded } };
}

/**
 * The answers of every system to the same social-graph reads: `perOp` parameters drawn from
 * a fixed seed for each of point_read, one_hop and two_hop_count, normalised (rows sorted,
 * integers as numbers; column names differ between Cypher and SQL and are not compared). The
 * runner compares each peer's file with GraphDB's.
 */
async function socialDifferential(ctx) {
  if (!(ctx.data.persons > 0)) throw new Error('social_differential needs the social dataset');
  const perOp = ctx.quick ? 50 : 200;
  const conn = ctx.system.connect();
  const results = [];
  for (const op of ['pointRead', 'oneHop', 'twoHopCount']) {
    const rng = createRng(9001 + op.length);
    for (let i = 0; i < perOp; i++) {
      const params = { id: rng.int(ctx.data.persons) };
      const entry = { query: op, params };
      try {
        const { rows } = normalizeResult(await conn.query(Q[op], params));
        entry.result = { rows };
      } catch (error) {
        entry.error = { code: error.code ?? 'ERROR', message: error.message };
      }
      results.push(entry);
    }
  }
  fs.writeFileSync(ctx.out, JSON.stringify(results));
  return { metrics: {}, details: { queries: results.length } };
}

const ops = (name) => (o) => o[name];

/** Untimed warm-up and timed window of a timed workload (its `timing`, or these). */
const EMBEDDED_TIMING = {
  quick: { warmupMs: 200, durationMs: 600 },
  full: { warmupMs: 500, durationMs: 1500 },
};

/**
 * The `http` workloads send the same operations from HTTP_CLIENTS keep-alive clients to a server
 * process (benchmarks/server.mjs) that serves the trial's database on `POST /cypher`; the worker
 * that runs them is the load generator (`--url`). Their `timing` replaces the embedded windows.
 */
export const HTTP_CLIENTS = 32;
const HTTP_TIMING = {
  quick: { warmupMs: 1000, durationMs: 1500 },
  full: { warmupMs: 1000, durationMs: 2000 },
};
const HTTP_NOTE = `${HTTP_CLIENTS} keep-alive clients, POST /cypher`;

/** Kùzu only: the LDBC workloads (its real schema in Cypher), the HTTP ones and loop_lag. */
const GRAPH_PEERS = ['kuzu'];

/**
 * data: the dataset ('social' or 'ldbc'); peers: the systems beside GraphDB that run it
 * (default: every peer, SQL ones included); the trial's database is a copy of that dataset's
 * loaded template, or a new empty one when `fresh`. metrics: what the workload reports.
 * http: served by a server process and run by the load generator; timing: its windows.
 */
export const WORKLOADS = {
  copy: {
    data: 'social',
    fresh: true,
    run: copyWorkload,
    metrics: {
      copy: lower('s', 'DDL + COPY + checkpoint'),
      rss_after_load: lower('MB', 'process RSS after COPY'),
    },
  },
  point_read: {
    data: 'social',
    run: socialTimed('point_read', ops('pointRead')),
    metrics: { point_read: higher('ops/s') },
  },
  one_hop: {
    data: 'social',
    run: socialTimed('one_hop', ops('oneHop')),
    metrics: { one_hop: higher('ops/s') },
  },
  two_hop_count: {
    data: 'social',
    run: socialTimed('two_hop_count', ops('twoHopCount')),
    metrics: { two_hop_count: higher('ops/s') },
  },
  insert_node: {
    data: 'social',
    run: socialTimed('insert_node', ops('insertNode'), { verify: verifyPersonCount }),
    metrics: { insert_node: higher('ops/s', WRITE_NOTE) },
  },
  insert_edge: {
    data: 'social',
    run: socialTimed('insert_edge', ops('insertEdge')),
    metrics: { insert_edge: higher('ops/s', WRITE_NOTE) },
  },
  update_prop: {
    data: 'social',
    run: socialTimed('update_prop', ops('updateProp')),
    metrics: { update_prop: higher('ops/s', WRITE_NOTE) },
  },
  insert_node_nosync: {
    data: 'social',
    graphdbOptions: NO_SYNC,
    run: socialTimed('insert_node_nosync', ops('insertNode'), { verify: verifyPersonCount }),
    metrics: { insert_node_nosync: higher('ops/s', NOSYNC_NOTE) },
  },
  insert_edge_nosync: {
    data: 'social',
    graphdbOptions: NO_SYNC,
    run: socialTimed('insert_edge_nosync', ops('insertEdge')),
    metrics: { insert_edge_nosync: higher('ops/s', NOSYNC_NOTE) },
  },
  update_prop_nosync: {
    data: 'social',
    graphdbOptions: NO_SYNC,
    run: socialTimed('update_prop_nosync', ops('updateProp')),
    metrics: { update_prop_nosync: higher('ops/s', NOSYNC_NOTE) },
  },
  mixed: {
    data: 'social',
    run: socialTimed('mixed', mixedOp, { verify: verifyPersonCount }),
    metrics: { mixed: higher('ops/s', WRITE_NOTE) },
  },
  loop_lag: {
    data: 'social',
    // The event loop's share beside asynchronous queries: better-sqlite3's calls are
    // synchronous and block the loop by design, so the SQL peers do not run it.
    peers: GRAPH_PEERS,
    graphdbOptions: NO_SYNC,
    run: loopLag,
    metrics: {
      loop_lag_p99: lower(
        'ms',
        'p99 lateness of a 5 ms interval while one connection loops on awaited point reads',
      ),
      loop_lag_reads: higher('ops/s', 'point reads of that loop'),
      loop_lag_writes: higher('ops/s', `updates of a second connection meanwhile; ${NOSYNC_NOTE}`),
    },
  },
  point_read_par: {
    data: 'social',
    run: socialTimed('point_read_par', ops('pointRead'), { parallel: true }),
    metrics: { point_read_par: higher('ops/s', 'N connections in parallel') },
  },
  one_hop_par: {
    data: 'social',
    run: socialTimed('one_hop_par', ops('oneHop'), { parallel: true }),
    metrics: { one_hop_par: higher('ops/s', 'N connections in parallel') },
  },
  two_hop_count_par: {
    data: 'social',
    run: socialTimed('two_hop_count_par', ops('twoHopCount'), { parallel: true }),
    metrics: { two_hop_count_par: higher('ops/s', 'N connections in parallel') },
  },
  insert_node_par: {
    data: 'social',
    run: socialTimed('insert_node_par', ops('insertNode'), { parallel: true, verify: verifyPersonCount }),
    metrics: { insert_node_par: higher('ops/s', `N connections in parallel; ${WRITE_NOTE}`) },
  },
  insert_edge_par: {
    data: 'social',
    run: socialTimed('insert_edge_par', ops('insertEdge'), { parallel: true }),
    metrics: { insert_edge_par: higher('ops/s', `N connections in parallel; ${WRITE_NOTE}`) },
  },
  update_prop_par: {
    data: 'social',
    run: socialTimed('update_prop_par', ops('updateProp'), { parallel: true }),
    metrics: { update_prop_par: higher('ops/s', `N connections in parallel; ${WRITE_NOTE}`) },
  },
  mixed_par: {
    data: 'social',
    run: socialTimed('mixed_par', mixedOp, { parallel: true, verify: verifyPersonCount }),
    metrics: { mixed_par: higher('ops/s', `N connections in parallel; ${WRITE_NOTE}`) },
  },
  ldbc_short: {
    data: 'ldbc',
    peers: GRAPH_PEERS,
    run: ldbcShortReads,
    metrics: Object.fromEntries(SHORT_READS.map((n) => [`ldbc_${n}`, higher('ops/s')])),
  },
  ldbc_updates: {
    data: 'ldbc',
    peers: GRAPH_PEERS,
    run: ldbcUpdates,
    metrics: {
      ldbc_iu: higher('ops/s', `update stream replay; ${WRITE_NOTE}`),
      ...Object.fromEntries(UPDATES.map((n) => [`ldbc_${n}`, higher('ops/s')])),
    },
  },
  http_point_read: {
    data: 'social',
    http: true,
    peers: GRAPH_PEERS,
    timing: HTTP_TIMING,
    run: socialTimed('http_point_read', ops('pointName'), { clients: HTTP_CLIENTS }),
    metrics: { http_point_read: higher('ops/s', HTTP_NOTE) },
  },
  http_mixed: {
    data: 'social',
    http: true,
    peers: GRAPH_PEERS,
    timing: HTTP_TIMING,
    run: socialTimed('http_mixed', mixedOp, { clients: HTTP_CLIENTS, verify: verifyPersonCount }),
    metrics: { http_mixed: higher('ops/s', `${HTTP_NOTE}; ${WRITE_NOTE}`) },
  },
};

/** The systems that run workload `name`: GraphDB first, then its peers. */
export function workloadSystems(name) {
  return ['graphdb', ...(WORKLOADS[name]?.peers ?? PEERS)];
}

export function workloadTiming(name, quick) {
  const timing = WORKLOADS[name]?.timing ?? EMBEDDED_TIMING;
  return quick ? timing.quick : timing.full;
}

/** Not timed: the differential check and the template load. */
export const TASKS = { differential: ldbcDifferential, social_differential: socialDifferential, prepare };

export const defaultParallelism = () => os.availableParallelism?.() ?? os.cpus().length;
