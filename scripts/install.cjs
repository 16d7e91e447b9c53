#!/usr/bin/env node
// The package's install script (package.json "install"). An installed package that holds a
// prebuilt addon for this platform (prebuilds/, see scripts/prebuild.mjs) uses it: nothing is
// compiled, and no compiler or CMake is needed. Otherwise it builds the addon from source with
// cmake-js, after saying why:
//  - in a git checkout of GraphDB (its own `npm install` / `npm ci`), which always builds;
//  - with `npm install --build-from-source` (npm_config_build_from_source) or
//    GRAPHDB_BUILD_FROM_SOURCE=1;
//  - on a platform the package has no prebuilt binary for, or whose binary does not load here.
// npm >= 11 runs a dependency's install script only when the project allows it (allowScripts):
// where it does not, the prebuilt binary is used all the same, since the loader
// (src/native/addon.ts) finds it without this script.
'use strict';

const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const root = path.resolve(__dirname, '..');

function say(text) {
  process.stderr.write(`graphdb: ${text}\n`);
}

/** This platform as prebuilt binaries are named: linux-x64 (glibc), darwin-arm64, ... */
function platformTag() {
  const tuple = `${process.platform}-${process.arch}`;
  if (process.platform !== 'linux') return tuple;
  const report = process.report?.getReport?.();
  return `${tuple} (${report?.header?.glibcVersionRuntime ? 'glibc' : 'musl'})`;
}

/** Why the addon must be built from source whatever prebuilt binaries there are, or null. */
function mustBuild() {
  if (fs.existsSync(path.join(root, '.git'))) return 'a git checkout builds its addon from source';
  if (process.env.npm_config_build_from_source === 'true') return '--build-from-source was given';
  if (process.env.GRAPHDB_BUILD_FROM_SOURCE === '1') return 'GRAPHDB_BUILD_FROM_SOURCE=1 is set';
  return null;
}

/**
 * The prebuilt binary that node-gyp-build (the loader) picks for this platform, once it has
 * loaded here; else a sentence saying why there is none.
 */
function usablePrebuilt() {
  process.env.PREBUILDS_ONLY = '1'; // read when node-gyp-build loads: skip build/
  let file;
  try {
    file = require('node-gyp-build').path(root);
  } catch {
    return { problem: `the package has no prebuilt binary for ${platformTag()}` };
  }
  try {
    require(file);
  } catch (error) {
    const reason = error instanceof Error ? error.message.split('\n')[0] : String(error);
    return { problem: `its prebuilt binary ${path.relative(root, file)} does not load here (${reason})` };
  }
  return { file };
}

function build(why) {
  let cmakeJs;
  try {
    cmakeJs = require.resolve('cmake-js/bin/cmake-js');
  } catch {
    say(`${why}, and cmake-js (a dependency of graphdb) is not installed: reinstall graphdb.`);
    return 1;
  }
  const checkout = fs.existsSync(path.join(root, '.git'));
  // A checkout keeps to 2 jobs (the project's shared build machines); a user's machine uses all.
  const jobs = checkout ? 2 : Math.max(1, os.availableParallelism?.() ?? os.cpus().length);
  const args = [cmakeJs, 'compile', '--release', '--parallel', String(jobs), '--log-level', 'error'];
  if (!checkout) {
    say(`${why}: building the native addon from source with cmake-js.`);
    say('This needs CMake >= 3.20 and a C++20 compiler (g++ >= 12 or clang >= 15) and takes a few minutes.');
  }
  const result = spawnSync(process.execPath, args, { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) {
    const failure = `building the native addon failed (${result.error?.message ?? `exit code ${result.status}`})`;
    // In a checkout the tools are the developer's: what failed is in the compiler's output above.
    if (checkout) say(`${failure}.`);
    else say(`${failure}. Install CMake >= 3.20 and a C++20 compiler, then run \`npm rebuild graphdb\`.`);
    return result.status || 1;
  }
  return 0;
}

function main() {
  const forced = mustBuild();
  if (forced) return build(forced);
  const prebuilt = usablePrebuilt();
  if (prebuilt.file) {
    say(
      `using the prebuilt addon ${path.relative(root, prebuilt.file)} (${platformTag()}); nothing to compile.`,
    );
    return 0;
  }
  return build(prebuilt.problem);
}

process.exitCode = main();
