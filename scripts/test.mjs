#!/usr/bin/env node
// `npm test`: the native GoogleTest suite (skipped with a message when GoogleTest is absent),
// then the vitest suites: test/** but test/timing and test/browser, then those two alone.
// Exits non-zero if any fails.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runNativeTests } from './native-tests.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const nativeStatus = runNativeTests();
const vitestBin = path.join(root, 'node_modules', 'vitest', 'vitest.mjs');
const filters = process.argv.slice(2);
// With file filters, a pass may find none of its files: that is no failure.
const passArgs = filters.length > 0 ? ['--passWithNoTests', ...filters] : [];
const vitest = spawnSync(process.execPath, [vitestBin, 'run', ...passArgs], { cwd: root, stdio: 'inherit' });
// The timing tests (event-loop lag, cancellation latency) and the web console's browser tests
// (page-load budget) after the rest, one file at a time.
const timing = spawnSync(
  process.execPath,
  [vitestBin, 'run', '--config', 'vitest.timing.config.ts', ...passArgs],
  { cwd: root, stdio: 'inherit' },
);
const jsStatus = (vitest.status ?? 1) || (timing.status ?? 1);
if (nativeStatus !== 0) console.error(`native tests failed (exit ${nativeStatus})`);
process.exitCode = nativeStatus || jsStatus;
