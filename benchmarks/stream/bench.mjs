#!/usr/bin/env node
// Streamed results: rows per second and peak memory.
//
//   node benchmarks/stream/bench.mjs [--rows N] [--trials N] [--json FILE] [--root PACKAGE_DIR]
//
// Each measurement runs in a fresh process (so its peak RSS is its own), --trials times
// (default 3, interleaved; the report has median, min and max), over
// `UNWIND range(1, N) AS x RETURN x, x * 2 AS y, "row " + CAST(x AS STRING) AS s` (N = --rows,
// default 5,000,000):
//   embedded_stream  conn.stream(...) in batches of 1000, every row read in JavaScript;
//   http_ndjson      POST /cypher with Accept: application/x-ndjson to a GraphDBService in the
//                    same process, the client counting the lines as they arrive.
// For each: rows/s, the process's RSS before the statement, and its peak RSS (maxRSS) after.
// GraphDB only (Kùzu has no streamed results).

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const here = fileURLToPath(import.meta.url);

const { values: args } = parseArgs({
  options: {
    rows: { type: 'string', default: '5000000' },
    trials: { type: 'string', default: '3' },
    json: { type: 'string' },
    root: { type: 'string' },
    child: { type: 'string' },
  },
});
const rows = Number(args.rows);
if (!Number.isInteger(rows) || rows < 1)
  throw new Error(`--rows must be a positive integer, got '${args.rows}'`);
const trials = Number(args.trials);
if (!Number.isInteger(trials) || trials < 1)
  throw new Error(`--trials must be a positive integer, got '${args.trials}'`);
const packageRoot = path.resolve(args.root ?? path.join(path.dirname(here), '..', '..'));
const QUERY = `UNWIND range(1, ${rows}) AS x RETURN x, x * 2 AS y, "row " + CAST(x AS STRING) AS s`;

const MB = 2 ** 20;

/** One measurement, in this (child) process: {rowsPerSecond, rssBeforeMB, peakRssMB}. */
async function measure(name) {
  const { Database, GraphDBService } = await import(
    pathToFileURL(path.join(packageRoot, 'dist', 'index.js')).href
  );
  const db = new Database(':memory:', { maxThreadNum: 2 });
  try {
    let count = 0;
    let started;
    let rssBefore;
    if (name === 'embedded_stream') {
      const conn = db.connect();
      rssBefore = process.memoryUsage().rss;
      started = performance.now();
      for await (const row of conn.stream(QUERY)) {
        if (row.length === 3) count++;
      }
    } else {
      const service = new GraphDBService(db, {
        queryPort: 0,
        autoCompaction: false,
        console: false,
        queryTimeoutMs: 0,
      });
      const url = new URL(await service.start());
      try {
        rssBefore = process.memoryUsage().rss;
        started = performance.now();
        count = await new Promise((resolve, reject) => {
          const request = http.request(
            {
              host: url.hostname,
              port: url.port,
              path: '/cypher',
              method: 'POST',
              headers: { 'content-type': 'application/json', accept: 'application/x-ndjson' },
            },
            (response) => {
              let lines = 0;
              response.on('data', (chunk) => {
                for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
              });
              response.on('end', () => resolve(lines - 2)); // the header and summary lines
              response.on('error', reject);
            },
          );
          request.on('error', reject);
          request.end(JSON.stringify({ query: QUERY }));
        });
      } finally {
        await service.close();
      }
    }
    const seconds = (performance.now() - started) / 1000;
    if (count !== rows) throw new Error(`${name}: read ${count} rows, expected ${rows}`);
    return {
      rowsPerSecond: count / seconds,
      rssBeforeMB: rssBefore / MB,
      peakRssMB: (process.resourceUsage().maxRSS * 1024) / MB,
    };
  } finally {
    db.close();
  }
}

if (args.child) {
  process.stdout.write(`${JSON.stringify(await measure(args.child))}\n`);
} else {
  const names = ['embedded_stream', 'http_ndjson'];
  const samples = Object.fromEntries(names.map((name) => [name, []]));
  for (let trial = 0; trial < trials; trial++) {
    for (const name of names) {
      const child = spawnSync(
        process.execPath,
        [here, '--child', name, '--rows', String(rows), '--root', packageRoot],
        { encoding: 'utf8', maxBuffer: 1 << 20 },
      );
      if (child.status !== 0) throw new Error(`${name} failed: ${child.stderr}`);
      samples[name].push(JSON.parse(child.stdout.trim().split('\n').pop()));
    }
  }
  const summary = (values) => {
    const sorted = [...values].sort((a, b) => a - b);
    return {
      median: Math.round(sorted[Math.floor(sorted.length / 2)]),
      min: Math.round(sorted[0]),
      max: Math.round(sorted[sorted.length - 1]),
    };
  };
  const report = { rows, trials, query: QUERY };
  for (const name of names) {
    report[name] = {
      rows_per_s: summary(samples[name].map((s) => s.rowsPerSecond)),
      rss_before_mb: summary(samples[name].map((s) => s.rssBeforeMB)),
      peak_rss_mb: summary(samples[name].map((s) => s.peakRssMB)),
    };
  }
  if (args.json) fs.writeFileSync(args.json, `${JSON.stringify(report, null, 2)}\n`);
  process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
}
