#!/usr/bin/env node
// The cost of Kùzu's API (`quiverdb/kuzu`, src/kuzu) over GraphDB's own, on a point read.
//
//   node benchmarks/kuzu-api/bench.mjs [--persons N] [--seconds S] [--trials N] [--json FILE]
//                                      [--root PACKAGE_DIR]
//
// One in-memory database of --persons persons (default 100,000), one connection per API, and
// the same statement, `MATCH (p:person) WHERE p.id = $id RETURN p.name, p.age`, with a
// pseudo-random id each time, read back as row objects:
//   native_async  GraphDB's API: `await conn.query(text, { id })`, then `toObjects()`;
//   kuzu_async    Kùzu's API: `await conn.execute(prepared, { id })`, then `getAll()`;
//   native_sync   `conn.querySync(text, { id }).toObjects()`;
//   kuzu_sync     `conn.executeSync(prepared, { id }).getAllSync()`.
// Each runs for --seconds (default 1, after a warm-up of half that) per trial; the trials
// (default 5) interleave the four, the first of them rotating, so that a noisy moment hits
// each alike. The report gives µs per read (median, min, max) and each Kùzu figure's ratio to
// the native one (median of the trials' ratios): 1.10 would mean the Kùzu API adds 10%.

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const here = path.dirname(fileURLToPath(import.meta.url));
const { values: args } = parseArgs({
  options: {
    persons: { type: 'string', default: '100000' },
    seconds: { type: 'string', default: '1' },
    trials: { type: 'string', default: '5' },
    json: { type: 'string' },
    root: { type: 'string' },
  },
});
const persons = Number(args.persons);
const seconds = Number(args.seconds);
const trials = Number(args.trials);
if (!Number.isInteger(persons) || persons < 1) throw new Error(`--persons must be a positive integer`);
if (!(seconds > 0)) throw new Error('--seconds must be a positive number');
if (!Number.isInteger(trials) || trials < 1) throw new Error('--trials must be a positive integer');

// The package measured: its dist/ (the runner passes its snapshot).
const packageRoot = path.resolve(args.root ?? path.join(here, '..', '..'));
const dist = (file) => pathToFileURL(path.join(packageRoot, 'dist', file)).href;
const kuzu = await import(dist('kuzu/index.js'));

const TEXT = 'MATCH (p:person) WHERE p.id = $id RETURN p.name, p.age';

// One database for both APIs: Kùzu's Database wraps GraphDB's (`_database`), on which
// GraphDB's own connection is opened.
const kdb = new kuzu.Database(':memory:');
const kconn = new kuzu.Connection(kdb);
await kconn.init();
kconn.querySync('CREATE NODE TABLE person(id INT64, name STRING, age INT64, PRIMARY KEY(id))');
kconn.querySync(
  `UNWIND range(0, ${persons - 1}) AS i CREATE (:person {id: i, name: concat('person', CAST(i AS STRING)), age: i % 90})`,
);
const core = kdb._database; // GraphDB's Database under Kùzu's: the same data for both APIs
const nconn = core.connect();
const prepared = await kconn.prepare(TEXT);

// A cheap pseudo-random sequence of ids (xorshift), the same for every variant.
function ids() {
  let x = 2463534242;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) % persons;
  };
}

const VARIANTS = {
  native_async: async (id) => (await nconn.query(TEXT, { id })).toObjects(),
  kuzu_async: async (id) => (await kconn.execute(prepared, { id })).getAll(),
  native_sync: async (id) => nconn.querySync(TEXT, { id }).toObjects(),
  kuzu_sync: async (id) => kconn.executeSync(prepared, { id }).getAllSync(),
};

// Both APIs must read the same row: a check, not a timing.
{
  const a = await VARIANTS.native_async(42);
  const b = await VARIANTS.kuzu_async(42);
  if (JSON.stringify(a) !== JSON.stringify(b)) {
    throw new Error(`the APIs disagree: ${JSON.stringify(a)} vs ${JSON.stringify(b)}`);
  }
}

/** Reads for `ms` milliseconds; returns µs per read. */
async function measure(read, ms) {
  const next = ids();
  let count = 0;
  const started = performance.now();
  let now = started;
  while (now - started < ms) {
    for (let i = 0; i < 256; i++) await read(next());
    count += 256;
    now = performance.now();
  }
  return ((now - started) * 1000) / count;
}

const names = Object.keys(VARIANTS);
const samples = Object.fromEntries(names.map((name) => [name, []]));
for (let trial = 0; trial < trials; trial++) {
  const order = names.map((_, i) => names[(i + trial) % names.length]);
  for (const name of order) {
    await measure(VARIANTS[name], (seconds * 1000) / 2);
    samples[name].push(await measure(VARIANTS[name], seconds * 1000));
  }
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const round = (value, digits) => Number(value.toFixed(digits));
const report = { persons, seconds, trials, statement: TEXT };
for (const name of names) {
  report[name] = {
    us_per_read: {
      median: round(median(samples[name]), 3),
      min: round(Math.min(...samples[name]), 3),
      max: round(Math.max(...samples[name]), 3),
    },
  };
}
for (const mode of ['async', 'sync']) {
  const ratios = samples[`kuzu_${mode}`].map((us, i) => us / samples[`native_${mode}`][i]);
  report[`ratio_${mode}`] = round(median(ratios), 3);
}
nconn.close();
await kdb.close();
if (args.json) fs.writeFileSync(args.json, `${JSON.stringify(report, null, 2)}\n`);
process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
