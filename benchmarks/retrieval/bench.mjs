#!/usr/bin/env node
// The `retrieval` section of `npm run bench`: the HNSW vector index and the full-text index,
// GraphDB beside Kùzu 0.11.3 (the same Cypher: CREATE_VECTOR_INDEX / QUERY_VECTOR_INDEX,
// CREATE_FTS_INDEX / QUERY_FTS_INDEX), beside hnswlib-node (the raw HNSW library) and beside
// SQLite FTS5 (better-sqlite3), in one run.
//
// node benchmarks/retrieval/bench.mjs [--vectors N] [--dim D] [--queries N] [--docs N]
//                                     [--systems graphdb,kuzu,hnswlib,sqlite] [--only vector,fts]
//                                     [--root DIR] [--dir DIR] [--json FILE]
//
// Vectors: --vectors (default 100,000) rows of --dim (128) floats around 100 seeded Gaussian
// centres, loaded by COPY from .npy files (BY COLUMN); the index is built with the same parameters in
// every system (cosine, upper-layer degree 16, lower-layer 32 (hnswlib M=16), efc 100) and
// its build time measured. The exact 10 nearest neighbours of --queries (default 200) query
// vectors come from brute force; each system sweeps efs (10 to 512) to find the smallest efs
// that reaches each target recall@10 (0.90, 0.95, 0.99), and its queries per second (one
// connection, one query at a time, the whole query set, median of at least 5 passes and
// 1 s) are reported at
// that efs: systems compared at equal recall.
// Full text: a generated corpus (--docs, default 100,000 documents of 20-60 words over a
// Zipf vocabulary of 20,000 words) and the ms-passage sample of Kùzu's test datasets
// (../shared/conformance/kuzu/dataset/ms-passage, or under $GRAPHDB_SHARED, read in place;
// skipped with a message without it): index build time (porter stemmer) and the queries per second of
// top-10 BM25 disjunctive queries. GraphDB's answers (ids and scores) are checked equal to
// Kùzu's; SQLite's top 10 is reported as its overlap with Kùzu's (its BM25 differs in detail).
// Prints one JSON report on stdout (and --json FILE); exits 1 when answers differ.

import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { median, round } from '../lib/timing.mjs';
import {
  clusteredVectors,
  exactNeighbours,
  generatedCorpus,
  queriesFromTexts,
  recall,
  row,
  writeVectorNpy,
} from './data.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(here, '..', '..', 'package.json'));

const { values: args } = parseArgs({
  options: {
    vectors: { type: 'string', default: '100000' },
    dim: { type: 'string', default: '128' },
    queries: { type: 'string', default: '200' },
    docs: { type: 'string', default: '100000' },
    systems: { type: 'string', default: 'graphdb,kuzu,hnswlib,sqlite' },
    only: { type: 'string', default: 'vector,fts' },
    root: { type: 'string', default: path.resolve(here, '..', '..') },
    dir: { type: 'string', default: path.join(os.tmpdir(), `graphdb-retrieval-${process.pid}`) },
    shared: {
      type: 'string',
      default: process.env.GRAPHDB_SHARED ?? path.resolve(here, '..', '..', '..', 'shared'),
    },
    json: { type: 'string' },
  },
});

const K = 10;
const TARGETS = [0.9, 0.95, 0.99];
const EFS = [10, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512];
/** The HNSW parameters every system builds with (Kùzu's names; hnswlib's M = MU). */
const MU = 16;
const ML = 32;
const EFC = 100;
const MIN_PASSES = 5;
const MIN_SECONDS = 1;

const systems = new Set(args.systems.split(',').filter(Boolean));
const sections = new Set(args.only.split(',').filter(Boolean));

function log(message) {
  process.stderr.write(`retrieval: ${message}\n`);
}

function ms(start) {
  return round(performance.now() - start, 1);
}

/** The message of an error, first line. */
function why(error) {
  return String(error?.message ?? error).split('\n')[0];
}

