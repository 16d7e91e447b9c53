#!/usr/bin/env node
// GraphDB next to its peers: Kùzu, SQLite (better-sqlite3) and DuckDB (@duckdb/node-api), npm
// packages pinned in devDependencies. A peer whose package cannot load is skipped with a
// message; the SQL peers run the social-graph workloads (SQL over `person` and `knows`).
//
//   npm run bench -- [--scale F] [--quick] [--json FILE] [--only NAME[,NAME]] [--trials N]
//                    [--cache DIR] [--scale-section] [--scale-persons N]
//                    [--analytics-large] [--retrieval-large] [--help]
//
// --scale F   generated graph of F x 100k persons and 10 knows edges each (default 1; 0.05
//             with --quick)
// --quick     small scale, 3 trials, short windows: a smoke run of everything (< 5 min)
// --json FILE also writes the report as JSON
// --only      workloads (or metric names such as ldbc_is3), plus `engine_point_lookup`,
//             `differential` (LDBC answers, and the social-graph answers of every peer),
//             `social_differential` (those alone), `http` (the http_ceiling benchmark),
//             `commit` (commit rate), `stream` (streamed results: rows/s and peak RSS) and
//             `kuzu_api` (a point read through quiverdb/kuzu against GraphDB's own API);
//             http_point_read, http_mixed, bolt_point_read and bolt_mixed are workloads
// --trials N  trials per workload and system (default 5, 3 with --quick; at least 3)
// --cache DIR where generated CSVs are kept between runs
// --scale-section  also runs the `scale` section (opt-in; selected alone by --only scale): a
//             graph of --scale-persons persons (default 1,000,000) and 10 knows edges each,
//             loaded, reopened, changed and checkpointed by both systems
//             (benchmarks/scale/bench.mjs): COPY, reopen, RSS after reopen, DDL, ALTER ADD,
//             CHECKPOINT after 1,000 inserts, folder size, point read and two-hop rates
// --only algorithms  the graph algorithms Kùzu also has (benchmarks/algo/bench.mjs), both
//             systems on the 100k-person graph (20k with --quick), answers compared; with
//             --algo-large also on 1M persons / 10M edges (a long load on a small machine)
// --analytics-large  the `analytics` section also at 1,000,000 persons / 10M edges (opt-in:
//             the load takes minutes); `analytics` alone runs at 100,000 persons / 1M edges
//             (5,000 with --quick): whole-graph aggregations, filtered two-hop counts, sorts,
//             DISTINCT and cycles, GraphDB at 1 thread and at every core, Kùzu and DuckDB
//             (benchmarks/analytics/bench.mjs), answers checked equal
// --only retrieval  the vector and full-text indexes (benchmarks/retrieval/bench.mjs): HNSW
//             build time, recall@10 against brute force and queries/s at equal recall on
//             100,000 x 128-d clustered vectors (20,000 x 64-d with --quick; also 1,000,000 x
//             64-d with --retrieval-large), GraphDB, Kùzu and hnswlib-node; full-text index build
//             and query rate on a generated corpus and the ms-passage sample, GraphDB, Kùzu and
//             SQLite FTS5, GraphDB's full-text answers checked equal to Kùzu's
//
// engine_point_lookup (GraphDB only) times the cached point lookup inside the engine with the
// native benchmark benchmarks/native/engine_point_lookup.cc, built here with cmake when it can
// be (skipped with a message when not).
//
// Every trial runs in a fresh process (worker.mjs) per system, on a copy of a database loaded
// once per run, after an untimed warm-up; the report gives the median of the trials with min
// and max. An `http_*` trial starts a server process (server.mjs) on that copy and runs the
// worker as its load generator. The differential check runs IS1-IS7 on both systems over many
// parameters and fails the run (exit code 1) on any difference, as it does when a worker fails.

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { ensureLdbc } from './lib/ldbc.mjs';
import { sameResult } from './lib/normalize.mjs';
import {
  builtAddon,
  collect,
  lastJsonLine,
  outcome,
  snapshotPackage,
  syncTree,
  workerArgv,
} from './lib/processes.mjs';
import { ensureSocialCsv } from './lib/social.mjs';
import { PEER_PACKAGES, PEERS, peerUnavailable, SYSTEMS } from './lib/systems.mjs';
import { median, round } from './lib/timing.mjs';
import {
  defaultParallelism,
  HTTP_CLIENTS,
  WORKLOADS,
  workloadSystems,
  workloadTiming,
} from './lib/workloads.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..');
const WORKER = path.join(here, 'worker.mjs');
const SERVER = path.join(here, 'server.mjs');
const HTTP_BENCH = path.join(here, 'http', 'bench.mjs');
const COMMIT_BENCH = path.join(here, 'commit', 'bench.mjs');
const STREAM_BENCH = path.join(here, 'stream', 'bench.mjs');
const KUZU_API_BENCH = path.join(here, 'kuzu-api', 'bench.mjs');
const SCALE_BENCH = path.join(here, 'scale', 'bench.mjs');
const ALGO_BENCH = path.join(here, 'algo', 'bench.mjs');
const ANALYTICS_BENCH = path.join(here, 'analytics', 'bench.mjs');
const RETRIEVAL_BENCH = path.join(here, 'retrieval', 'bench.mjs');
const ENGINE_BENCH = 'engine_point_lookup';
const ENGINE_BENCH_TARGET = 'graphdb_bench_engine';
const WORKER_TIMEOUT_MS = 15 * 60 * 1000;
/** How long a server process may take to open its database and listen. */
const SERVER_START_TIMEOUT_MS = 2 * 60 * 1000;

const args = parseOptions();

const quick = args.quick;
const scale = Number(args.scale ?? (quick ? 0.05 : 1));
const trials = Number(args.trials ?? (quick ? 3 : 5));
if (!(scale > 0)) fail('--scale must be a positive number');
if (!Number.isInteger(trials) || trials < 3) fail('--trials must be an integer >= 3');
const parallelism = defaultParallelism();

function fail(message) {
  process.stderr.write(`bench: ${message}\n`);
  process.exit(2);
}

