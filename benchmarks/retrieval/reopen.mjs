#!/usr/bin/env node
// Open + first query after a restart, with the indexes' files (docs/indexes.md "Persistence")
// and without them (the index built from the rows on first use, as before index files):
// a vector index of --vectors (default 200,000) x --dim (64) clustered floats (default HNSW
// parameters, cosine) and a full-text index of --docs (100,000) generated documents (porter).
//
// node benchmarks/retrieval/reopen.mjs [--vectors N] [--dim D] [--docs N] [--dir DIR]
//
// Prints one JSON report on stdout (times in ms, index file sizes in bytes).

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { clusteredVectors, generatedCorpus, row, writeVectorNpy } from './data.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const { values: args } = parseArgs({
  options: {
    vectors: { type: 'string', default: '200000' },
    dim: { type: 'string', default: '64' },
    docs: { type: 'string', default: '100000' },
    dir: { type: 'string', default: path.join(os.tmpdir(), `graphdb-reopen-${process.pid}`) },
  },
});
const count = Number(args.vectors);
const dim = Number(args.dim);
const log = (m) => process.stderr.write(`${m}\n`);
const ms = (start) => Math.round(performance.now() - start);

const { Database } = await import(pathToFileURL(path.join(here, '..', '..', 'dist', 'index.js')).href);
fs.rmSync(args.dir, { recursive: true, force: true });
fs.mkdirSync(args.dir, { recursive: true });
const dbDir = path.join(args.dir, 'db');

const set = clusteredVectors({ count, dim, queries: 1 });
const files = writeVectorNpy(args.dir, set);
const corpus = generatedCorpus({ docs: Number(args.docs), queries: 1 });
const csv = path.join(args.dir, 'docs.csv');
fs.writeFileSync(csv, `${corpus.texts.map((t, i) => `${i}|${t}`).join('\n')}\n`);
const query = row(set.queries, dim, 0);
const vectorQuery = `CALL QUERY_VECTOR_INDEX('Vec', 'v', $q, 10) RETURN node.id, distance`;
const ftsQuery = `CALL QUERY_FTS_INDEX('Doc', 'f', $q, top := 10) RETURN node.id, score`;
const words = corpus.queries[0];

async function run(fn) {
  const db = new Database(dbDir);
  const conn = db.connect();
  try {
    return await fn(conn);
  } finally {
    conn.close();
    db.close();
  }
}

async function answers(conn) {
  const v = await conn.query(vectorQuery, { q: query });
  const f = await conn.query(ftsQuery, { q: words });
  return JSON.stringify({ vector: v.rows.map((r) => r[0]), fts: f.rows });
}

const report = { vectors: count, dim, docs: Number(args.docs) };
let before;
let start = performance.now();
await run(async (conn) => {
  await conn.query(`CREATE NODE TABLE Vec(id INT64, emb FLOAT[${dim}], PRIMARY KEY(id))`);
  await conn.query(`COPY Vec FROM ('${files.ids}', '${files.vectors}') BY COLUMN`);
  await conn.query('CREATE NODE TABLE Doc(id INT64, text STRING, PRIMARY KEY(id))');
  await conn.query(`COPY Doc FROM '${csv}' (header=false, delim='|')`);
  start = performance.now();
  await conn.query("CALL CREATE_VECTOR_INDEX('Vec', 'v', 'emb')");
  report.vectorBuild = ms(start);
  start = performance.now();
  await conn.query("CALL CREATE_FTS_INDEX('Doc', 'f', ['text'], stemmer := 'porter')");
  report.ftsBuild = ms(start);
  await conn.query('CREATE (:Vec {id: -1})');
  start = performance.now();
  await conn.query('CHECKPOINT'); // writes both index files
  report.checkpointWithIndexFiles = ms(start);
  before = await answers(conn);
});
report.files = Object.fromEntries(
  fs
    .readdirSync(dbDir)
    .filter((f) => f.startsWith('index-'))
    .map((f) => [f, fs.statSync(path.join(dbDir, f)).size]),
);
log(`built: ${JSON.stringify(report)}`);

async function firstQueries(label) {
  const times = {};
  let t = performance.now();
  const db = new Database(dbDir);
  const conn = db.connect();
  try {
    const v = await conn.query(vectorQuery, { q: query });
    times.openAndFirstVectorQuery = ms(t);
    t = performance.now();
    const f = await conn.query(ftsQuery, { q: words });
    times.firstFtsQuery = ms(t);
    times.sameAnswersAsBeforeClose =
      JSON.stringify({ vector: v.rows.map((r) => r[0]), fts: f.rows }) === before;
  } finally {
    conn.close();
    db.close();
  }
  log(`${label}: ${JSON.stringify(times)}`);
  return times;
}

report.withFiles = await firstQueries('with index files');
for (const f of Object.keys(report.files)) fs.rmSync(path.join(dbDir, f));
report.rebuilt = await firstQueries('without index files (rebuild)');
console.log(JSON.stringify(report, null, 2));
fs.rmSync(args.dir, { recursive: true, force: true });
