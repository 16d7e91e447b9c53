#!/usr/bin/env node
// `npm test`: the native GoogleTest suite (skipped with a message when GoogleTest is absent),
// then the vitest suites. Exits non-zero if either fails.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runNativeTests } from './native-tests.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const nativeStatus = runNativeTests();
const vitest = spawnSync(
  process.execPath,
  [path.join(root, 'node_modules', 'vitest', 'vitest.mjs'), 'run', ...process.argv.slice(2)],
  { cwd: root, stdio: 'inherit' },
);
const jsStatus = vitest.status ?? 1;
if (nativeStatus !== 0) console.error(`native tests failed (exit ${nativeStatus})`);
process.exitCode = nativeStatus || jsStatus;