/** GraphDB and Kùzu behind one small interface: run(text, params) -> rows as arrays. */
async function openGraphDB(dir) {
  const { Database } = await import(pathToFileURL(path.join(args.root, 'dist', 'index.js')).href);
  const db = new Database(dir);
  const conn = db.connect();
  const prepared = new Map();
  return {
    name: 'graphdb',
    async run(text, params) {
      if (!params) return (await conn.query(text)).rows;
      let statement = prepared.get(text);
      if (!statement) {
        statement = await conn.prepare(text);
        prepared.set(text, statement);
      }
      return (await statement.run(params)).rows;
    },
    async close() {
      for (const statement of prepared.values()) statement.close();
      conn.close();
      db.close();
    },
  };
}

async function openKuzu(dir) {
  const kuzu = require('kuzu');
  const db = new kuzu.Database(dir);
  await db.init();
  const conn = new kuzu.Connection(db);
  const prepared = new Map();
  const rowsOf = async (result) => {
    const rows = (await result.getAll()).map((r) => Object.values(r));
    result.close();
    return rows;
  };
  return {
    name: 'kuzu',
    async run(text, params) {
      if (!params) return rowsOf(await conn.query(text));
      let statement = prepared.get(text);
      if (!statement) {
        statement = await conn.prepare(text);
        if (!statement.isSuccess()) throw new Error(statement.getErrorMessage());
        prepared.set(text, statement);
      }
      return rowsOf(await conn.execute(statement, params));
    },
    async close() {
      await conn.close();
      await db.close();
    },
  };
}

const OPENERS = { graphdb: openGraphDB, kuzu: openKuzu };

/** Runs every query once, in order; returns the answers and the seconds taken. */
async function pass(queries, search) {
  const answers = [];
  const start = performance.now();
  for (const q of queries) answers.push(await search(q));
  return { answers, seconds: (performance.now() - start) / 1000 };
}

/**
 * One untimed pass, then timed passes (at least MIN_PASSES, and until MIN_SECONDS have gone):
 * the answers and the median queries per second of the passes.
 */
async function throughput(queries, search) {
  const first = await pass(queries, search);
  const rates = [];
  let elapsed = 0;
  while (rates.length < MIN_PASSES || elapsed < MIN_SECONDS) {
    const { seconds } = await pass(queries, search);
    rates.push(queries.length / seconds);
    elapsed += seconds;
  }
  return { answers: first.answers, qps: round(median(rates), 1) };
}

/**
 * Sweeps efs upwards until every target recall is reached (or EFS runs out); for each target
 * the smallest efs reaching it, with the recall and queries per second there.
 */
async function sweep(queries, truth, searchAt) {
  const points = [];
  for (const efs of EFS) {
    const measured = await throughput(queries, (q) => searchAt(q, efs));
    const r = recall(measured.answers, truth);
    points.push({ efs, recall: round(r, 4), qps: measured.qps });
    if (r >= TARGETS[TARGETS.length - 1]) break;
  }
  const atTarget = {};
  for (const target of TARGETS) {
    const point = points.find((p) => p.recall >= target);
    atTarget[target] = point ?? null;
  }
  return { points, atTarget };
}

