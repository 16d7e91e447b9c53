#!/usr/bin/env node
// Commit rate against the disk's own limit.
//
//   node benchmarks/commit/bench.mjs [--seconds N] [--trials N] [--dir DIR] [--json FILE]
//                                    [--root PACKAGE_DIR]
//
// Measures, each for --seconds (default 3) and --trials times (default 3, interleaved so that
// a noisy moment hits every measurement alike; the report has median, min and max), in a
// folder on the disk under test (default: a fresh folder under the OS temp dir):
//   raw_fdatasync     one thread writing 64 bytes at a time into a file of zeros written and
//                     synced beforehand, and fdatasync-ing each: the most single-client commits
//                     per second this disk allows (a sync with no new file size to record; the
//                     way SQLite's WAL and GraphDB's preallocated logs write);
//   raw_append_fdatasync  the same appending to the end of the file: each sync also records
//                     the file's new size (slower on ext4);
//   graphdb_1         one connection inserting one node per statement, syncOnCommit on;
//   graphdb_1_sync_call  the same with querySync: no thread hop per statement, so it shows what
//                     the commit path itself adds to the fdatasync;
//   graphdb_8         eight connections doing the same at once (group commit);
//   graphdb_1_nosync  one connection, syncOnCommit off (records reach the page cache only).
// Each GraphDB figure is reported as commits per second and as a ratio to raw_fdatasync.
// Every committed node is counted afterwards, so a figure always stands for real commits.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const here = path.dirname(fileURLToPath(import.meta.url));

const { values: args } = parseArgs({
  options: {
    seconds: { type: 'string', default: '3' },
    trials: { type: 'string', default: '3' },
    dir: { type: 'string' },
    json: { type: 'string' },
    root: { type: 'string' },
  },
});
const seconds = Number(args.seconds);
if (!Number.isFinite(seconds) || seconds <= 0) {
  throw new Error(`--seconds must be a positive number, got '${args.seconds}'`);
}
const trials = Number(args.trials);
if (!Number.isInteger(trials) || trials < 1) {
  throw new Error(`--trials must be a positive integer, got '${args.trials}'`);
}
// The package measured: its dist/ (the runner passes its snapshot).
const packageRoot = path.resolve(args.root ?? path.join(here, '..', '..'));
const { Database } = await import(pathToFileURL(path.join(packageRoot, 'dist', 'index.js')).href);

const base = args.dir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'graphdb-commit-bench-'));
fs.mkdirSync(base, { recursive: true });

// One thread writes 64-byte records and fdatasyncs each one. `preallocate`: into a file of
// zeros written and synced first (an overwrite), else at the end of the file (an append).
function rawFdatasync({ preallocate }) {
  const file = path.join(base, 'raw-fdatasync.bin');
  const fd = fs.openSync(file, 'w');
  const record = Buffer.alloc(64, 7);
  const zeros = Buffer.alloc(1 << 20);
  let allocated = 0;
  const allocate = () => {
    fs.writeSync(fd, zeros, 0, zeros.length, allocated);
    allocated += zeros.length;
    fs.fsyncSync(fd);
  };
  let n = 0;
  try {
    // 1 MiB holds 16,384 records; a later extension is timed, as GraphDB's are.
    if (preallocate) allocate();
    const deadline = performance.now() + seconds * 1000;
    while (performance.now() < deadline) {
      if (preallocate) {
        if ((n + 1) * 64 > allocated) allocate();
        fs.writeSync(fd, record, 0, 64, n * 64);
      } else {
        fs.writeSync(fd, record);
      }
      fs.fdatasyncSync(fd);
      n++;
    }
  } finally {
    fs.closeSync(fd);
    fs.rmSync(file, { force: true });
  }
  return n / seconds;
}

async function graphdb(name, clients, syncOnCommit, { syncCall = false } = {}) {
  const dir = path.join(base, name);
  fs.rmSync(dir, { recursive: true, force: true });
  const db = new Database(dir, { maxThreadNum: clients, syncOnCommit });
  try {
    const setup = db.connect();
    setup.querySync('CREATE NODE TABLE Item(id INT64, client INT64, PRIMARY KEY(id))');
    setup.close();
    const connections = Array.from({ length: clients }, () => db.connect());
    // Warm-up: a few commits per connection (opens each slot's log).
    let next = 0;
    for (const conn of connections) {
      for (let i = 0; i < 5; i++) await conn.query('CREATE (:Item {id: $id, client: -1})', { id: next++ });
    }
    const warm = next;
    const deadline = performance.now() + seconds * 1000;
    const started = performance.now();
    const counts = await Promise.all(
      connections.map(async (conn, client) => {
        let done = 0;
        while (performance.now() < deadline) {
          const params = { id: next++, client };
          if (syncCall) conn.querySync('CREATE (:Item {id: $id, client: $client})', params);
          else await conn.query('CREATE (:Item {id: $id, client: $client})', params);
          done++;
        }
        return done;
      }),
    );
    const elapsed = (performance.now() - started) / 1000;
    const committed = counts.reduce((a, b) => a + b, 0);
    const check = connections[0].querySync('MATCH (i:Item) RETURN count(*)').rows[0][0];
    if (Number(check) !== committed + warm) {
      throw new Error(`${name}: ${check} items after ${committed + warm} acknowledged commits`);
    }
    for (const conn of connections) conn.close();
    return committed / elapsed;
  } finally {
    db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const MEASURES = {
  raw_fdatasync: async () => rawFdatasync({ preallocate: true }),
  raw_append_fdatasync: async () => rawFdatasync({ preallocate: false }),
  graphdb_1: () => graphdb('graphdb_1', 1, true),
  graphdb_1_sync_call: () => graphdb('graphdb_1_sync_call', 1, true, { syncCall: true }),
  graphdb_8: () => graphdb('graphdb_8', 8, true),
  graphdb_1_nosync: () => graphdb('graphdb_1_nosync', 1, false),
};
const samples = Object.fromEntries(Object.keys(MEASURES).map((name) => [name, []]));
for (let trial = 0; trial < trials; trial++) {
  for (const [name, measure] of Object.entries(MEASURES)) samples[name].push(await measure());
}
const summary = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return {
    median: Math.round(sorted[Math.floor(sorted.length / 2)]),
    min: Math.round(sorted[0]),
    max: Math.round(sorted[sorted.length - 1]),
  };
};
const results = Object.fromEntries(Object.entries(samples).map(([n, v]) => [n, summary(v)]));
const ratio = (name) => Number((results[name].median / results.raw_fdatasync.median).toFixed(2));
const report = {
  unit: 'commits/s',
  seconds,
  trials,
  ...results,
  ratio_1_to_fdatasync: ratio('graphdb_1'),
  ratio_1_sync_call_to_fdatasync: ratio('graphdb_1_sync_call'),
  ratio_8_to_fdatasync: ratio('graphdb_8'),
};
if (!args.dir) fs.rmSync(base, { recursive: true, force: true });
if (args.json) fs.writeFileSync(args.json, `${JSON.stringify(report, null, 2)}\n`);
process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