function parseOptions() {
  let parsed;
  try {
    parsed = parseArgs({
      options: {
        scale: { type: 'string' },
        quick: { type: 'boolean', default: false },
        json: { type: 'string' },
        only: { type: 'string' },
        trials: { type: 'string' },
        cache: { type: 'string', default: path.join(os.tmpdir(), 'graphdb-bench-cache') },
        'scale-section': { type: 'boolean', default: false },
        'scale-persons': { type: 'string', default: '1000000' },
        'algo-large': { type: 'boolean', default: false },
        'analytics-large': { type: 'boolean', default: false },
        'retrieval-large': { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    }).values;
  } catch (error) {
    fail(`${error.message} (see --help)`);
  }
  if (parsed.help) {
    // The usage is the comment at the top of this file.
    const header = fs.readFileSync(fileURLToPath(import.meta.url), 'utf8').split('\n\n')[0];
    const usage = header.split('\n').filter((l) => l.startsWith('//'));
    process.stdout.write(`${usage.map((l) => l.replace(/^\/\/ ?/, '')).join('\n')}\n`);
    process.stdout.write(`\nworkloads: ${Object.keys(WORKLOADS).join(', ')}\n`);
    process.exit(0);
  }
  return parsed;
}

function log(message) {
  process.stderr.write(`${message}\n`);
}

/** Which workloads, the differential check and the HTTP benchmark to run. */
function selection() {
  const all = [
    ...Object.keys(WORKLOADS),
    ENGINE_BENCH,
    'differential',
    'social_differential',
    'http',
    'commit',
    'stream',
    'kuzu_api',
    'analytics',
    'retrieval',
    'scale',
    'algorithms',
  ];
  // The scale section is opt-in: --scale-section, or named in --only.
  if (!args.only) return new Set(all.filter((name) => name !== 'scale' || args['scale-section']));
  // `differential` covers the social-graph check too.
  const chosen = new Set();
  for (const name of args.only.split(',').map((s) => s.trim())) {
    const owner = Object.entries(WORKLOADS).find(([, w]) => name in w.metrics)?.[0];
    if (all.includes(name)) chosen.add(name);
    else if (owner) chosen.add(owner);
    else fail(`unknown workload '${name}' (known: ${all.join(', ')})`);
  }
  if (chosen.has('differential')) chosen.add('social_differential');
  return chosen;
}

/** The peers that can run here; each one that cannot is logged as skipped, with the reason. */
const skippedPeers = {};
async function checkPeers() {
  for (const peer of PEERS) {
    const why = await peerUnavailable(peer);
    if (!why) continue;
    skippedPeers[peer] = why;
    log(`${peer}: SKIPPED, ${why}`);
  }
}

/** The systems that run `workload` here (GraphDB and its available peers). */
function systemsOf(name) {
  return workloadSystems(name).filter((system) => !skippedPeers[system]);
}

/** Runs a node script; resolves to its last stdout line parsed as JSON, or { error }. */
function runNode(script, argv, { timeoutMs = WORKER_TIMEOUT_MS } = {}) {
  const child = spawn(process.execPath, [script, ...argv], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  return outcome(child, { timeoutMs });
}

/** Runs a command to its end; resolves to { code, signal, stdout, stderr }. */
function runProcess(command, argv, { timeoutMs = WORKER_TIMEOUT_MS } = {}) {
  const child = spawn(command, argv, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  return collect(child, { timeoutMs });
}

/** Copies this checkout's build into the run folder (see snapshotPackage). */
function snapshotGraphDB(runDir, addon) {
  return snapshotPackage(root, addon, path.join(runDir, 'graphdb'));
}

let graphdbSnapshot = null;

function workerArgs(system, workload, db, extra = []) {
  return workerArgv({
    system,
    workload,
    db,
    cache: args.cache,
    scale,
    parallelism,
    quick,
    graphdb: graphdbSnapshot?.dir,
    extra,
  });
}

async function main() {
  const started = performance.now();
  const chosen = selection();
  const addon = builtAddon(root);
  if (!fs.existsSync(path.join(root, 'dist', 'index.js')) || !addon) {
    fail('the GraphDB build is missing (dist/ or build/*/graphdb.node): run `npm run build` first');
  }
  const runDir = fs.mkdtempSync(path.join(os.tmpdir(), 'graphdb-bench-run-'));
  try {
    graphdbSnapshot = snapshotGraphDB(runDir, addon);
    await checkPeers();
    const social = ensureSocialCsv(args.cache, scale);
    ensureLdbc(args.cache);
    log(`data: ${social.persons} persons, ${social.knows} knows edges (${social.dir}); LDBC SNB sample`);
    log(`${trials} trials per workload and system, ${parallelism} connections in *_par workloads`);

    const templates = await prepareTemplates(runDir, chosen);
    const report = {
      machine: machineInfo(),
      config: {
        scale,
        quick,
        trials,
        persons: social.persons,
        knows: social.knows,
        parallelConnections: parallelism,
        window: windowText('point_read'),
        httpWindow: windowText('http_point_read'),
        httpClients: HTTP_CLIENTS,
      },
      workloads: {},
      http_ceiling: null,
      commit_rate: null,
      stream_results: null,
      algorithms: null,
      kuzu_api: null,
      differential: null,
      socialDifferential: null,
      ...(Object.keys(skippedPeers).length > 0 ? { skipped: { ...skippedPeers } } : {}),
    };
    const failures = [];
    let updateCounts = null;
    for (const [name, workload] of Object.entries(WORKLOADS)) {
      if (!chosen.has(name)) continue;
      const outcome = await runWorkload(name, workload, templates, runDir);
      Object.assign(report.workloads, outcome.entries);
      failures.push(...outcome.failures);
      if (outcome.tableCounts) updateCounts = outcome.tableCounts;
    }
    if (chosen.has(ENGINE_BENCH)) {
      const outcome = await engineBench(runDir);
      if (outcome.entry) report.workloads[ENGINE_BENCH] = outcome.entry;
      if (outcome.skipped) report.skipped = { ...report.skipped, [ENGINE_BENCH]: outcome.skipped };
      if (outcome.failure) failures.push(outcome.failure);
    }
    if (chosen.has('differential')) {
      report.differential = await differential(templates, runDir);
      if (updateCounts) report.differential.updates = compareCounts(updateCounts);
    } else if (updateCounts) {
      report.differential = { updates: compareCounts(updateCounts) };
    }
    if (chosen.has('social_differential'))
      report.socialDifferential = await socialDifferential(templates, runDir);
    report.http_ceiling = chosen.has('http') ? await httpCeiling(runDir) : { skipped: 'not selected' };
    report.commit_rate = chosen.has('commit') ? await commitRate(runDir) : { skipped: 'not selected' };
    report.stream_results = chosen.has('stream') ? await streamResults(runDir) : { skipped: 'not selected' };
    if (chosen.has('algorithms')) {
      report.algorithms = await algorithmsSection(runDir);
      if (report.algorithms.error)
        failures.push(`algorithms: ${report.algorithms.error.message ?? report.algorithms.error.code}`);
      const different = (report.algorithms.sizes ?? []).flatMap((size) =>
        Object.entries(size.algorithms)
          .filter(([, a]) => a.same === false)
          .map(([name]) => `${name} at ${size.persons} persons`),
      );
      if (different.length > 0) failures.push(`algorithms: different answers: ${different.join(', ')}`);
    }
    report.kuzu_api = chosen.has('kuzu_api') ? await kuzuApi(runDir) : { skipped: 'not selected' };
    if (chosen.has('analytics')) {
      report.analytics = await analyticsSection(runDir);
      for (const run of report.analytics) {
        if (run.error) failures.push(`analytics: ${run.error.message ?? run.error.code}`);
        for (const [name, q] of Object.entries(run.queries ?? {})) {
          if (q.mismatch) failures.push(`analytics ${name}: answers differ (${q.mismatch.join(', ')})`);
        }
      }
    }
    if (chosen.has('retrieval')) {
      report.retrieval = await retrievalSection(runDir);
      for (const run of report.retrieval) {
        if (run.error) failures.push(`retrieval: ${run.error.message ?? run.error.code}`);
        for (const [name, corpus] of Object.entries(run.fts ?? {})) {
          if (corpus.same_as_kuzu === false) failures.push(`retrieval fts ${name}: answers differ from Kùzu`);
        }
      }
    }
    if (chosen.has('scale')) {
      report.scale = await scaleSection(runDir);
      if (report.scale.error)
        failures.push(`scale: ${report.scale.error.message ?? report.scale.error.code}`);
    }
    report.elapsedSeconds = round((performance.now() - started) / 1000, 1);
    report.machine.loadAverageAtEnd = os.loadavg().map((v) => round(v, 2));

    printTable(report);
    if (args.json) {
      fs.writeFileSync(args.json, `${JSON.stringify(report, null, 2)}\n`);
      log(`wrote ${args.json}`);
    }
    const d = report.differential;
    const mismatches =
      (d?.mismatches ?? 0) + (d?.updates?.mismatches ?? 0) + (report.socialDifferential?.mismatches ?? 0);
    if (mismatches > 0) log(`FAILED: ${mismatches} differential mismatch(es)`);
    if (failures.length > 0) log(`FAILED: ${failures.length} worker failure(s):\n  ${failures.join('\n  ')}`);
    log(`done in ${report.elapsedSeconds} s`);
    process.exitCode = mismatches > 0 || failures.length > 0 ? 1 : 0;
  } finally {
    fs.rmSync(runDir, { recursive: true, force: true });
  }
}

/** Loads each needed dataset once per system into runDir/template-<data>-<system>/. */
async function prepareTemplates(runDir, chosen) {
  const needed = new Map(); // dataset -> the systems that need it
  const need = (data, systems) => {
    const set = needed.get(data) ?? new Set();
    for (const system of systems) set.add(system);
    needed.set(data, set);
  };
  for (const [name, w] of Object.entries(WORKLOADS)) {
    if (chosen.has(name) && !w.fresh) need(w.data, systemsOf(name));
  }
  if (chosen.has('differential') && !skippedPeers.kuzu) need('ldbc', ['graphdb', 'kuzu']);
  if (chosen.has('social_differential')) need('social', socialCheckSystems());
  const templates = {};
  for (const [data, wanted] of needed) {
    for (const system of SYSTEMS.filter((s) => wanted.has(s))) {
      const dir = path.join(runDir, `template-${data}-${system}`);
      fs.mkdirSync(dir);
      const t0 = performance.now();
      const result = await runNode(
        WORKER,
        workerArgs(system, 'prepare', path.join(dir, 'db'), ['--dataset', data]),
      );
      const seconds = ((performance.now() - t0) / 1000).toFixed(1);
      if (result.error) log(`load ${data} into ${system} FAILED: ${result.error.message}`);
      else log(`loaded ${data} into ${system} (${seconds} s with process start)`);
      templates[`${data}/${system}`] = result.error ? { error: result.error } : { dir };
    }
  }
  return templates;
}

/** A fresh copy of the template (or an empty folder) for one trial; returns the db path. */
function trialDatabase(runDir, templates, workload, system) {
  const dir = path.join(runDir, 'trial');
  fs.rmSync(dir, { recursive: true, force: true });
  if (workload.fresh) {
    fs.mkdirSync(dir);
  } else {
    const template = templates[`${workload.data}/${system}`];
    if (template.error) throw new Error(`no ${workload.data} database: ${template.error.message}`);
    fs.cpSync(template.dir, dir, { recursive: true });
    syncTree(dir);
  }
  return path.join(dir, 'db');
}

async function runWorkload(name, workload, templates, runDir) {
  const systems = systemsOf(name);
  const samples = Object.fromEntries(systems.map((s) => [s, []]));
  const errors = {};
  const details = Object.fromEntries(systems.map((s) => [s, []]));
  const tableCounts = {};
  for (let trial = 1; trial <= trials; trial++) {
    // Rotate which system goes first so none always runs on a warmer (or cooler) machine.
    const shift = (trial - 1) % systems.length;
    const order = [...systems.slice(shift), ...systems.slice(0, shift)];
    for (const system of order) {
      if (errors[system]) continue;
      let result;
      try {
        const db = trialDatabase(runDir, templates, workload, system);
        const trialArgs = ['--trial', String(trial)];
        result = workload.http
          ? await runOverHttp(system, name, db, trialArgs, workload.bolt === true)
          : await runNode(WORKER, workerArgs(system, name, db, trialArgs));
      } catch (error) {
        result = { error: { code: 'SETUP', message: error.message } };
      }
      if (result.error) {
        errors[system] = result.error;
        log(`${name} ${system} trial ${trial}: FAILED ${result.error.code}: ${result.error.message}`);
        continue;
      }
      samples[system].push(result.metrics);
      details[system].push(result.details);
      if (result.tableCounts && trial === 1) tableCounts[system] = result.tableCounts;
      const shown = Object.entries(result.metrics)
        .slice(0, 3)
        .map(([metric, value]) => `${metric}=${formatValue(value, workload.metrics[metric].unit)}`)
        .join(' ');
      log(`${name} ${system} trial ${trial}/${trials}: ${shown}`);
    }
  }
  fs.rmSync(path.join(runDir, 'trial'), { recursive: true, force: true });
  const entries = {};
  for (const [metric, spec] of Object.entries(workload.metrics)) {
    const entry = { unit: spec.unit, better: spec.better };
    if (spec.note) entry.note = spec.note;
    for (const system of systems) {
      const values = samples[system].map((m) => m[metric]).filter((v) => v !== undefined);
      if (errors[system]) entry[system] = { error: errors[system] };
      else if (values.length > 0) entry[system] = summarize(values, spec.unit);
    }
    // `ratio` is GraphDB's to Kùzu's (as before the SQL peers); `ratios` has one per peer.
    entry.ratio = ratio(entry, spec.better, 'kuzu');
    entry.ratios = Object.fromEntries(
      systems.slice(1).map((peer) => [peer, ratio(entry, spec.better, peer)]),
    );
    if (metric === name) {
      entry.details = Object.fromEntries(systems.map((system) => [system, details[system][0]]));
    }
    if (systems.some((system) => entry[system])) entries[metric] = entry;
  }
  const failures = Object.entries(errors).map(
    ([system, e]) => `${name} on ${system}: ${e.code}: ${e.message}`,
  );
  const bothCounts = tableCounts.graphdb && tableCounts.kuzu ? tableCounts : null;
  return { entries, failures, tableCounts: bothCounts };
}

/**
 * One trial of an `http_*` workload: a server process serves `db`, the worker loads it as the
 * load generator (`--url`), then the server stops. A failure of either fails the trial.
 */
async function runOverHttp(system, name, db, extra, bolt) {
  const server = await startServer(system, db, bolt);
  if (server.error) return server;
  const result = await runNode(WORKER, workerArgs(system, name, db, [...extra, '--url', server.url]));
  const stopped = await server.stop();
  if (stopped.error) {
    const also = result.error ? `; load generator: ${result.error.message}` : '';
    return { error: { code: stopped.error.code, message: `server: ${stopped.error.message}${also}` } };
  }
  if (result.error) return result;
  // Every answered request must have run a statement on the server.
  const { requests } = result.details;
  if (!(stopped.served >= requests)) {
    const message = `the server ran ${stopped.served} statements for ${requests} answered requests`;
    return { error: { code: 'SERVER_COUNT', message } };
  }
  result.details.served = stopped.served;
  return result;
}

/**
 * Starts server.mjs on `db` with one connection (or slot) per core. Resolves once it listens
 * to { url, stop() }, where stop() sends SIGTERM and resolves to its last line ({ served }) or
 * { error }; or to { error } when it exits or times out first.
 */
function startServer(system, db, bolt = false) {
  const argv = ['--system', system, '--db', db, '--connections', String(parallelism)];
  if (bolt) argv.push('--bolt');
  if (graphdbSnapshot) argv.push('--graphdb', graphdbSnapshot.dir);
  // stdin is a pipe the server watches: should the runner die, the server stops too.
  const child = spawn(process.execPath, [SERVER, ...argv], { cwd: root, stdio: ['pipe', 'pipe', 'pipe'] });
  const done = outcome(child, { timeoutMs: WORKER_TIMEOUT_MS });
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), SERVER_START_TIMEOUT_MS);
    let seen = '';
    const onData = (data) => {
      seen += data;
      const url = seen
        .split('\n')
        .slice(0, -1)
        .map((line) => {
          try {
            return JSON.parse(line).listening;
          } catch {
            return undefined;
          }
        })
        .find(Boolean);
      if (!url) return;
      clearTimeout(timer);
      child.stdout.off('data', onData);
      resolve({
        url,
        stop() {
          child.kill('SIGTERM');
          return done;
        },
      });
    };
    child.stdout.on('data', onData);
    done.then((result) => {
      clearTimeout(timer);
      resolve(
        result.error ? result : { error: { code: 'SERVER_FAILED', message: 'exited before it listened' } },
      );
    });
  });
}