async function vectorSection(report) {
  const count = Number(args.vectors);
  const dim = Number(args.dim);
  const nq = Number(args.queries);
  let start = performance.now();
  const set = clusteredVectors({ count, dim, queries: nq });
  const files = writeVectorNpy(args.dir, set);
  log(`vectors: ${count} x ${dim} generated and written in ${ms(start)} ms`);
  start = performance.now();
  const truth = exactNeighbours(set, K);
  log(`vectors: exact top-${K} of ${nq} queries by brute force in ${ms(start)} ms`);
  const queries = Array.from({ length: nq }, (_, i) => row(set.queries, dim, i));
  const section = {
    vectors: count,
    dim,
    queries: nq,
    k: K,
    params: { metric: 'cosine', mu: MU, ml: ML, efc: EFC },
    targets: TARGETS,
    systems: {},
    skipped: {},
  };
  report.vector = section;

  for (const name of ['graphdb', 'kuzu']) {
    if (!systems.has(name)) continue;
    let db;
    try {
      db = await OPENERS[name](path.join(args.dir, `vec-${name}`));
      start = performance.now();
      await db.run(`CREATE NODE TABLE Vec(id INT64, emb FLOAT[${dim}], PRIMARY KEY(id))`);
      await db.run(`COPY Vec FROM ('${files.ids}', '${files.vectors}') BY COLUMN`);
      const load = ms(start);
      start = performance.now();
      await db.run(
        `CALL CREATE_VECTOR_INDEX('Vec', 'vec_idx', 'emb', metric := 'cosine', mu := ${MU}, ml := ${ML}, efc := ${EFC})`,
      );
      const build = ms(start);
      log(`vectors: ${name} COPY ${load} ms, index build ${build} ms`);
      // k and efs as literals: Kùzu 0.11.3 ignores an efs given as a parameter (it searches
      // with its default, 200); one prepared statement per efs.
      const text = (efs) =>
        `CALL QUERY_VECTOR_INDEX('Vec', 'vec_idx', $q, ${K}, efs := ${efs}) RETURN node.id`;
      const result = await sweep(queries, truth, async (q, efs) =>
        (await db.run(text(efs), { q })).map((r) => Number(r[0])),
      );
      section.systems[name] = { load_ms: load, build_ms: build, ...result };
    } catch (error) {
      section.skipped[name] = why(error);
      log(`vectors: ${name} SKIPPED: ${section.skipped[name]}`);
    } finally {
      await db?.close();
    }
  }

  if (systems.has('hnswlib')) {
    let hnswlib = null;
    try {
      hnswlib = require('hnswlib-node');
    } catch (error) {
      section.skipped.hnswlib =
        `hnswlib-node does not load (${why(error)}); it is built by its install script: ` +
        '`npm rebuild hnswlib-node` (add --nodedir=/usr where node-gyp cannot fetch headers)';
      log(`vectors: hnswlib SKIPPED: ${section.skipped.hnswlib}`);
    }
    if (hnswlib) {
      const index = new hnswlib.HierarchicalNSW('cosine', dim);
      start = performance.now();
      index.initIndex({ maxElements: count, m: MU, efConstruction: EFC, randomSeed: 100 });
      for (let i = 0; i < count; i++) index.addPoint(row(set.data, dim, i), i);
      const build = ms(start);
      log(`vectors: hnswlib index build ${build} ms (one thread: hnswlib-node adds points serially)`);
      const result = await sweep(queries, truth, async (q, efs) => {
        index.setEf(Math.max(efs, K));
        return index.searchKnn(q, K).neighbors;
      });
      section.systems.hnswlib = { build_ms: build, ...result };
    }
  }

  // QPS ratios at each target recall.
  const g = section.systems.graphdb?.atTarget;
  section.ratios = {};
  for (const target of TARGETS) {
    const qps = (name) => section.systems[name]?.atTarget?.[target]?.qps;
    section.ratios[target] = {
      graphdb_to_kuzu: g && qps('kuzu') ? round(qps('graphdb') / qps('kuzu'), 2) : null,
      graphdb_to_hnswlib: g && qps('hnswlib') ? round(qps('graphdb') / qps('hnswlib'), 2) : null,
    };
  }
  for (const file of Object.values(files)) fs.rmSync(file, { force: true });
}

/** Reads the ms-passage sample (id,content with quoted fields) in place. */
function msPassage() {
  const file = path.join(args.shared, 'conformance', 'kuzu', 'dataset', 'ms-passage', 'vDoc.csv');
  if (!fs.existsSync(file)) return null;
  const texts = [];
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    const comma = line.indexOf(',');
    if (comma <= 0) continue;
    let text = line.slice(comma + 1);
    if (text.startsWith('"') && text.endsWith('"')) text = text.slice(1, -1).replaceAll('""', '"');
    texts.push(text);
  }
  return { file, texts };
}

