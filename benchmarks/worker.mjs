#!/usr/bin/env node
// One trial of one workload on one system, in a fresh process:
//   node benchmarks/worker.mjs --system graphdb|kuzu --workload NAME --db PATH
//     [--cache DIR] [--scale F] [--quick] [--trial N] [--parallelism N] [--out FILE]
//     [--dataset social|ldbc]  (for `prepare`, the template load; workloads know theirs)
//     [--graphdb PACKAGE_DIR]  (where dist/ and build/ are; default: this package)
//     [--url URL]              (an `http_*` workload: the server to load; PATH is not opened)
// The database at PATH is opened as it is (the runner copies a loaded template there, or
// leaves it absent for `copy` and `prepare`). With --url the worker is the load generator of
// the server (benchmarks/server.mjs) that the runner started on PATH. Prints one JSON line:
// { metrics, details } or { error }.

import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { ensureLdbc } from './lib/ldbc.mjs';
import { ensureSocialCsv } from './lib/social.mjs';
import { openBoltClient, openHttpClient, openSystem } from './lib/systems.mjs';
import { defaultParallelism, TASKS, WORKLOADS, workloadTiming } from './lib/workloads.mjs';

const { values: args } = parseArgs({
  options: {
    system: { type: 'string' },
    workload: { type: 'string' },
    db: { type: 'string' },
    dataset: { type: 'string' },
    cache: { type: 'string', default: path.join(os.tmpdir(), 'graphdb-bench-cache') },
    scale: { type: 'string', default: '1' },
    quick: { type: 'boolean', default: false },
    trial: { type: 'string', default: '0' },
    parallelism: { type: 'string' },
    out: { type: 'string' },
    graphdb: { type: 'string' },
    url: { type: 'string' },
  },
});

async function main() {
  const workload = WORKLOADS[args.workload];
  const task = TASKS[args.workload];
  if (!workload && !task) throw new Error(`unknown workload '${args.workload}'`);
  if (!args.db) throw new Error('--db is required');
  const dataset = args.dataset ?? workload?.data ?? 'ldbc';
  const data = dataset === 'ldbc' ? ensureLdbc(args.cache) : ensureSocialCsv(args.cache, Number(args.scale));
  const parallelism = args.parallelism ? Number(args.parallelism) : defaultParallelism();
  if (workload?.http && !args.url) throw new Error(`${args.workload} needs --url (the server to load)`);
  const system = args.url
    ? args.url.startsWith('bolt://')
      ? await openBoltClient(args.url)
      : openHttpClient(args.url)
    : await openSystem(args.system, args.db, {
        threads: parallelism,
        graphdbRoot: args.graphdb,
        ...(workload?.graphdbOptions ?? {}),
      });
  const ctx = {
    system,
    data,
    dataset,
    quick: args.quick,
    trial: Number(args.trial),
    parallelism,
    out: args.out,
    timing: workloadTiming(args.workload, args.quick),
  };
  const result = await (workload ? workload.run(ctx) : task(ctx));
  await system.close();
  return result;
}

try {
  const result = await main();
  process.stdout.write(`${JSON.stringify(result)}\n`);
} catch (error) {
  const payload = { error: { code: error.code ?? 'ERROR', message: error.message } };
  process.stdout.write(`${JSON.stringify(payload)}\n`);
  process.exitCode = 1;
}
