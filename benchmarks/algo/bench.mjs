#!/usr/bin/env node
// Graph algorithms (docs/algorithms.md): every algorithm Kùzu 0.11.3 also has, GraphDB next to
// Kùzu on the benchmark's social graph (benchmarks/lib/social.mjs), with their answers compared.
//
//   node benchmarks/algo/bench.mjs [--persons N[,N]] [--trials N] [--cache DIR] [--json FILE]
//                                  [--root DIR] [--systems graphdb,kuzu] [--only A,B]
//
// For each size (default 100,000 persons with 10 knows edges each; 1,000,000 is the large
// scale) and system, one child process loads the graph into a new database, projects it
// (CALL project_graph('G', ['Person'], ['knows'])) and runs each algorithm --trials times
// (default 3; --only: those algorithms alone), the query and the reading of every row it
// returns timed together:
//   project_graph   project_graph + drop_projected_graph
//   page_rank       the top 10 ids by rank
//   wcc, scc, scc_ko  the component size distribution (size -> number of components)
//   kcore           the core size distribution (k -> number of nodes)
//   louvain         every node's community (read into JavaScript), then the community count
//                   and the modularity of the partition on the undirected simple graph
// The report gives each figure's median, min and max per system, the speed-up, and whether the
// answers agree (Louvain: GraphDB's modularity no lower than Kùzu's). Prints one JSON line on
// stdout (and --json FILE).

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { ensureSocialCsv } from '../lib/social.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(here, '..', '..', 'package.json'));

const { values: args } = parseArgs({
  options: {
    persons: { type: 'string', default: '100000' },
    systems: { type: 'string', default: 'graphdb,kuzu' },
    cache: { type: 'string', default: path.join(os.tmpdir(), 'graphdb-bench-cache') },
    trials: { type: 'string', default: '3' },
    json: { type: 'string' },
    root: { type: 'string' },
    only: { type: 'string' },
    // Internal: one system and size in a child process.
    system: { type: 'string' },
    out: { type: 'string' },
  },
});
const packageRoot = path.resolve(args.root ?? path.join(here, '..', '..'));
const trials = Math.max(1, Number(args.trials));

export const ALGORITHMS = ['project_graph', 'page_rank', 'wcc', 'scc', 'scc_ko', 'kcore', 'louvain'];
const chosen = args.only ? args.only.split(',').map((name) => name.trim()) : ALGORITHMS;
for (const name of chosen) {
  if (!ALGORITHMS.includes(name))
    throw new Error(`--only: unknown algorithm ${name} (${ALGORITHMS.join(', ')})`);
}

const SCHEMA = [
  'CREATE NODE TABLE Person(id INT64, name STRING, age INT64, city STRING, PRIMARY KEY(id))',
  'CREATE REL TABLE knows(FROM Person TO Person, since DATE)',
];

async function open(system, dir) {
  if (system === 'graphdb') {
    const { Database } = await import(pathToFileURL(path.join(packageRoot, 'dist', 'index.js')).href);
    const db = new Database(dir);
    const conn = db.connect();
    return {
      run: async (text) => (await conn.query(text)).rows,
      close: async () => db.close(),
    };
  }
  const kuzu = require('kuzu');
  const db = new kuzu.Database(dir);
  await db.init();
  const conn = new kuzu.Connection(db);
  return {
    async run(text) {
      const result = await conn.query(text);
      const rows = (await result.getAll()).map((row) => Object.values(row));
      result.close();
      return rows;
    },
    async close() {
      await conn.close();
      await db.close();
    },
  };
}

const distribution = (rows) => rows.map(([size, count]) => `${size}:${count}`).join(',');

/** Each algorithm's query and how its rows become the answer that is compared. */
const QUERIES = {
  page_rank: {
    text: "CALL page_rank('G') RETURN node.id AS id, rank ORDER BY rank DESC, id LIMIT 10",
    answer: (rows) => rows.map((r) => Number(r[0])).join(','),
  },
  wcc: {
    text: "CALL weakly_connected_components('G') WITH group_id, count(*) AS size RETURN size, count(*) AS n ORDER BY size",
    answer: distribution,
  },
  scc: {
    text: "CALL strongly_connected_components('G') WITH group_id, count(*) AS size RETURN size, count(*) AS n ORDER BY size",
    answer: distribution,
  },
  scc_ko: {
    text: "CALL strongly_connected_components_kosaraju('G') WITH group_id, count(*) AS size RETURN size, count(*) AS n ORDER BY size",
    answer: distribution,
  },
  kcore: {
    text: "CALL k_core_decomposition('G') RETURN k_degree, count(*) AS n ORDER BY k_degree",
    answer: distribution,
  },
  louvain: { text: "CALL louvain('G') RETURN node.id AS id, louvain_id", answer: null },
};