/** Writes `id|text` lines (the texts hold no '|' or newline) for COPY. */
function writeTextCsv(file, texts) {
  const clean = (t) => t.replaceAll('|', ' ').replaceAll('\n', ' ').replaceAll('"', ' ');
  fs.writeFileSync(file, `${texts.map((t, i) => `${i}|${clean(t)}`).join('\n')}\n`);
}

/**
 * Two top-k lists of [id, score], sorted by score then id: the same scores (to 1e-6), and the
 * same ids except among those tied with the last score (where the cut may choose either).
 */
function sameRanking(mine, theirs) {
  if (mine.length !== theirs.length) return false;
  const close = (a, b) => Math.abs(a - b) <= 1e-6 * Math.max(1, Math.abs(b));
  const last = theirs.at(-1)?.[1];
  return mine.every(([id, s], j) => close(s, theirs[j][1]) && (id === theirs[j][0] || close(s, last)));
}

async function ftsCorpus(name, texts, queries) {
  const entry = { documents: texts.length, queries: queries.length, systems: {}, skipped: {} };
  const csv = path.join(args.dir, `${name}.csv`);
  writeTextCsv(csv, texts);
  const answers = {};
  for (const system of ['graphdb', 'kuzu']) {
    if (!systems.has(system)) continue;
    let db;
    try {
      db = await OPENERS[system](path.join(args.dir, `fts-${name}-${system}`));
      let start = performance.now();
      await db.run('CREATE NODE TABLE Doc(id INT64, text STRING, PRIMARY KEY(id))');
      await db.run(`COPY Doc FROM '${csv}' (header=false, delim='|')`);
      const load = ms(start);
      start = performance.now();
      await db.run("CALL CREATE_FTS_INDEX('Doc', 'doc_fts', ['text'], stemmer := 'porter')");
      const build = ms(start);
      const text = "CALL QUERY_FTS_INDEX('Doc', 'doc_fts', $q, top := $k) RETURN node.id, score";
      const measured = await throughput(queries, async (q) =>
        (await db.run(text, { q, k: K }))
          .map((r) => [Number(r[0]), Number(r[1])])
          .sort((a, b) => b[1] - a[1] || a[0] - b[0]),
      );
      answers[system] = measured.answers;
      entry.systems[system] = { load_ms: load, build_ms: build, qps: measured.qps };
      log(`fts ${name}: ${system} COPY ${load} ms, index ${build} ms, ${measured.qps} queries/s`);
    } catch (error) {
      entry.skipped[system] = why(error);
      log(`fts ${name}: ${system} SKIPPED: ${entry.skipped[system]}`);
    } finally {
      await db?.close();
    }
  }
  if (systems.has('sqlite')) {
    try {
      const Sqlite = require('better-sqlite3');
      const db = new Sqlite(':memory:');
      db.exec('CREATE TABLE doc(id INTEGER PRIMARY KEY, text TEXT)');
      const insert = db.prepare('INSERT INTO doc VALUES (?, ?)');
      let start = performance.now();
      db.transaction(() => {
        for (const [i, t] of texts.entries()) insert.run(i, t);
      })();
      const load = ms(start);
      start = performance.now();
      db.exec(
        "CREATE VIRTUAL TABLE doc_fts USING fts5(text, content='doc', content_rowid='id', tokenize='porter unicode61')",
      );
      db.exec("INSERT INTO doc_fts(doc_fts) VALUES ('rebuild')");
      const build = ms(start);
      const select = db.prepare(
        'SELECT rowid, -bm25(doc_fts) AS score FROM doc_fts WHERE doc_fts MATCH ? ORDER BY bm25(doc_fts) LIMIT ?',
      );
      // Disjunctive like QUERY_FTS_INDEX's default: each word quoted, joined by OR.
      const match = (q) =>
        q
          .split(/\s+/)
          .filter(Boolean)
          .map((w) => `"${w.replaceAll('"', '')}"`)
          .join(' OR ');
      const measured = await throughput(queries, async (q) =>
        select
          .raw()
          .all(match(q), K)
          .map((r) => [Number(r[0]), Number(r[1])]),
      );
      answers.sqlite = measured.answers;
      entry.systems.sqlite = { load_ms: load, build_ms: build, qps: measured.qps };
      log(`fts ${name}: sqlite insert ${load} ms, index ${build} ms, ${measured.qps} queries/s`);
      db.close();
    } catch (error) {
      entry.skipped.sqlite = why(error);
      log(`fts ${name}: sqlite SKIPPED: ${entry.skipped.sqlite}`);
    }
  }
  // GraphDB against Kùzu: the same ids with the same scores (to 1e-6), query by query.
  if (answers.graphdb && answers.kuzu) {
    const differing = [];
    answers.graphdb.forEach((mine, i) => {
      if (!sameRanking(mine, answers.kuzu[i])) differing.push(queries[i]);
    });
    entry.same_as_kuzu = differing.length === 0;
    if (differing.length > 0) entry.differing_queries = differing.slice(0, 5);
  }
  if (answers.sqlite && answers.kuzu) {
    let shared = 0;
    let total = 0;
    answers.kuzu.forEach((theirs, i) => {
      const ids = new Set(theirs.map(([id]) => id));
      shared += answers.sqlite[i].filter(([id]) => ids.has(id)).length;
      total += theirs.length;
    });
    entry.sqlite_overlap_with_kuzu = total === 0 ? null : round(shared / total, 3);
  }
  const qps = (s) => entry.systems[s]?.qps;
  entry.ratios = {
    graphdb_to_kuzu: qps('graphdb') && qps('kuzu') ? round(qps('graphdb') / qps('kuzu'), 2) : null,
    graphdb_to_sqlite: qps('graphdb') && qps('sqlite') ? round(qps('graphdb') / qps('sqlite'), 2) : null,
  };
  fs.rmSync(csv, { force: true });
  return entry;
}

