#!/usr/bin/env node
// A/B of two GraphDB builds on the embedded workloads of `npm run bench`: this checkout's
// build (B) against another package folder's (A, e.g. a worktree of an older commit, built):
//
//   node benchmarks/ab.mjs --baseline DIR [--only a,b] [--trials N] [--scale F] [--quick]
//                          [--json FILE] [--cache DIR]
//
// --baseline  the package measured as A: a folder with dist/ and build/Release|Debug/graphdb.node
// --only      workloads (default: the point, hop, write and mixed workloads, serial and parallel,
//             and ldbc_short); the HTTP and Bolt workloads are not run here
// --trials    trials per workload and build (default 5; 3 with --quick)
// Each build loads its own template databases (a format may differ between builds); every trial
// runs the harness's worker.mjs in a fresh process on a fresh copy, the two builds alternate which
// goes first, and the report gives each metric's medians and B's change against A, signed so that
// a positive change is better. The harness (worker.mjs, lib/) is this checkout's for both.

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { ensureLdbc } from './lib/ldbc.mjs';
import { builtAddon, outcome, snapshotPackage, syncTree, workerArgv } from './lib/processes.mjs';
import { ensureSocialCsv } from './lib/social.mjs';
import { median, round } from './lib/timing.mjs';
import { defaultParallelism, WORKLOADS } from './lib/workloads.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..');
const WORKER = path.join(here, 'worker.mjs');
const TRIAL_TIMEOUT_MS = 10 * 60 * 1000;
const DEFAULT_WORKLOADS = [
  'point_read',
  'one_hop',
  'two_hop_count',
  'insert_node',
  'insert_edge',
  'update_prop',
  'mixed',
  'point_read_par',
  'one_hop_par',
  'two_hop_count_par',
  'mixed_par',
  'ldbc_short',
];

const { values: args } = parseArgs({
  options: {
    baseline: { type: 'string' },
    only: { type: 'string' },
    trials: { type: 'string' },
    scale: { type: 'string' },
    quick: { type: 'boolean', default: false },
    json: { type: 'string' },
    cache: { type: 'string', default: path.join(os.tmpdir(), 'graphdb-bench-cache') },
    help: { type: 'boolean', default: false },
  },
});

function usage(message) {
  if (message) process.stderr.write(`ab.mjs: ${message}\n`);
  process.stderr.write(
    'usage: node benchmarks/ab.mjs --baseline DIR [--only a,b] [--trials N] [--scale F] [--quick] [--json FILE]\n',
  );
  process.exit(2);
}

if (args.help) usage();
if (!args.baseline) usage('--baseline DIR is required (a package folder with dist/ and a built addon)');
const quick = args.quick;
const trials = Number(args.trials ?? (quick ? 3 : 5));
const scale = Number(args.scale ?? (quick ? 0.05 : 1));
if (!Number.isInteger(trials) || trials < 3)
  usage(`--trials must be an integer of at least 3, not '${args.trials}'`);
if (!(scale > 0)) usage(`--scale must be a positive number, not '${args.scale}'`);
const names = args.only ? args.only.split(',').filter(Boolean) : DEFAULT_WORKLOADS;
for (const name of names) {
  const w = WORKLOADS[name];
  if (!w) usage(`unknown workload '${name}' (workloads: ${Object.keys(WORKLOADS).join(', ')})`);
  if (w.http) usage(`${name} runs over a server; ab.mjs runs the embedded workloads only`);
}

const builds = { A: path.resolve(args.baseline), B: root };
const addons = {};
for (const [label, dir] of Object.entries(builds)) {
  addons[label] = builtAddon(dir);
  if (!fs.existsSync(path.join(dir, 'dist', 'index.js')) || !addons[label]) {
    usage(`${dir} has no build (dist/ and build/*/graphdb.node): run \`npm run build\` there`);
  }
}

const log = (line) => process.stderr.write(`${line}\n`);
const parallelism = defaultParallelism();

