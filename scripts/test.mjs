#!/usr/bin/env node
// `npm test`: the vitest suites of vitest.config.ts, which a contributor runs after every
// change (a few minutes, and none of them depends on how busy the machine is).
// `npm run test:all` (this script with --all; CI runs it): the native GoogleTest suite (skipped
// with a message when GoogleTest is absent), the same vitest suites, then the long ones of
// vitest.long.config.ts one file at a time: the conformance floor, the timing tests, the web
// console in a browser, the npm package test and Kùzu's Node.js API suite (quiverdb/kuzu).
//
//   node scripts/test.mjs [--all] [vitest file filters...]
//
// Prints each part's time; exits non-zero if any part fails.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runNativeTests } from './native-tests.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const vitestBin = path.join(root, 'node_modules', 'vitest', 'vitest.mjs');
const args = process.argv.slice(2);
const all = args.includes('--all');
const filters = args.filter((arg) => arg !== '--all');
// With file filters, a configuration may find none of its files: that is no failure.
const filterArgs = filters.length > 0 ? ['--passWithNoTests', ...filters] : [];

const parts = [];
function part(name, run) {
  const started = performance.now();
  const status = run();
  parts.push({ name, status, seconds: Math.round((performance.now() - started) / 1000) });
}
function vitest(config) {
  const result = spawnSync(process.execPath, [vitestBin, 'run', '--config', config, ...filterArgs], {
    cwd: root,
    stdio: 'inherit',
  });
  return result.status ?? 1;
}

if (all) part('native GoogleTest suite', runNativeTests);
part('vitest suites (vitest.config.ts)', () => vitest('vitest.config.ts'));
if (all) part('long suites (vitest.long.config.ts)', () => vitest('vitest.long.config.ts'));

for (const { name, status, seconds } of parts) {
  console.log(`${status === 0 ? 'passed' : `FAILED (exit ${status})`}: ${name}, ${seconds} s`);
}
if (!all)
  console.log('(`npm run test:all` adds the native, conformance, timing, browser and package suites)');
process.exitCode = parts.find((p) => p.status !== 0)?.status ?? 0;
