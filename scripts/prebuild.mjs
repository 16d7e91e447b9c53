#!/usr/bin/env node
// Puts a built addon where the package's loader (node-gyp-build, see src/native/addon.ts) finds
// it as a prebuilt binary: prebuilds/<platform>-<arch>/graphdb.napi[.<libc>].node, named as
// prebuildify names them (the `napi` tag: Node-API is ABI-stable, so one file serves every
// Node >= 20 and Electron; glibc and musl Linux binaries side by side). `npm pack` runs it
// (prepack) after building, so the tarball carries this machine's binary; the prebuild workflow
// (.github/workflows/prebuild.yml) runs it on each platform and gathers the files.
//
//   node scripts/prebuild.mjs [--from FILE] [--platform P] [--arch A] [--libc glibc|musl] [--no-strip]
//
// --from defaults to build/Release/graphdb.node; the target defaults to this machine. On
// Linux and macOS the copy is stripped of symbols (when `strip` is on PATH), which makes it
// about a sixth smaller. A binary made for this machine is loaded once to check it.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

function fail(message) {
  process.stderr.write(`prebuild: ${message}\n`);
  process.exit(1);
}

let options;
try {
  ({ values: options } = parseArgs({
    options: {
      from: { type: 'string', default: path.join('build', 'Release', 'graphdb.node') },
      platform: { type: 'string', default: process.platform },
      arch: { type: 'string', default: process.arch },
      libc: { type: 'string' },
      'no-strip': { type: 'boolean', default: false },
    },
  }));
} catch (error) {
  fail(error.message);
}

const source = path.resolve(root, options.from);
if (!fs.existsSync(source)) {
  fail(`${path.relative(root, source)} does not exist: build the addon first (npm run build:native)`);
}
const native = options.platform === process.platform && options.arch === process.arch;
const hostLibc = process.report.getReport().header.glibcVersionRuntime ? 'glibc' : 'musl';
const libc = options.libc ?? (options.platform === 'linux' && native ? hostLibc : undefined);
if (options.platform === 'linux' && libc !== 'glibc' && libc !== 'musl') {
  fail(`a Linux binary needs --libc glibc or --libc musl (got ${libc ?? 'none'})`);
}
if (options.platform !== 'linux' && libc !== undefined) fail('--libc is for Linux binaries only');

const name = ['graphdb', 'napi', ...(libc ? [libc] : []), 'node'].join('.');
const dir = path.join(root, 'prebuilds', `${options.platform}-${options.arch}`);
const target = path.join(dir, name);
fs.mkdirSync(dir, { recursive: true });
fs.copyFileSync(source, target);

if (!options['no-strip'] && (options.platform === 'linux' || options.platform === 'darwin') && native) {
  // -x keeps the global symbols macOS needs; --strip-unneeded drops only what nothing links to.
  const args = options.platform === 'darwin' ? ['-x', target] : ['--strip-unneeded', target];
  const strip = spawnSync('strip', args, { stdio: 'inherit' });
  if (strip.error)
    process.stderr.write(`prebuild: strip is not available (${strip.error.code}); left unstripped\n`);
  else if (strip.status !== 0) fail(`strip ${args.join(' ')} failed`);
}

if (native && (options.platform !== 'linux' || libc === hostLibc)) {
  try {
    createRequire(import.meta.url)(target);
  } catch (error) {
    fs.rmSync(target);
    fail(`${path.relative(root, target)} does not load: ${error.message}`);
  }
}
const size = (fs.statSync(target).size / 1024 / 1024).toFixed(1);
process.stdout.write(`prebuild: ${path.relative(root, target)} (${size} MiB)\n`);