/** Modularity of `community` (id -> community) on the undirected simple graph of the CSV. */
function modularity(knowsFile, community) {
  const seen = new Set();
  const degree = new Map();
  const internal = new Map();
  let m = 0;
  const lines = fs.readFileSync(knowsFile, 'utf8').split('\n');
  for (let i = 1; i < lines.length; i++) {
    if (!lines[i]) continue;
    const [a, b] = lines[i].split('|').map(Number);
    if (a === b) continue;
    const key = a < b ? `${a},${b}` : `${b},${a}`;
    if (seen.has(key)) continue;
    seen.add(key);
    m++;
    const ca = community.get(a);
    const cb = community.get(b);
    degree.set(ca, (degree.get(ca) ?? 0) + 1);
    degree.set(cb, (degree.get(cb) ?? 0) + 1);
    if (ca === cb) internal.set(ca, (internal.get(ca) ?? 0) + 1);
  }
  let q = 0;
  for (const [c, d] of degree) q += (internal.get(c) ?? 0) / m - (d / (2 * m)) ** 2;
  return q;
}

async function child() {
  const persons = Number(args.persons);
  const data = ensureSocialCsv(args.cache, persons / 100_000);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `graphdb-algo-${args.system}-`));
  const out = { system: args.system, persons: data.persons, knows: data.knows, times: {}, answers: {} };
  try {
    const db = await open(args.system, path.join(dir, 'db'));
    for (const statement of SCHEMA) await db.run(statement);
    let t0 = performance.now();
    await db.run(`COPY Person FROM '${data.personFile}' (header=true, delim='|')`);
    await db.run(`COPY knows FROM '${data.knowsFile}' (header=true, delim='|')`);
    out.load_ms = Math.round(performance.now() - t0);
    const time = async (name, fn) => {
      out.times[name] ??= [];
      t0 = performance.now();
      const result = await fn();
      out.times[name].push(Math.round((performance.now() - t0) * 10) / 10);
      return result;
    };
    for (let trial = 0; trial < (chosen.includes('project_graph') ? trials : 0); trial++) {
      await time('project_graph', async () => {
        await db.run("CALL project_graph('P', ['Person'], ['knows'])");
        await db.run("CALL drop_projected_graph('P')");
      });
    }
    await db.run("CALL project_graph('G', ['Person'], ['knows'])");
    for (const [name, query] of Object.entries(QUERIES)) {
      if (!chosen.includes(name)) continue;
      let rows;
      for (let trial = 0; trial < trials; trial++) rows = await time(name, () => db.run(query.text));
      if (query.answer) {
        out.answers[name] = query.answer(rows);
      } else {
        const community = new Map(rows.map(([id, c]) => [Number(id), Number(c)]));
        out.answers.louvain_communities = new Set(community.values()).size;
        out.answers.louvain_modularity = modularity(data.knowsFile, community);
      }
    }
    await db.close();
  } catch (error) {
    out.error = String(error?.message ?? error);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  fs.writeFileSync(args.out, `${JSON.stringify(out)}\n`);
}

const stats = (values) => {
  if (!values?.length) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return { median: sorted[Math.floor(sorted.length / 2)], min: sorted[0], max: sorted.at(-1) };
};

async function parent() {
  const systems = args.systems.split(',').map((s) => s.trim());
  const report = { trials, sizes: [] };
  for (const persons of args.persons.split(',').map(Number)) {
    const size = { persons, systems: {}, algorithms: {} };
    for (const system of systems) {
      const out = path.join(os.tmpdir(), `graphdb-algo-${process.pid}-${system}.json`);
      process.stderr.write(`algorithms: ${system}, ${persons} persons\n`);
      const argv = [fileURLToPath(import.meta.url), '--system', system, '--persons', String(persons)];
      argv.push('--out', out, '--cache', args.cache, '--trials', String(trials), '--root', packageRoot);
      if (args.only) argv.push('--only', args.only);
      const result = spawnSync(process.execPath, argv, {
        encoding: 'utf8',
        stdio: ['ignore', 'inherit', 'inherit'],
      });
      size.systems[system] = fs.existsSync(out)
        ? JSON.parse(fs.readFileSync(out, 'utf8'))
        : { error: `exited with ${result.status ?? result.signal}` };
      fs.rmSync(out, { force: true });
    }
    const g = size.systems.graphdb;
    const k = size.systems.kuzu;
    size.knows = g?.knows ?? k?.knows;
    for (const name of chosen) {
      const entry = { graphdb: stats(g?.times?.[name]), kuzu: stats(k?.times?.[name]) };
      if (entry.graphdb && entry.kuzu) {
        entry.speedup = Math.round((entry.kuzu.median / Math.max(entry.graphdb.median, 0.1)) * 10) / 10;
      }
      if (name === 'louvain') {
        entry.communities = {
          graphdb: g?.answers?.louvain_communities,
          kuzu: k?.answers?.louvain_communities,
        };
        entry.modularity = { graphdb: g?.answers?.louvain_modularity, kuzu: k?.answers?.louvain_modularity };
        if (g?.answers && k?.answers) {
          entry.same = g.answers.louvain_modularity >= k.answers.louvain_modularity - 1e-9;
        }
      } else if (name !== 'project_graph' && g?.answers && k?.answers) {
        entry.same = g.answers[name] === k.answers[name];
        if (!entry.same) entry.answers = { graphdb: g.answers[name], kuzu: k.answers[name] };
      }
      size.algorithms[name] = entry;
    }
    report.sizes.push(size);
  }
  const text = `${JSON.stringify(report)}\n`;
  if (args.json) fs.writeFileSync(args.json, text);
  process.stdout.write(text);
}

if (args.system) await child();
else await parent();
