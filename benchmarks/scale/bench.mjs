#!/usr/bin/env node
// Storage at scale: what a graph of 1M persons and 10M `knows` edges costs to load, reopen,
// change and checkpoint, GraphDB next to Kùzu.
//
//   node benchmarks/scale/bench.mjs [--persons N] [--systems graphdb,kuzu] [--trials N]
//                                   [--dir DIR] [--cache DIR] [--seconds S] [--json FILE]
//                                   [--root DIR]
//
// Each trial (default 3; the systems alternate which goes first) runs, for each system, these
// steps on a new database, each step in a fresh process (so RSS and the open are those of a
// new application); the report gives median, min and max per figure:
//   load     creates the social schema and COPYs the generated CSVs (person, knows), then
//            closes the database: `copy` is the time of the two COPY statements;
//            `folder_mb` the folder's size after the close; last, on a new database,
//   load_parquet  the same COPYs from Parquet copies of the CSVs (GraphDB's COPY TO with
//            Snappy, written once): `copy_parquet`;
//   reopen   opens the closed folder and runs one trivial query: `reopen` is the time until it
//            answers, `rss_after_reopen` the process's RSS then; then `point_read` and
//            `two_hop` (queries per second, one connection, --seconds each, random persons);
//   change   `ddl` (CREATE NODE TABLE), `alter_add` (ALTER TABLE Person ADD score INT64
//            DEFAULT 0), then 1,000 single-row CREATEs of persons and `checkpoint` (the
//            CHECKPOINT statement after them); then `fold_checkpoint`, a checkpoint that folds
//            Person's files into a new base, and `commit_stall`, the longest commit of another
//            connection meanwhile; `folder_mb_end` the size after the close.
// The CSVs are the benchmark's social graph (benchmarks/lib/social.mjs), cached in --cache
// (default $TMPDIR/graphdb-bench-cache) like the rest of `npm run bench`; the databases live in
// --dir (default a fresh temporary folder, removed at the end). Prints one JSON line (the
// report) on stdout; `npm run bench -- --scale-section` runs it and prints the table.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { createRng } from '../lib/prng.mjs';
import { ensureSocialCsv, personName, randomCity } from '../lib/social.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(here, '..', '..', 'package.json'));

const { values: args } = parseArgs({
  options: {
    persons: { type: 'string', default: '1000000' },
    systems: { type: 'string', default: 'graphdb,kuzu' },
    dir: { type: 'string' },
    cache: { type: 'string', default: path.join(os.tmpdir(), 'graphdb-bench-cache') },
    seconds: { type: 'string', default: '2' },
    trials: { type: 'string', default: '3' },
    json: { type: 'string' },
    root: { type: 'string' },
    // Internal: one step in a child process.
    step: { type: 'string' },
    system: { type: 'string' },
    db: { type: 'string' },
  },
});

const SCHEMA = [
  'CREATE NODE TABLE Person(id INT64, name STRING, age INT64, city STRING, PRIMARY KEY(id))',
  'CREATE REL TABLE knows(FROM Person TO Person, since DATE)',
];
const INSERTS = 1000;
const packageRoot = path.resolve(args.root ?? path.join(here, '..', '..'));

function positive(name, value, integer) {
  const n = Number(value);
  if (!(n > 0) || (integer && !Number.isInteger(n))) {
    throw new Error(`--${name} must be a positive ${integer ? 'integer' : 'number'}, got '${value}'`);
  }
  return n;
}

// ---- one system, as an application uses it (synchronous where the API allows) ----