function summarize(values, unit) {
  const digits = unit === 's' || unit === 'µs' ? 3 : 1;
  return {
    median: round(median(values), digits),
    min: round(Math.min(...values), digits),
    max: round(Math.max(...values), digits),
    trials: values.map((v) => round(v, digits)),
  };
}

/** GraphDB's to `peer`'s: > 1 means GraphDB is better, whichever way the unit points. */
function ratio(entry, better, peer) {
  const g = entry.graphdb?.median;
  const k = entry[peer]?.median;
  if (!(g > 0) || !(k > 0)) return null;
  return round(better === 'higher' ? g / k : k / g, 2);
}

async function differential(templates, runDir) {
  if (skippedPeers.kuzu) return { skipped: `kuzu: ${skippedPeers.kuzu}` };
  const outputs = {};
  for (const system of ['graphdb', 'kuzu']) {
    const out = path.join(runDir, `differential-${system}.json`);
    let result;
    try {
      const db = trialDatabase(runDir, templates, { data: 'ldbc' }, system);
      result = await runNode(WORKER, workerArgs(system, 'differential', db, ['--out', out]));
    } catch (error) {
      result = { error: { code: 'SETUP', message: error.message } };
    }
    outputs[system] = result.error ? { error: result.error } : JSON.parse(fs.readFileSync(out, 'utf8'));
  }
  fs.rmSync(path.join(runDir, 'trial'), { recursive: true, force: true });
  const reference = outputs.kuzu;
  const candidate = outputs.graphdb;
  if (reference.error || candidate.error) {
    const which = reference.error ? 'kuzu' : 'graphdb';
    const error = outputs[which].error;
    log(`differential: ${which} worker failed: ${error.message}`);
    return { queries: 0, mismatches: 1, details: [{ system: which, error }] };
  }
  const details = [];
  let mismatches = 0;
  const perQuery = {};
  for (let i = 0; i < reference.length; i++) {
    const k = reference[i];
    const g = candidate[i];
    const stats = perQuery[k.query] ?? { queries: 0, mismatches: 0, rows: 0 };
    perQuery[k.query] = stats;
    stats.queries++;
    stats.rows += k.result?.rows.length ?? 0;
    const same = !k.error && !g.error && sameResult(k.result, g.result);
    if (same) continue;
    mismatches++;
    stats.mismatches++;
    if (details.length < 5) {
      details.push({
        query: k.query,
        params: k.params,
        graphdb: g.error ? { error: g.error } : clip(g.result),
        kuzu: k.error ? { error: k.error } : clip(k.result),
      });
    }
  }
  log(`differential: ${reference.length} queries, ${mismatches} mismatch(es)`);
  return { queries: reference.length, mismatches, perQuery, details };
}

