#!/usr/bin/env node
// Builds and runs the native GoogleTest suite in the addon's build folder (build/), when
// GoogleTest is installed (Debian: libgtest-dev). Without it, says so and exits 0.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const buildDir = path.join(root, 'build');

function run(cmd, args, options = {}) {
  const result = spawnSync(cmd, args, { cwd: root, stdio: 'inherit', ...options });
  return result.status ?? 1;
}

function gtestInstalled() {
  return (
    existsSync('/usr/include/gtest/gtest.h') ||
    existsSync('/usr/local/include/gtest/gtest.h') ||
    process.env.GTEST_ROOT !== undefined
  );
}

export function runNativeTests() {
  if (!gtestInstalled()) {
    console.log('native tests: SKIPPED (GoogleTest not found; install libgtest-dev to run them)');
    return 0;
  }
  if (!existsSync(path.join(buildDir, 'CMakeCache.txt'))) {
    console.log(
      'native tests: SKIPPED (no build/ folder; run `npm install` or `npm run build:native` first)',
    );
    return 0;
  }
  // Re-run configure so a GoogleTest installed after the addon build is picked up.
  let status = run('cmake', ['-S', root, '-B', buildDir], { stdio: ['ignore', 'ignore', 'inherit'] });
  if (status !== 0) return status;
  status = run('cmake', ['--build', buildDir, '--target', 'graphdb_native_tests', '--parallel', '2']);
  if (status !== 0) return status;
  const binary = path.join(buildDir, 'graphdb_native_tests');
  const filter = process.env.GTEST_FILTER ? [`--gtest_filter=${process.env.GTEST_FILTER}`] : [];
  return run(binary, ['--gtest_brief=1', ...filter]);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  process.exitCode = runNativeTests();
}
