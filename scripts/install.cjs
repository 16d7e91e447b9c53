#!/usr/bin/env node
// The package's install script (package.json "install"). An installed package that holds a
// prebuilt addon for this platform (prebuilds/, see scripts/prebuild.mjs) uses it: nothing is
// compiled, and no compiler, CMake or build tool is needed. Otherwise it builds the addon from
// source with cmake-js, after saying why:
//  - in a git checkout of QuiverDB (its own `npm install` / `npm ci`), which always builds;
//  - with `npm install --build-from-source` (npm_config_build_from_source) or
//    GRAPHDB_BUILD_FROM_SOURCE=1;
//  - on a platform the package has no prebuilt binary for, or whose binary does not load here.
// cmake-js and node-addon-api are devDependencies, so that an install that takes a prebuilt
// binary does not carry them: a build from source uses them where they resolve (a checkout),
// else fetches them (`npm install` of the versions package.json names, into a temporary folder
// removed afterwards). Every failure ends with the one command that builds the addon.
// npm >= 11 runs a dependency's install script only when the project allows it (allowScripts):
// where it does not, the prebuilt binary is used all the same, since the loader
// (src/native/addon.ts) finds it without this script.
'use strict';

const { spawn, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const root = path.resolve(__dirname, '..');

function say(text) {
  process.stderr.write(`quiverdb: ${text}\n`);
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

/** The command that builds the addon, the same in every message (src/native/addon.ts too). */
const BUILD_COMMAND = 'npm rebuild quiverdb --build-from-source --foreground-scripts';
const NEEDS = 'CMake >= 3.20 and a C++20 compiler (g++ >= 12 or clang >= 15)';
const BUILD_TOOLS = ['cmake-js', 'node-addon-api'];

/** Whether `command` runs (found on PATH). */
function runs(command) {
  const result = spawnSync(command, ['--version'], { stdio: 'ignore' });
  return !result.error && result.status === 0;
}

/** Whether cmake-js and node-addon-api resolve from `dir` (its node_modules or a parent's). */
function toolsResolveFrom(dir) {
  try {
    for (const name of BUILD_TOOLS) require.resolve(`${name}/package.json`, { paths: [dir] });
    return true;
  } catch {
    return false;
  }
}

/** npm's own script when npm runs this one (npm_execpath), else npm from PATH. */
function npmCommand() {
  const execpath = process.env.npm_execpath;
  if (execpath && /npm-cli\.js$/.test(execpath)) return [process.execPath, [execpath]];
  return [process.platform === 'win32' ? 'npm.cmd' : 'npm', []];
}

/**
 * Installs cmake-js and node-addon-api, at the versions this package's devDependencies name,
 * into a new temporary folder; returns it, or null after saying why it could not.
 */
function fetchTools() {
  const wanted = require(path.join(root, 'package.json')).devDependencies ?? {};
  const specs = BUILD_TOOLS.map((name) => `${name}@${wanted[name] ?? 'latest'}`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quiverdb-build-tools-'));
  fs.writeFileSync(path.join(dir, 'package.json'), '{"private": true}\n');
  say(`fetching the build tools (${specs.join(', ')}) from the npm registry into ${dir}.`);
  const [command, prefix] = npmCommand();
  const args = [
    ...prefix,
    'install',
    ...specs,
    '--prefix',
    dir,
    '--global=false',
    '--no-save',
    '--no-package-lock',
    '--no-audit',
    '--no-fund',
    '--prefer-offline',
    '--loglevel=error',
  ];
  // The user's npm settings (registry, proxy, cache) come through the environment as they are.
  const result = spawnSync(command, args, {
    cwd: dir,
    stdio: ['ignore', 'inherit', 'inherit'],
    shell: false,
  });
  if (result.status !== 0 || !toolsResolveFrom(dir)) {
    const why = result.error?.message ?? `npm exited with code ${result.status}`;
    say(`could not fetch cmake-js and node-addon-api (${why}).`);
    fs.rmSync(dir, { recursive: true, force: true });
    return null;
  }
  return dir;
}

/**
 * Runs cmake-js from `toolsDir`, its output passed through but for the repeats of its error
 * line (cmake-js prints "ERROR OMG ..." once where it fails and again where it gives up).
 */
function runCmakeJs(toolsDir, args) {
  const cmakeJs = require.resolve('cmake-js/bin/cmake-js', { paths: [toolsDir] });
  // CMakeLists.txt finds node-addon-api's headers with `node -p "require('node-addon-api')"`.
  const nodePath = [path.join(toolsDir, 'node_modules'), process.env.NODE_PATH].filter(Boolean);
  const env = { ...process.env, NODE_PATH: nodePath.join(path.delimiter) };
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [cmakeJs, ...args], {
      cwd: root,
      env,
      stdio: ['ignore', 'inherit', 'pipe'],
    });
    const printed = new Set();
    let pending = '';
    const forward = (line) => {
      if (/\bOMG\b/.test(line)) {
        if (printed.has(line)) return;
        printed.add(line);
      }
      process.stderr.write(`${line}\n`);
    };
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk) => {
      const lines = (pending + chunk).split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) forward(line);
    });
    child.on('error', (error) => resolve({ status: null, error }));
    child.on('close', (status) => {
      if (pending) forward(pending);
      resolve({ status });
    });
  });
}

async function build(why) {
  const checkout = fs.existsSync(path.join(root, '.git'));
  const failed = (detail) => {
    // In a checkout the tools are the developer's: what failed is in the output above.
    if (checkout) say(`building the native addon failed (${detail}).`);
    else
      say(`building the native addon failed (${detail}). Install ${NEEDS}, then run \`${BUILD_COMMAND}\`.`);
    return 1;
  };
  if (!checkout) {
    say(`${why}: building the native addon from source with cmake-js.`);
    say(`This needs ${NEEDS} and takes a few minutes.`);
  }
  // No CMake: say so before fetching anything.
  if (!runs('cmake')) return failed('CMake is not installed: `cmake --version` does not run');
  // The package's own tools where they resolve (a checkout's devDependencies), else fetched.
  const fetched = toolsResolveFrom(root) ? null : fetchTools();
  if (fetched === null && !toolsResolveFrom(root)) return failed('the build tools could not be fetched');
  const toolsDir = fetched ?? root;
  // A checkout keeps to 2 jobs (the project's shared build machines); a user's machine uses all.
  const jobs = checkout ? 2 : Math.max(1, os.availableParallelism?.() ?? os.cpus().length);
  try {
    const result = await runCmakeJs(toolsDir, [
      'compile',
      '--release',
      '--parallel',
      String(jobs),
      '--log-level',
      'error',
    ]);
    if (result.status !== 0)
      return failed(result.error?.message ?? `cmake-js exited with code ${result.status}`);
    return 0;
  } finally {
    if (fetched) fs.rmSync(fetched, { recursive: true, force: true });
  }
}

async function main() {
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

main().then((code) => {
  process.exitCode = code;
});