/** GraphDB and the available peers that hold the social graph. */
function socialCheckSystems() {
  return ['graphdb', ...PEERS.filter((peer) => !skippedPeers[peer])];
}

/**
 * Every available peer's answers to the social-graph reads (point_read, one_hop,
 * two_hop_count over the same parameters) against GraphDB's: any difference or error is a
 * mismatch and fails the run.
 */
async function socialDifferential(templates, runDir) {
  const outputs = {};
  for (const system of socialCheckSystems()) {
    const out = path.join(runDir, `social-differential-${system}.json`);
    let result;
    try {
      const db = trialDatabase(runDir, templates, { data: 'social' }, system);
      const extra = ['--out', out, '--dataset', 'social'];
      result = await runNode(WORKER, workerArgs(system, 'social_differential', db, extra));
    } catch (error) {
      result = { error: { code: 'SETUP', message: error.message } };
    }
    outputs[system] = result.error ? { error: result.error } : JSON.parse(fs.readFileSync(out, 'utf8'));
  }
  fs.rmSync(path.join(runDir, 'trial'), { recursive: true, force: true });
  const reference = outputs.graphdb;
  const perPeer = {};
  const details = [];
  let mismatches = 0;
  for (const peer of Object.keys(outputs).filter((s) => s !== 'graphdb')) {
    const candidate = outputs[peer];
    if (reference.error || candidate.error) {
      const which = reference.error ? 'graphdb' : peer;
      mismatches++;
      perPeer[peer] = { queries: 0, mismatches: 1 };
      details.push({ peer, system: which, error: outputs[which].error });
      continue;
    }
    let differ = 0;
    for (let i = 0; i < reference.length; i++) {
      const g = reference[i];
      const p = candidate[i];
      if (!g.error && !p.error && sameResult(g.result, p.result)) continue;
      differ++;
      if (details.length < 5) {
        details.push({
          peer,
          query: g.query,
          params: g.params,
          graphdb: g.error ? { error: g.error } : g.result.rows.slice(0, 10),
          [peer]: p.error ? { error: p.error } : p.result.rows.slice(0, 10),
        });
      }
    }
    mismatches += differ;
    perPeer[peer] = { queries: reference.length, mismatches: differ };
  }
  const text = Object.entries(perPeer)
    .map(([peer, r]) => `${peer} ${r.mismatches} of ${r.queries}`)
    .join(', ');
  log(`social differential (mismatches against GraphDB): ${text || 'no peer'}`);
  return { perPeer, mismatches, details };
}

