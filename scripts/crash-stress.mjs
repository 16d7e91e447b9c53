#!/usr/bin/env node
// Crash stress (opt-in, local): many cycles of "write from several connections, SIGKILL at a
// random moment, reopen, check" with the harness of test/transactions/crash.test.ts. Prints a
// summary and exits non-zero if any cycle lost an acknowledged commit, half-applied or revived a
// transaction, or left a database that does not open or take writes.
//
//   npm run stress:crash -- [--cycles 200] [--connections 4] [--min-ms 100] [--max-ms 600]
//                           [--cycles-per-db 20] [--rollback-every K] [--checkpoint-each]
//                           [--checkpoint-bytes B] [--keep] [--verbose]
//
// --checkpoint-bytes B sets the writer's checkpointThresholdBytes: with a small B (2048) the
// database checkpoints by itself beside the writers all the time, so kills land inside those
// checkpoints, at every step.
// --checkpoint-each is the control variant: the writer runs CHECKPOINT after each commit before
// acknowledging it, so acknowledged commits must survive even without a write-ahead log.
// --keep keeps the folder of a database on which a cycle failed. Each database serves
// --cycles-per-db cycles (it grows by every commit), then a fresh one is created; so does a
// database that failed to reopen.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { initCrashDatabase, runCrashCycle } from '../test/transactions/fixtures/crash-harness.mjs';

const { values: options } = parseArgs({
  options: {
    cycles: { type: 'string', default: '200' },
    connections: { type: 'string', default: '4' },
    'min-ms': { type: 'string', default: '100' },
    'max-ms': { type: 'string', default: '600' },
    'cycles-per-db': { type: 'string', default: '20' },
    'rollback-every': { type: 'string', default: '0' },
    'checkpoint-each': { type: 'boolean', default: false },
    'checkpoint-bytes': { type: 'string' },
    keep: { type: 'boolean', default: false },
    verbose: { type: 'boolean', default: false },
  },
});

function positiveInt(name, min = 1) {
  const value = Number(options[name]);
  if (!Number.isInteger(value) || value < min) {
    console.error(`crash-stress: --${name} must be an integer >= ${min}, got ${options[name]}`);
    process.exit(2);
  }
  return value;
}

const cycles = positiveInt('cycles');
const connections = positiveInt('connections');
const minMs = positiveInt('min-ms', 0);
const maxMs = positiveInt('max-ms', minMs);
const cyclesPerDb = positiveInt('cycles-per-db');
const rollbackEvery = positiveInt('rollback-every', 0);

const started = Date.now();
const totals = { cycles: 0, failedCycles: 0, acked: 0, rolledBack: 0, byKind: {} };
const failures = [];
const kept = [];
let dir = null;
let dirFailed = false;

function finishDatabase() {
  if (!dir) return;
  if (dirFailed && options.keep) kept.push(dir);
  else fs.rmSync(dir, { recursive: true, force: true });
  dir = null;
}

process.on('SIGINT', () => {
  finishDatabase();
  process.exit(130);
});

console.log(
  `crash-stress: ${cycles} cycles, ${connections} connections, kill after ${minMs}-${maxMs} ms` +
    `${options['checkpoint-each'] ? ', CHECKPOINT before each acknowledgement (control)' : ''}` +
    `${rollbackEvery ? `, 1 in ${rollbackEvery} explicit transactions rolled back` : ''}`,
);

let cycleOnDb = 0;
for (let cycle = 0; cycle < cycles; cycle++) {
  if (!dir || cycleOnDb === cyclesPerDb) {
    finishDatabase();
    cycleOnDb = 0;
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'graphdb-crash-stress-'));
    dirFailed = false;
    await initCrashDatabase(path.join(dir, 'db'), connections);
  }
  const killAfterMs = minMs + Math.floor(Math.random() * (maxMs - minMs + 1));
  const result = await runCrashCycle({
    dbPath: path.join(dir, 'db'),
    cycle: cycleOnDb++,
    connections,
    killAfterMs,
    checkpointEach: options['checkpoint-each'],
    rollbackEvery,
    checkpointBytes:
      options['checkpoint-bytes'] === undefined ? undefined : Number(options['checkpoint-bytes']),
  });
  totals.cycles++;
  totals.acked += result.acked.length;
  totals.rolledBack += result.rolledBack.length;
  if (result.problems.length > 0) {
    totals.failedCycles++;
    dirFailed = true;
    for (const p of result.problems) {
      totals.byKind[p.kind] = (totals.byKind[p.kind] ?? 0) + 1;
      failures.push(`cycle ${cycle} (killed ${killAfterMs} ms in) [${p.kind}] ${p.message}`);
    }
    // A database that no longer opens is of no use to the next cycles.
    if (result.problems.some((p) => p.kind === 'reopen')) finishDatabase();
  }
  if (options.verbose) {
    console.log(
      `cycle ${cycle}: killed ${killAfterMs} ms in, ${result.acked.length} acked, ` +
        `${result.rolledBack.length} rolled back, ${result.problems.length} problems`,
    );
  }
}
finishDatabase();

for (const line of failures.slice(0, 20)) console.log(line);
if (failures.length > 20) console.log(`... and ${failures.length - 20} more problems`);
console.log(
  `\ncycles: ${totals.cycles}, acknowledged commits checked: ${totals.acked}, ` +
    `rolled-back transactions checked: ${totals.rolledBack}, failed cycles: ${totals.failedCycles}` +
    `${Object.keys(totals.byKind).length ? ` (${JSON.stringify(totals.byKind)})` : ''}, ` +
    `${((Date.now() - started) / 1000).toFixed(1)} s`,
);
if (kept.length > 0) console.log(`kept for inspection: ${kept.join(', ')}`);
process.exitCode = totals.failedCycles > 0 ? 1 : 0;