async function ftsSection(report) {
  const docs = Number(args.docs);
  const generated = generatedCorpus({ docs, queries: 500 });
  report.fts = { generated: await ftsCorpus('generated', generated.texts, generated.queries) };
  const passage = msPassage();
  if (!passage) {
    report.fts.ms_passage = { skipped: `no ms-passage sample under ${args.shared} (../shared)` };
    log(`fts ms-passage SKIPPED: ${report.fts.ms_passage.skipped}`);
  } else {
    report.fts.ms_passage = await ftsCorpus(
      'ms_passage',
      passage.texts,
      queriesFromTexts(passage.texts, 500),
    );
  }
}

async function main() {
  fs.mkdirSync(args.dir, { recursive: true });
  const loadAverage = () => os.loadavg().map((v) => round(v, 2));
  const report = {
    cores: os.availableParallelism(),
    systems: [...systems],
    loadAverageAtStart: loadAverage(),
  };
  try {
    if (sections.has('vector')) await vectorSection(report);
    if (sections.has('fts')) await ftsSection(report);
  } finally {
    fs.rmSync(args.dir, { recursive: true, force: true });
  }
  report.loadAverageAtEnd = loadAverage();
  const text = `${JSON.stringify(report, null, 2)}\n`;
  if (args.json) fs.writeFileSync(args.json, text);
  else process.stdout.write(text);
  const differs = [report.fts?.generated, report.fts?.ms_passage].some((e) => e?.same_as_kuzu === false);
  if (differs) {
    log('FAILED: GraphDB full-text answers differ from Kùzu');
    process.exitCode = 1;
  }
}

await main();