function clip(result) {
  return { columns: result.columns, rowCount: result.rows.length, rows: result.rows.slice(0, 10) };
}

/** Row counts of every LDBC table after the first update-stream trial, per system. */
function compareCounts(counts) {
  const tables = Object.keys(counts.kuzu);
  const differing = tables
    .filter((t) => counts.graphdb[t] !== counts.kuzu[t])
    .map((t) => ({ table: t, graphdb: counts.graphdb[t], kuzu: counts.kuzu[t] }));
  if (differing.length > 0) log(`update check: ${differing.length} table(s) differ after the IU replay`);
  return { tables: tables.length, mismatches: differing.length, details: differing };
}

/**
 * engine_point_lookup: builds the native benchmark in the addon's build folder (incremental;
 * cmake-js configured it) and runs it once, its trials inside one process on one loaded graph.
 * Returns { entry } for the report, or { skipped } with the reason when it cannot be built.
 */
async function engineBench(runDir) {
  const buildDir = path.join(root, 'build');
  if (!fs.existsSync(path.join(buildDir, 'CMakeCache.txt'))) {
    const skipped = 'no configured build/ folder (run `npm run build:native` first)';
    log(`${ENGINE_BENCH}: SKIPPED, ${skipped}`);
    return { skipped };
  }
  log(`${ENGINE_BENCH}: building ${ENGINE_BENCH_TARGET} with cmake`);
  const built = await runProcess('cmake', [
    '--build',
    buildDir,
    '--target',
    ENGINE_BENCH_TARGET,
    '--parallel',
    '2',
  ]);
  const binary = path.join(buildDir, ENGINE_BENCH_TARGET);
  if (built.code !== 0 || !fs.existsSync(binary)) {
    const tail = `${built.stdout}\n${built.stderr}`.trim().split('\n').slice(-3).join(' | ');
    const skipped = `the build of ${ENGINE_BENCH_TARGET} failed or is not possible here: ${tail}`;
    log(`${ENGINE_BENCH}: SKIPPED, ${skipped}`);
    return { skipped };
  }
  // Run a copy, as the workloads run a snapshot of the addon.
  const copy = path.join(runDir, ENGINE_BENCH_TARGET);
  fs.copyFileSync(binary, copy);
  fs.chmodSync(copy, 0o755);
  const ops = quick ? 50_000 : 200_000;
  const run = await runProcess(copy, ['--trials', String(trials), '--ops', String(ops)]);
  const result = lastJsonLine(run.stdout);
  if (run.code !== 0 || !result || result.error) {
    const why = run.stderr.trim().split('\n').pop() || `exit code ${run.code}`;
    const message = result?.error?.message ?? why;
    log(`${ENGINE_BENCH}: FAILED: ${message}`);
    return { failure: `${ENGINE_BENCH} on graphdb: ${message}` };
  }
  const micros = result.nsPerOp.map((ns) => ns / 1000);
  const hitRate = `${round(result.hitRate * 100, 2)}%`;
  log(
    `${ENGINE_BENCH}: ${micros.map((v) => formatValue(v, 'µs')).join(', ')} µs/op, plan cache hit rate ${hitRate}`,
  );
  return {
    entry: {
      unit: 'µs',
      better: 'lower',
      note: `GraphDB only: inside the engine, ${result.persons.toLocaleString('en-US')} persons, plan cache hit rate ${hitRate}`,
      peer: false,
      graphdb: summarize(micros, 'µs'),
      ratio: null,
      details: {
        query: result.query,
        opsPerTrial: result.opsPerTrial,
        hitRate: result.hitRate,
        uncachedCompileUs: round(result.uncachedCompileNs / 1000, 3),
      },
    },
  };
}

async function httpCeiling(runDir) {
  if (!fs.existsSync(HTTP_BENCH)) return { skipped: 'benchmarks/http/bench.mjs not present' };
  const out = path.join(runDir, 'http.json');
  const source = fs.readFileSync(HTTP_BENCH, 'utf8');
  const argv = ['--json', out];
  // Shorter and smaller with --quick, through the options that script declares; three rounds
  // of shorter windows where it takes --rounds, whose ratios move less with the machine's load.
  const rounds = source.includes('rounds:');
  if (rounds) argv.push('--rounds', '3');
  if (source.includes('seconds:') && (quick || rounds)) argv.push('--seconds', quick ? '2' : '4');
  if (quick && source.includes('persons:')) argv.push('--persons', '10000');
  // Run a copy beside the snapshot, so its `../../dist` import is the build measured here.
  const script = path.join(graphdbSnapshot.dir, 'benchmarks', 'http', 'bench.mjs');
  fs.cpSync(path.dirname(HTTP_BENCH), path.dirname(script), { recursive: true });
  log('http: running benchmarks/http/bench.mjs');
  return jsonReport(out, await runNode(script, argv), 'benchmarks/http/bench.mjs');
}

/** The JSON a benchmark script wrote to `out`, or its failure as { error }. */
function jsonReport(out, result, script) {
  if (fs.existsSync(out)) return JSON.parse(fs.readFileSync(out, 'utf8'));
  return { error: result.error ?? { code: 'NO_OUTPUT', message: `${script} wrote no JSON` } };
}

function windowText(workload) {
  const { warmupMs, durationMs } = workloadTiming(workload, quick);
  return `${warmupMs / 1000} s warm-up + ${durationMs / 1000} s timed`;
}

/**
 * Commit rate with syncOnCommit against the disk's raw fdatasync rate (benchmarks/commit),
 * GraphDB only: one client, eight clients (group commit), and one client without sync.
 */
async function commitRate(runDir) {
  const out = path.join(runDir, 'commit.json');
  const dir = path.join(runDir, 'commit');
  const argv = ['--json', out, '--dir', dir, '--root', graphdbSnapshot.dir];
  argv.push('--seconds', quick ? '1' : '2', '--trials', String(trials));
  log('commit: running benchmarks/commit/bench.mjs');
  return jsonReport(out, await runNode(COMMIT_BENCH, argv), 'benchmarks/commit/bench.mjs');
}

/**
 * Streamed results (benchmarks/stream), GraphDB only: rows/s and peak RSS of conn.stream() and
 * of NDJSON over HTTP, each in a fresh process.
 */