async function open(system, dir) {
  if (system === 'graphdb') {
    const { Database } = await import(pathToFileURL(path.join(packageRoot, 'dist', 'index.js')).href);
    const db = new Database(dir);
    const conn = db.connect();
    const other = db.connect();
    return {
      run: async (text, params) => (await conn.query(text, params)).rows,
      // A second connection, for statements beside the first one's.
      runOther: async (text, params) => (await other.query(text, params)).rows,
      close: async () => db.close(),
    };
  }
  if (system === 'kuzu') {
    const kuzu = require('kuzu');
    const db = new kuzu.Database(dir);
    await db.init();
    const conn = new kuzu.Connection(db);
    const other = new kuzu.Connection(db);
    const prepared = new Map();
    return {
      async runOther(text, params) {
        const result = await other.execute(await other.prepare(text), params);
        const rows = await result.getAll();
        result.close();
        return rows;
      },
      async run(text, params) {
        let result;
        if (params) {
          let statement = prepared.get(text);
          if (!statement) {
            statement = await conn.prepare(text);
            if (!statement.isSuccess()) throw new Error(statement.getErrorMessage());
            prepared.set(text, statement);
          }
          result = await conn.execute(statement, params);
        } else {
          result = await conn.query(text);
        }
        const rows = await result.getAll();
        result.close();
        return rows;
      },
      async close() {
        await conn.close();
        await db.close();
      },
    };
  }
  throw new Error(`unknown system '${system}'`);
}

const ms = (t0) => Math.round((performance.now() - t0) * 10) / 10;

async function timed(fn) {
  const t0 = performance.now();
  await fn();
  return ms(t0);
}

/** Operations per second of `op` in a closed loop for `seconds`. */
async function rate(op, seconds) {
  const warmEnd = performance.now() + 200;
  let i = 0;
  while (performance.now() < warmEnd) await op(i++);
  const start = performance.now();
  const end = start + seconds * 1000;
  let n = 0;
  let now = start;
  while (now < end) {
    await op(i++);
    n++;
    now = performance.now();
  }
  return Math.round(n / ((now - start) / 1000));
}