function runWorker(pkg, workload, db, extra = []) {
  const argv = [
    WORKER,
    ...workerArgv({
      system: 'graphdb',
      workload,
      db,
      cache: args.cache,
      scale,
      parallelism,
      quick,
      graphdb: pkg,
      extra,
    }),
  ];
  const child = spawn(process.execPath, argv, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  return outcome(child, { timeoutMs: TRIAL_TIMEOUT_MS });
}

async function main() {
  const runDir = fs.mkdtempSync(path.join(os.tmpdir(), 'graphdb-ab-'));
  try {
    const packages = {};
    for (const label of Object.keys(builds)) {
      packages[label] = snapshotPackage(builds[label], addons[label], path.join(runDir, `pkg-${label}`)).dir;
    }
    ensureSocialCsv(args.cache, scale);
    ensureLdbc(args.cache);
    const datasets = new Set(names.filter((n) => !WORKLOADS[n].fresh).map((n) => WORKLOADS[n].data));
    const templates = {};
    for (const data of datasets) {
      for (const label of Object.keys(builds)) {
        const dir = path.join(runDir, `template-${data}-${label}`);
        fs.mkdirSync(dir);
        const result = await runWorker(packages[label], 'prepare', path.join(dir, 'db'), ['--dataset', data]);
        if (result.error)
          throw new Error(`loading ${data} with build ${label} failed: ${result.error.message}`);
        templates[`${data}/${label}`] = dir;
      }
    }
    log(`A = ${builds.A}, B = ${builds.B}; ${trials} trials, scale ${scale}`);
    const report = { baseline: builds.A, candidate: builds.B, trials, scale, workloads: {} };
    for (const name of names) {
      const workload = WORKLOADS[name];
      const samples = { A: [], B: [] };
      for (let trial = 1; trial <= trials; trial++) {
        const order = trial % 2 === 1 ? ['A', 'B'] : ['B', 'A'];
        for (const label of order) {
          const trialDir = path.join(runDir, 'trial');
          fs.rmSync(trialDir, { recursive: true, force: true });
          if (workload.fresh) {
            fs.mkdirSync(trialDir);
          } else {
            fs.cpSync(templates[`${workload.data}/${label}`], trialDir, { recursive: true });
            syncTree(trialDir);
          }
          const result = await runWorker(packages[label], name, path.join(trialDir, 'db'), [
            '--trial',
            String(trial),
          ]);
          if (result.error)
            throw new Error(`${name} on build ${label}, trial ${trial}: ${result.error.message}`);
          samples[label].push(result.metrics);
        }
      }
      for (const [metric, spec] of Object.entries(workload.metrics)) {
        const a = median(samples.A.map((m) => m[metric]).filter((v) => v !== undefined));
        const b = median(samples.B.map((m) => m[metric]).filter((v) => v !== undefined));
        const better = spec.better === 'higher' ? b / a : a / b;
        const entry = {
          unit: spec.unit,
          better: spec.better,
          A: round(a, 2),
          B: round(b, 2),
          change: round((better - 1) * 100, 1),
        };
        report.workloads[metric] = entry;
        log(
          `${metric}: A ${entry.A} ${spec.unit}, B ${entry.B} ${spec.unit}, B ${entry.change >= 0 ? '+' : ''}${entry.change}%`,
        );
      }
    }
    process.stdout.write(
      '\n| metric | unit | A (baseline) | B (this build) | B against A |\n|---|---|---:|---:|---:|\n',
    );
    for (const [metric, e] of Object.entries(report.workloads)) {
      process.stdout.write(
        `| ${metric} | ${e.unit} | ${e.A} | ${e.B} | ${e.change >= 0 ? '+' : ''}${e.change}% |\n`,
      );
    }
    if (args.json) fs.writeFileSync(args.json, `${JSON.stringify(report, null, 2)}\n`);
  } finally {
    fs.rmSync(runDir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  process.stderr.write(`ab.mjs: ${error.message}\n`);
  process.exit(1);
});