async function streamResults(runDir) {
  const out = path.join(runDir, 'stream.json');
  const argv = ['--json', out, '--root', graphdbSnapshot.dir, '--trials', String(trials)];
  argv.push('--rows', quick ? '1000000' : '5000000');
  log('stream: running benchmarks/stream/bench.mjs');
  return jsonReport(out, await runNode(STREAM_BENCH, argv), 'benchmarks/stream/bench.mjs');
}

/**
 * Kùzu's API over GraphDB's (benchmarks/kuzu-api): µs per point read through quiverdb/kuzu and
 * through GraphDB's own API, async and sync, and their ratios.
 */
async function kuzuApi(runDir) {
  const out = path.join(runDir, 'kuzu-api.json');
  const argv = ['--json', out, '--root', graphdbSnapshot.dir, '--trials', String(trials)];
  argv.push('--persons', String(Math.round(100_000 * scale)), '--seconds', quick ? '0.5' : '1');
  log('kuzu_api: running benchmarks/kuzu-api/bench.mjs');
  return jsonReport(out, await runNode(KUZU_API_BENCH, argv), 'benchmarks/kuzu-api/bench.mjs');
}

/**
 * Storage at scale (benchmarks/scale): load, reopen, DDL, ALTER ADD and checkpoint costs of a
 * large generated graph, both systems. Opt-in (--scale-section), as it loads millions of edges.
 */
async function scaleSection(runDir) {
  const out = path.join(runDir, 'scale.json');
  const argv = ['--json', out, '--dir', path.join(runDir, 'scale'), '--root', graphdbSnapshot.dir];
  argv.push('--persons', args['scale-persons'], '--cache', args.cache, '--trials', String(trials));
  argv.push('--seconds', quick ? '0.6' : '1.5');
  log(`scale: running benchmarks/scale/bench.mjs (${args['scale-persons']} persons)`);
  return jsonReport(out, await runNode(SCALE_BENCH, argv), 'benchmarks/scale/bench.mjs');
}

/**
 * Graph algorithms (benchmarks/algo): every algorithm Kùzu also has, both systems, answers
 * compared. 100k persons (20k with --quick), and 1M with --algo-large.
 */
async function algorithmsSection(runDir) {
  const out = path.join(runDir, 'algorithms.json');
  const persons = quick ? ['20000'] : ['100000'];
  if (args['algo-large']) persons.push('1000000');
  const argv = ['--json', out, '--root', graphdbSnapshot.dir, '--cache', args.cache];
  argv.push('--persons', persons.join(','), '--trials', String(trials));
  log(`algorithms: running benchmarks/algo/bench.mjs (${persons.join(', ')} persons)`);
  return jsonReport(out, await runNode(ALGO_BENCH, argv), 'benchmarks/algo/bench.mjs');
}

/** The algorithms section as a Markdown table (one row per algorithm and size). */
function algorithmsTable(algo) {
  const rows = [
    ['algorithm', 'graph', 'graphdb ms median (min–max)', 'kuzu ms median (min–max)', 'speed-up', 'answers'],
  ];
  const value = (e) => (e ? `${e.median} (${e.min}–${e.max})` : '-');
  for (const size of algo.sizes) {
    for (const [name, a] of Object.entries(size.algorithms)) {
      let answers = a.same === undefined ? '-' : a.same ? 'same' : 'DIFFERENT';
      if (a.modularity) {
        const q = (x) => (typeof x === 'number' ? x.toFixed(4) : '-');
        answers = `${answers}: modularity ${q(a.modularity.graphdb)} vs ${q(a.modularity.kuzu)}, communities ${a.communities.graphdb} vs ${a.communities.kuzu}`;
      }
      const speedup = a.speedup === undefined ? '-' : `${a.speedup}x`;
      rows.push([name, `${size.persons}/${size.knows}`, value(a.graphdb), value(a.kuzu), speedup, answers]);
    }
  }
  return markdownTable(rows.map((r) => r.map(String)));
}

/**
 * Whole-graph queries (benchmarks/analytics): GraphDB at 1 thread and at every core, Kùzu and
 * DuckDB, at 100,000 persons (5,000 with --quick) and, with --analytics-large, 1,000,000.
 */
async function analyticsSection(runDir) {
  const runs = [];
  const sizes = [quick ? 5000 : 100_000, ...(args['analytics-large'] ? [1_000_000] : [])];
  for (const persons of sizes) {
    const out = path.join(runDir, `analytics-${persons}.json`);
    const argv = ['--json', out, '--dir', path.join(runDir, `analytics-${persons}`)];
    argv.push('--root', graphdbSnapshot.dir, '--persons', String(persons), '--cache', args.cache);
    argv.push('--trials', String(trials));
    if (quick) argv.push('--min-ms', '50', '--warmup-ms', '20');
    log(`analytics: running benchmarks/analytics/bench.mjs (${persons} persons)`);
    runs.push(jsonReport(out, await runNode(ANALYTICS_BENCH, argv), 'benchmarks/analytics/bench.mjs'));
  }
  return runs;
}

/**
 * The vector and full-text indexes (benchmarks/retrieval): 100,000 x 128-d vectors and 100,000
 * documents (20,000 x 64-d and 20,000 with --quick); with --retrieval-large also 1,000,000 x
 * 64-d vectors (the vector part alone).
 */
async function retrievalSection(runDir) {
  const runs = [];
  const sizes = [
    quick ? { vectors: 20_000, dim: 64, docs: 20_000 } : { vectors: 100_000, dim: 128, docs: 100_000 },
    ...(args['retrieval-large'] ? [{ vectors: 1_000_000, dim: 64, only: 'vector' }] : []),
  ];
  for (const size of sizes) {
    const out = path.join(runDir, `retrieval-${size.vectors}.json`);
    const argv = ['--json', out, '--dir', path.join(runDir, `retrieval-${size.vectors}`)];
    argv.push('--root', graphdbSnapshot.dir, '--vectors', String(size.vectors), '--dim', String(size.dim));
    argv.push('--shared', process.env.GRAPHDB_SHARED ?? path.resolve(root, '..', 'shared'));
    if (size.docs) argv.push('--docs', String(size.docs));
    if (size.only) argv.push('--only', size.only);
    log(`retrieval: running benchmarks/retrieval/bench.mjs (${size.vectors} x ${size.dim} vectors)`);
    runs.push(jsonReport(out, await runNode(RETRIEVAL_BENCH, argv), 'benchmarks/retrieval/bench.mjs'));
  }
  return runs;
}