async function step(name, system, dir, data) {
  const out = {};
  if (name === 'load') {
    const db = await open(system, dir);
    for (const text of SCHEMA) await db.run(text);
    out.copy = await timed(async () => {
      await db.run(`COPY Person FROM '${data.personFile}' (header=true, delim='|')`);
      await db.run(`COPY knows FROM '${data.knowsFile}' (header=true, delim='|')`);
    });
    const [count] = await db.run('MATCH (:Person)-[k:knows]->(:Person) RETURN count(*) AS n');
    if (Number(Object.values(count)[0] ?? count[0]) !== data.knows) {
      throw new Error(`load check: ${JSON.stringify(count)} knows edges, expected ${data.knows}`);
    }
    await db.close();
  } else if (name === 'parquet') {
    // The same graph as Parquet files (GraphDB's COPY TO, Snappy), made once beside the CSVs.
    const db = await open(system, dir);
    for (const text of SCHEMA) await db.run(text);
    await db.run(`COPY Person FROM '${data.personFile}' (header=true, delim='|')`);
    await db.run(`COPY knows FROM '${data.knowsFile}' (header=true, delim='|')`);
    const { person, knows } = parquetFiles(data);
    await db.run(`COPY Person TO '${person}.tmp.parquet'`);
    await db.run(`COPY knows TO '${knows}.tmp.parquet'`);
    await db.close();
    fs.renameSync(`${person}.tmp.parquet`, person);
    fs.renameSync(`${knows}.tmp.parquet`, knows);
  } else if (name === 'load_parquet') {
    const db = await open(system, dir);
    for (const text of SCHEMA) await db.run(text);
    const { person, knows } = parquetFiles(data);
    out.copy_parquet = await timed(async () => {
      await db.run(`COPY Person FROM '${person}'`);
      await db.run(`COPY knows FROM '${knows}'`);
    });
    const [count] = await db.run('MATCH (:Person)-[k:knows]->(:Person) RETURN count(*) AS n');
    if (Number(Object.values(count)[0] ?? count[0]) !== data.knows) {
      throw new Error(`parquet load check: ${JSON.stringify(count)} knows edges, expected ${data.knows}`);
    }
    await db.close();
  } else if (name === 'reopen') {
    const t0 = performance.now();
    const db = await open(system, dir);
    await db.run('RETURN 1');
    out.reopen = ms(t0);
    out.rss_after_reopen = Math.round(process.memoryUsage().rss / 2 ** 20);
    const rng = createRng(7);
    const seconds = positive('seconds', args.seconds, false);
    out.point_read = await rate(
      () => db.run('MATCH (p:Person {id: $id}) RETURN p.name, p.age, p.city', { id: rng.int(data.persons) }),
      seconds,
    );
    out.two_hop = await rate(
      () =>
        db.run('MATCH (p:Person {id: $id})-[:knows]->(:Person)-[:knows]->(f:Person) RETURN count(*)', {
          id: rng.int(data.persons),
        }),
      seconds,
    );
    await db.close();
  } else if (name === 'change') {
    const db = await open(system, dir);
    await db.run('RETURN 1');
    out.ddl = await timed(() =>
      db.run('CREATE NODE TABLE ScaleExtra(id INT64, note STRING, PRIMARY KEY(id))'),
    );
    out.alter_add = await timed(() => db.run('ALTER TABLE Person ADD score INT64 DEFAULT 0'));
    const [check] = await db.run('MATCH (p:Person {id: 1}) RETURN p.score AS s');
    if (Number(Object.values(check)[0]) !== 0) throw new Error(`alter check: ${JSON.stringify(check)}`);
    // A checkpoint of its own first, so the one timed holds the inserts only.
    await db.run('CHECKPOINT');
    const rng = createRng(11);
    for (let i = 0; i < INSERTS; i++) {
      await db.run('CREATE (:Person {id: $id, name: $name, age: $age, city: $city})', {
        id: data.persons + i,
        name: personName(rng),
        age: 18 + rng.int(63),
        city: randomCity(rng),
      });
    }
    out.checkpoint = await timed(() => db.run('CHECKPOINT'));
    // Commits beside a checkpoint that folds Person's files into a new base: 15 more small
    // checkpoints (a row each) bring Person to 16 segments, so the next one folds the files
    // (FileChanges::kMaxSegments). While it runs another connection commits single-row CREATEs:
    // `fold_checkpoint` is its time, `commit_stall` the longest of those commits (the wait a
    // checkpoint imposes on writers), `commits_during_fold` how many there were.
    let next = data.persons + INSERTS;
    const person = { name: 'fold', age: 30, city: 'Oslo' };
    const create = 'CREATE (:Person {id: $id, name: $name, age: $age, city: $city})';
    for (let i = 0; i < 15; i++) {
      await db.run(create, { id: next++, ...person });
      await db.run('CHECKPOINT');
    }
    await db.run(create, { id: next++, ...person });
    let folding = true;
    let longest = 0;
    let commits = 0;
    const writer = (async () => {
      while (folding) {
        const started = performance.now();
        await db.runOther(create, { id: next++, ...person });
        longest = Math.max(longest, performance.now() - started);
        commits++;
      }
    })();
    out.fold_checkpoint = await timed(() => db.run('CHECKPOINT'));
    folding = false;
    await writer;
    out.commit_stall = Math.round(longest * 10) / 10;
    out.commits_during_fold = commits;
    await db.close();
  } else {
    throw new Error(`unknown step '${name}'`);
  }
  return out;
}

/** The Parquet copies of the social graph's CSVs (the `parquet` step writes them). */
function parquetFiles(data) {
  return {
    person: data.personFile.replace(/\.csv$/, '.parquet'),
    knows: data.knowsFile.replace(/\.csv$/, '.parquet'),
  };
}

/** Size of a database: its folder (GraphDB), or its file and the files beside it (Kùzu). */
function databaseMb(db) {
  let total = 0;
  const walk = (d) => {
    for (const entry of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, entry.name);
      if (entry.isDirectory()) walk(p);
      else total += fs.statSync(p).size;
    }
  };
  if (fs.statSync(db).isDirectory()) walk(db);
  else {
    const base = path.basename(db);
    for (const name of fs.readdirSync(path.dirname(db))) {
      if (name.startsWith(base)) total += fs.statSync(path.join(path.dirname(db), name)).size;
    }
  }
  return Math.round((total / 2 ** 20) * 10) / 10;
}