/** The vector part of a retrieval run as Markdown: one row per system and target recall. */
function retrievalTables(run) {
  const parts = [];
  const v = run.vector;
  if (v) {
    const rows = [
      ['vectors', 'system', 'build ms', 'target recall@10', 'efs', 'recall', 'queries/s', 'graphdb ratio'],
    ];
    for (const [name, s] of Object.entries(v.systems)) {
      for (const target of v.targets) {
        const at = s.atTarget[target];
        const ratio = name === 'graphdb' ? '-' : String(v.ratios[target]?.[`graphdb_to_${name}`] ?? '-');
        rows.push([
          `${v.vectors} x ${v.dim}`,
          name,
          String(s.build_ms),
          String(target),
          at ? String(at.efs) : 'not reached',
          at ? String(at.recall) : '-',
          at ? String(at.qps) : '-',
          ratio === '-' ? '-' : `${ratio}x`,
        ]);
      }
    }
    parts.push(markdownTable(rows));
    for (const [name, reason] of Object.entries(v.skipped)) parts.push(`vectors: ${name} SKIPPED: ${reason}`);
  }
  for (const [corpus, f] of Object.entries(run.fts ?? {})) {
    if (typeof f.skipped === 'string') {
      parts.push(`fts ${corpus}: SKIPPED: ${f.skipped}`);
      continue;
    }
    const rows = [
      ['full text', 'system', 'load ms', 'index build ms', 'queries/s', 'graphdb ratio', 'answers'],
    ];
    for (const [name, s] of Object.entries(f.systems)) {
      let answers = '-';
      if (name === 'graphdb' && f.same_as_kuzu !== undefined)
        answers = f.same_as_kuzu ? 'same as kuzu' : 'DIFFER';
      if (name === 'sqlite' && f.sqlite_overlap_with_kuzu != null)
        answers = `top-10 overlap with kuzu ${f.sqlite_overlap_with_kuzu}`;
      rows.push([
        `${corpus} (${f.documents} docs)`,
        name,
        String(s.load_ms),
        String(s.build_ms),
        String(s.qps),
        name === 'graphdb' || f.ratios?.[`graphdb_to_${name}`] == null
          ? '-'
          : `${f.ratios[`graphdb_to_${name}`]}x`,
        answers,
      ]);
    }
    parts.push(markdownTable(rows));
    for (const [name, reason] of Object.entries(f.skipped))
      parts.push(`fts ${corpus}: ${name} SKIPPED: ${reason}`);
  }
  return parts.join('\n\n');
}

/** `rows` (the first one the header) as a Markdown table with padded columns. */
function markdownTable(rows) {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  const line = (r) => `| ${r.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`;
  return [
    line(rows[0]),
    `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`,
    ...rows.slice(1).map(line),
  ].join('\n');
}

/** One analytics run as a Markdown table: a row per query, a column per system. */
function analyticsTable(run) {
  const par = `graphdb_${run.cores}`;
  const rows = [
    ['query (ms, median)', 'graphdb 1 thread', `graphdb ${run.cores} threads`, 'speedup', 'kuzu', 'duckdb'],
  ];
  for (const [name, q] of Object.entries(run.queries)) {
    const cell = (v) => (v === undefined ? '-' : String(v));
    rows.push([
      q.mismatch ? `${name} (DIFFERS)` : name,
      cell(q.graphdb_1),
      cell(q[par]),
      cell(q.speedup),
      cell(q.kuzu),
      cell(q.duckdb),
    ]);
  }
  return markdownTable(rows);
}

const SCALE_METRICS = [
  ['copy', 'ms', 'COPY Person and knows'],
  ['copy_parquet', 'ms', 'the same COPY from Parquet files'],
  ['reopen', 'ms', 'open the closed folder + first query'],
  ['rss_after_reopen', 'MB', 'process RSS right after reopen'],
  ['point_read', 'ops/s', 'after reopen, 1 connection'],
  ['two_hop', 'ops/s', 'two-hop count after reopen, 1 connection'],
  ['ddl', 'ms', 'CREATE NODE TABLE after the load'],
  ['alter_add', 'ms', 'ALTER TABLE Person ADD score INT64 DEFAULT 0'],
  ['checkpoint', 'ms', 'CHECKPOINT after 1,000 single inserts'],
  ['folder_mb', 'MB', 'database size after the load'],
  ['folder_mb_end', 'MB', 'database size at the end'],
];

/** The scale section as a Markdown table (one row per figure). */
function scaleTable(scale) {
  const rows = [['scale figure', 'unit', 'graphdb median (min–max)', 'kuzu median (min–max)', 'note']];
  const value = (e) => (e ? `${e.median} (${e.min}–${e.max})` : '-');
  for (const [metric, unit, note] of SCALE_METRICS) {
    rows.push([
      metric,
      unit,
      value(scale.systems.graphdb?.[metric]),
      value(scale.systems.kuzu?.[metric]),
      note,
    ]);
  }
  return markdownTable(rows);
}

function machineInfo() {
  const cpus = os.cpus();
  return {
    cpus: cpus.length,
    cpuModel: cpus[0]?.model ?? 'unknown',
    memory: `${round(os.totalmem() / 2 ** 30, 1)} GiB`,
    node: process.version,
    kuzu: peerVersion('kuzu'),
    peers: Object.fromEntries(
      PEERS.map((peer) => [peer, skippedPeers[peer] ? 'skipped' : peerVersion(peer)]),
    ),
    graphdbBuild: graphdbSnapshot?.build,
    platform: `${os.platform()} ${os.release()}`,
    date: new Date().toISOString(),
    loadAverageAtStart: os.loadavg().map((v) => round(v, 2)),
  };
}

function peerVersion(peer) {
  try {
    const file = path.join(root, 'node_modules', PEER_PACKAGES[peer], 'package.json');
    return JSON.parse(fs.readFileSync(file, 'utf8')).version;
  } catch {
    return 'not installed';
  }
}

function formatValue(value, unit) {
  if (value === null || value === undefined) return '-';
  if (unit === 's') return value.toFixed(value < 10 ? 3 : 1);
  if (unit === 'MB') return value.toFixed(0);
  if (unit === 'µs') return value.toFixed(2);
  return value >= 100 ? Math.round(value).toLocaleString('en-US') : value.toFixed(1);
}

function cell(entry, unit) {
  if (!entry) return '-';
  if (entry.error) return `error: ${entry.error.code}`;
  const range = `${formatValue(entry.min, unit)}–${formatValue(entry.max, unit)}`;
  return `${formatValue(entry.median, unit)} (${range})`;
}

/** A Markdown table, so it can be pasted into benchmarks/README.md as it is. */
function printTable(report) {
  // A column pair (figure, ratio) per peer that ran; a workload a peer does not run reads n/a.
  const peers = PEERS.filter((peer) => !skippedPeers[peer]);
  const header = ['workload', 'unit', 'graphdb median (min–max)'];
  for (const peer of peers) header.push(`${peer} median (min–max)`, `vs ${peer}`);
  const rows = [[...header, 'note']];
  for (const [name, e] of Object.entries(report.workloads)) {
    const row = [name, e.unit, cell(e.graphdb, e.unit)];
    for (const peer of peers) {
      const r = e.ratios?.[peer] ?? null;
      row.push(e[peer] === undefined ? 'n/a' : cell(e[peer], e.unit), r === null ? '-' : `${r.toFixed(2)}x`);
    }
    rows.push([...row, e.note ?? '']);
  }
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  const line = (r) => `| ${r.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`;
  const out = [
    line(rows[0]),
    `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`,
    ...rows.slice(1).map(line),
  ];
  const m = report.machine;
  process.stdout.write(
    `\nGraphDB vs ${peers.map((peer) => `${peer} ${m.peers[peer]}`).join(', ')}: ${m.cpus} x ${m.cpuModel}, ${m.memory}, Node ${m.node}, ${m.date}\n`,
  );
  const load = `${m.loadAverageAtStart.join(' ')} at start, ${m.loadAverageAtEnd?.join(' ') ?? '-'} at end`;
  process.stdout.write(`load average (1, 5, 15 min): ${load}\n`);
  process.stdout.write(
    'vs PEER > 1 means GraphDB is better (ops/s: graphdb/peer; s and MB: peer/graphdb)\n\n',
  );
  for (const [peer, why] of Object.entries(skippedPeers)) process.stdout.write(`${peer}: SKIPPED, ${why}\n`);
  if (rows.length > 1) process.stdout.write(`${out.join('\n')}\n\n`);
  const d = report.differential;
  if (d?.queries !== undefined) {
    process.stdout.write(`differential: ${d.queries} IS queries, ${d.mismatches} mismatch(es)\n`);
    for (const detail of d.details ?? []) process.stdout.write(`  ${JSON.stringify(detail).slice(0, 600)}\n`);
  }
  if (d?.updates) {
    process.stdout.write(`update check: ${d.updates.tables} tables, ${d.updates.mismatches} differ\n`);
    for (const detail of d.updates.details) process.stdout.write(`  ${JSON.stringify(detail)}\n`);
  }
  const sd = report.socialDifferential;
  if (sd) {
    const text = Object.entries(sd.perPeer)
      .map(([peer, r]) => `${peer} ${r.mismatches} of ${r.queries}`)
      .join(', ');
    process.stdout.write(`social differential (mismatches against GraphDB): ${text || 'no peer'}\n`);
    for (const detail of sd.details) process.stdout.write(`  ${JSON.stringify(detail).slice(0, 600)}\n`);
  }
  const h = report.http_ceiling;
  if (h?.ratioNode !== undefined) {
    const cpu = h.serverCpuMicrosPerRequest ?? {};
    process.stdout.write(
      `http_ceiling: POST /cypher ${h.cypher.requestsPerSecond} requests/s, bare node:http echo ` +
        `${h.echoNode.requestsPerSecond} = ${h.ratioNode}x (median of the ${h.rounds} rounds' ratios ` +
        `${h.ratioNodeOfRounds}x); server CPU per request ${cpu.cypher} µs vs ${cpu.echoNode} µs; ` +
        `load average ${h.loadAverage?.join(' ')}\n`,
    );
  } else if (h) process.stdout.write(`http_ceiling: ${JSON.stringify(h).slice(0, 400)}\n`);
  const c = report.commit_rate;
  if (c?.raw_fdatasync) {
    const m = (name) => `${c[name].median} (${c[name].min}–${c[name].max})`;
    process.stdout.write(
      `commit_rate (commits/s, median (min–max)): raw fdatasync ${m('raw_fdatasync')} ` +
        `(appending: ${m('raw_append_fdatasync')}); ` +
        `GraphDB syncOnCommit 1 client ${m('graphdb_1')} = ${c.ratio_1_to_fdatasync}x raw ` +
        `(querySync: ${m('graphdb_1_sync_call')} = ${c.ratio_1_sync_call_to_fdatasync}x raw), ` +
        `8 clients ${m('graphdb_8')} = ${c.ratio_8_to_fdatasync}x raw; ` +
        `1 client without sync ${m('graphdb_1_nosync')}\n`,
    );
  } else if (c) {
    process.stdout.write(`commit_rate: ${JSON.stringify(c).slice(0, 400)}\n`);
  }
  const st = report.stream_results;
  if (st?.embedded_stream) {
    const m = (name) =>
      `${st[name].rows_per_s.median} rows/s, peak RSS ${st[name].peak_rss_mb.median} MB ` +
      `(${st[name].rss_before_mb.median} MB before)`;
    process.stdout.write(
      `stream_results (${st.rows} rows, medians): conn.stream ${m('embedded_stream')}; ` +
        `HTTP NDJSON ${m('http_ndjson')}\n`,
    );
  } else if (st) {
    process.stdout.write(`stream_results: ${JSON.stringify(st).slice(0, 400)}\n`);
  }
  const al = report.algorithms;
  if (al?.sizes) {
    process.stdout.write(`\nalgorithms (${al.trials} trials each):\n\n${algorithmsTable(al)}\n`);
  } else if (al) {
    process.stdout.write(`algorithms: ${JSON.stringify(al).slice(0, 400)}\n`);
  }
  const ka = report.kuzu_api;
  if (ka?.native_async) {
    const m = (name) =>
      `${ka[name].us_per_read.median} µs (${ka[name].us_per_read.min}–${ka[name].us_per_read.max})`;
    process.stdout.write(
      `kuzu_api (point read, µs per read, median (min–max)): GraphDB's API ${m('native_async')}, ` +
        `quiverdb/kuzu ${m('kuzu_async')} = ${ka.ratio_async}x; sync ${m('native_sync')} vs ` +
        `${m('kuzu_sync')} = ${ka.ratio_sync}x\n`,
    );
  } else if (ka) {
    process.stdout.write(`kuzu_api: ${JSON.stringify(ka).slice(0, 400)}\n`);
  }
  for (const run of report.analytics ?? []) {
    if (run.queries) {
      process.stdout.write(
        `\nanalytics: ${run.persons} persons, ${run.knows} knows edges, at least ${run.trials} trials and ${run.min_ms ?? 0} ms per system (GraphDB's thread counts in turn), ${run.cores} cores\n\n`,
      );
      process.stdout.write(`${analyticsTable(run)}\n`);
    } else {
      process.stdout.write(`analytics: ${JSON.stringify(run).slice(0, 400)}\n`);
    }
  }
  for (const run of report.retrieval ?? []) {
    if (run.error) process.stdout.write(`retrieval: ${JSON.stringify(run).slice(0, 400)}\n`);
    else process.stdout.write(`\nretrieval (${run.cores} cores):\n\n${retrievalTables(run)}\n`);
  }
  const sc = report.scale;
  if (sc?.systems) {
    process.stdout.write(
      `\nscale: ${sc.persons} persons, ${sc.knows} knows edges, ${sc.trials} trials ` +
        `(load average ${sc.loadAverageAtStart.join(' ')} at start, ${sc.loadAverageAtEnd.join(' ')} at end)\n\n`,
    );
    process.stdout.write(`${scaleTable(sc)}\n`);
  } else if (sc) {
    process.stdout.write(`scale: ${JSON.stringify(sc).slice(0, 400)}\n`);
  }
}

await main();