function removeDatabase(db) {
  const dir = path.dirname(db);
  for (const name of fs.readdirSync(dir)) {
    if (name.startsWith(path.basename(db))) fs.rmSync(path.join(dir, name), { recursive: true, force: true });
  }
}

function runStep(name, system, db) {
  const argv = [
    fileURLToPath(import.meta.url),
    '--step',
    name,
    '--system',
    system,
    '--db',
    db,
    '--persons',
    args.persons,
    '--cache',
    args.cache,
    '--seconds',
    args.seconds,
    '--root',
    packageRoot,
  ];
  const child = spawnSync(process.execPath, argv, { encoding: 'utf8', maxBuffer: 1 << 24 });
  if (child.status !== 0) {
    throw new Error(`${system} ${name} failed (exit ${child.status}): ${child.stderr.slice(-2000)}`);
  }
  return JSON.parse(child.stdout.trim().split('\n').pop());
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

async function main() {
  const persons = positive('persons', args.persons, true);
  const data = ensureSocialCsv(args.cache, persons / 100_000);
  if (args.step) {
    const out = await step(args.step, args.system, args.db, data);
    process.stdout.write(`${JSON.stringify(out)}\n`);
    return;
  }
  const trials = positive('trials', args.trials, true);
  const base = args.dir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'graphdb-scale-bench-'));
  fs.mkdirSync(base, { recursive: true });
  const report = {
    persons: data.persons,
    knows: data.knows,
    inserts: INSERTS,
    trials,
    loadAverageAtStart: os.loadavg().map((v) => Math.round(v * 100) / 100),
    systems: {},
  };
  const systems = args.systems.split(',').map((s) => s.trim());
  const results = Object.fromEntries(systems.map((s) => [s, []]));
  try {
    if (!fs.existsSync(parquetFiles(data).knows)) {
      process.stderr.write('scale: writing the graph as Parquet files (once)\n');
      const db = path.join(base, 'parquet-source-db');
      runStep('parquet', 'graphdb', db);
      removeDatabase(db);
    }
    // Trials alternate the systems, so a noisy moment hits both alike.
    for (let trial = 0; trial < trials; trial++) {
      for (const system of trial % 2 ? [...systems].reverse() : systems) {
        // Kùzu keeps a database in one file (and files beside it); GraphDB in a folder.
        const db = path.join(base, `${system}-db`);
        removeDatabase(db);
        process.stderr.write(`scale: ${system}, trial ${trial + 1}/${trials}: load, reopen, change\n`);
        const result = runStep('load', system, db);
        result.folder_mb = databaseMb(db);
        Object.assign(result, runStep('reopen', system, db));
        Object.assign(result, runStep('change', system, db));
        result.folder_mb_end = databaseMb(db);
        removeDatabase(db);
        Object.assign(result, runStep('load_parquet', system, db));
        results[system].push(result);
        removeDatabase(db);
      }
    }
  } finally {
    if (!args.dir) fs.rmSync(base, { recursive: true, force: true });
  }
  for (const [system, runs] of Object.entries(results)) {
    const summary = {};
    for (const metric of Object.keys(runs[0] ?? {})) {
      const values = runs.map((r) => r[metric]);
      summary[metric] = { median: median(values), min: Math.min(...values), max: Math.max(...values) };
    }
    report.systems[system] = summary;
  }
  report.loadAverageAtEnd = os.loadavg().map((v) => Math.round(v * 100) / 100);
  if (args.json) fs.writeFileSync(args.json, `${JSON.stringify(report, null, 2)}\n`);
  process.stdout.write(`${JSON.stringify(report)}\n`);
}

await main();
