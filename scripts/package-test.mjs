#!/usr/bin/env node
// Tests the npm package as a user gets it: packs it (npm pack: builds the addon, puts it in
// prebuilds/, compiles the TypeScript), then installs the tarball into a fresh folder with no
// compiler, no CMake and no make on PATH, and there checks that
//  - the tarball is under 15 MB and holds the prebuilt addon for this platform, both entry
//    points with their types, and no build folder, tests or source maps;
//  - `npm install` takes under 20 s and compiles nothing (the package's install script, allowed
//    to run, picks the prebuilt binary);
//  - `require('quiverdb')` and `import('quiverdb')` run queries, and give the very same classes;
//  - `require('quiverdb/kuzu')` and `import('quiverdb/kuzu')` (Kùzu's API) run a query, with the
//    same classes, and type-check;
//  - 4 worker threads, each with its own in-memory database, run 1,000 queries each, three
//    rounds over, and the process exits 0;
//  - `graphdb --version` prints the package's version;
//  - the installed tree holds no build tool (cmake-js, node-addon-api: devDependencies);
//  - without a binary for the platform, the install script falls back to building from source
//    and loading the package fails, both naming the same build command; without CMake nothing
//    is fetched; with CMake but no compiler, the script fetches cmake-js and node-addon-api
//    into a temporary folder (removed afterwards), and cmake-js's error is printed once;
//  - strict TypeScript projects (lib es2022, no skipLibCheck) compiled as CommonJS and as ES
//    modules type-check against the package's declarations and see the typed results (when
//    the repository's typescript and @types/node are installed).
// `npm run test:all` runs it through test/package/install.test.ts; the prebuild workflow runs
// it on each platform against the tarball it made.
//
//   node scripts/package-test.mjs [--tarball FILE] [--keep]
//
// --tarball tests that file instead of packing; --keep leaves the install folder for a look.
// Exits 0 when every check passed; prints each step with its time.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values: options } = parseArgs({
  options: { tarball: { type: 'string' }, keep: { type: 'boolean', default: false } },
});

const MAX_TARBALL_BYTES = 15 * 1024 * 1024;
const MAX_INSTALL_MS = 20_000;
// What must not be on PATH while the package installs and runs.
const BUILD_TOOLS = ['cmake', 'cc', 'c++', 'gcc', 'g++', 'clang', 'clang++', 'make', 'ninja'];
// What a build from source uses and an install must not carry (devDependencies).
const BUILD_PACKAGES = ['cmake-js', 'node-addon-api'];
// The command every build failure names (scripts/install.cjs and src/native/addon.ts).
const BUILD_COMMAND = 'npm rebuild quiverdb --build-from-source --foreground-scripts';
const win32 = process.platform === 'win32';

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'graphdb-package-'));
let failures = 0;

function log(text) {
  process.stdout.write(`${text}\n`);
}

function check(name, ok, detail = '') {
  log(`${ok ? 'ok  ' : 'FAIL'} ${name}${detail ? `: ${detail}` : ''}`);
  if (!ok) failures++;
  return ok;
}

/** Runs a command; its output is returned, and printed when it fails unless `failing` is set. */
function run(command, args, { cwd, env, timeoutMs = 120_000, failing = false } = {}) {
  const started = performance.now();
  const result = spawnSync(command, args, { cwd, env, encoding: 'utf8', timeout: timeoutMs });
  const ms = Math.round(performance.now() - started);
  const output = `${result.stdout ?? ''}${result.stderr ?? ''}`;
  const ok = result.status === 0;
  if (!ok && !failing) {
    const why = result.error
      ? result.error.message
      : `exit ${result.status}${result.signal ? ` (${result.signal})` : ''}`;
    log(`--- ${[command, ...args].join(' ')} failed after ${ms} ms: ${why}\n${output.trim()}\n---`);
  }
  return { ok, ms, output };
}

/** npm's own script, so that npm can run with a PATH that holds node and npm only. */
function npmCli() {
  if (process.env.npm_execpath && /npm-cli\.js$/.test(process.env.npm_execpath))
    return process.env.npm_execpath;
  const beside = [
    path.join(path.dirname(process.execPath), '..', 'lib', 'node_modules', 'npm', 'bin', 'npm-cli.js'),
    path.join(path.dirname(process.execPath), 'node_modules', 'npm', 'bin', 'npm-cli.js'),
  ].find((file) => fs.existsSync(file));
  if (beside) return beside;
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    const file = path.join(dir, 'npm');
    if (fs.existsSync(file)) return fs.realpathSync(file);
  }
  throw new Error('npm-cli.js not found');
}

/**
 * A PATH with node, npm and sh only (symbolic links in a folder of their own), plus the `extra`
 * commands found on the current PATH, and the environment of the user's shell with it: nothing
 * of the npm process that may run this script.
 */
function toolFreeEnvironment(name = 'bin', extra = []) {
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key)));
  delete env.INIT_CWD;
  delete env.NODE_OPTIONS;
  if (win32) return env; // compilers are not on a Windows PATH unless a developer prompt put them there
  const bin = path.join(work, name);
  fs.mkdirSync(bin);
  fs.symlinkSync(process.execPath, path.join(bin, 'node'));
  fs.symlinkSync(npmCli(), path.join(bin, 'npm'));
  fs.symlinkSync('/bin/sh', path.join(bin, 'sh')); // npm runs scripts with `sh -c`
  for (const tool of extra) {
    const dir = (process.env.PATH ?? '')
      .split(path.delimiter)
      .find((d) => d && fs.existsSync(path.join(d, tool)));
    if (dir) fs.symlinkSync(path.join(dir, tool), path.join(bin, tool));
  }
  env.PATH = bin;
  return env;
}

function onPath(tool, env) {
  const exts = win32 ? ['.exe', '.cmd', '.bat', ''] : [''];
  return (env.PATH ?? '')
    .split(path.delimiter)
    .filter(Boolean)
    .some((dir) => exts.some((ext) => fs.existsSync(path.join(dir, tool + ext))));
}

function tarEntries(tarball) {
  const listed = run('tar', ['-tzf', tarball]);
  if (!listed.ok) throw new Error(`tar cannot list ${tarball}`);
  return listed.output.split(/\r?\n/).filter(Boolean);
}

function pack() {
  const out = path.join(work, 'pack');
  fs.mkdirSync(out);
  // npm's script through node: Node refuses to spawn npm.cmd on Windows without a shell.
  const packed = run(process.execPath, [npmCli(), 'pack', '--pack-destination', out], {
    cwd: root,
    timeoutMs: 600_000,
  });
  const tarballs = fs.readdirSync(out).filter((file) => file.endsWith('.tgz'));
  if (!packed.ok || tarballs.length !== 1) throw new Error('npm pack made no tarball');
  log(`ok   npm pack: ${tarballs[0]} (${packed.ms} ms)`);
  return path.join(out, tarballs[0]);
}

function prebuiltName() {
  const libc =
    process.platform === 'linux'
      ? process.report.getReport().header.glibcVersionRuntime
        ? '.glibc'
        : '.musl'
      : '';
  return `package/prebuilds/${process.platform}-${process.arch}/graphdb.napi${libc}.node`;
}

function checkTarball(tarball) {
  const bytes = fs.statSync(tarball).size;
  check('tarball under 15 MB', bytes < MAX_TARBALL_BYTES, `${(bytes / 1024 / 1024).toFixed(2)} MB`);
  const entries = tarEntries(tarball);
  const required = [
    'package/package.json',
    'package/dist/index.js',
    'package/dist/index.d.ts',
    'package/dist/index.mjs',
    'package/dist/index.d.mts',
    'package/dist/kuzu/index.js',
    'package/dist/kuzu/index.d.ts',
    'package/dist/kuzu/index.mjs',
    'package/dist/kuzu/index.d.mts',
    'package/dist/package.json',
    'package/dist/console/index.html', // the web console that `graphdb serve` serves
    'package/bin/quiverdb.js',
    'package/scripts/install.cjs',
    'package/CMakeLists.txt',
    prebuiltName(),
  ];
  const missing = required.filter((entry) => !entries.includes(entry));
  check('tarball holds the prebuilt addon and both entry points', missing.length === 0, missing.join(', '));
  const unwanted = entries.filter((entry) =>
    /^package\/(build|test|node_modules|benchmarks)\/|\.map$|_test\.cc$/.test(entry),
  );
  check(
    'tarball holds no build folder, tests or source maps',
    unwanted.length === 0,
    unwanted.slice(0, 5).join(', '),
  );
  const pkg = JSON.parse(run('tar', ['-xzOf', tarball, 'package/package.json']).output || '{}');
  return pkg.version;
}

function install(tarball, env) {
  const app = path.join(work, 'app');
  fs.mkdirSync(app);
  fs.writeFileSync(
    path.join(app, 'package.json'),
    `${JSON.stringify({ name: 'graphdb-package-check', version: '1.0.0', private: true, allowScripts: { graphdb: true } }, null, 2)}\n`,
  );
  const present = BUILD_TOOLS.filter((tool) => onPath(tool, env));
  check('no compiler, CMake or make on PATH', present.length === 0, present.join(', '));
  // The package's install script is allowed to run (allowScripts: npm >= 11 runs none
  // otherwise), so that the test sees it take the prebuilt binary: were it to compile, it would
  // fail here.
  const args = ['install', tarball, '--no-audit', '--no-fund', '--prefer-offline', '--foreground-scripts'];
  const npm = win32 ? [process.execPath, [npmCli(), ...args]] : ['npm', args];
  const installed = run(npm[0], npm[1], { cwd: app, env, timeoutMs: 300_000 });
  if (!check('npm install of the tarball', installed.ok)) return null;
  check('installation under 20 s', installed.ms < MAX_INSTALL_MS, `${installed.ms} ms`);
  check(
    'the install script took the prebuilt addon',
    installed.output.includes('using the prebuilt addon'),
    installed.output.includes('using the prebuilt addon') ? '' : installed.output.trim().slice(-500),
  );
  const pkgDir = path.join(app, 'node_modules', 'quiverdb');
  check('nothing was compiled (no build folder)', !fs.existsSync(path.join(pkgDir, 'build')));
  const modules = installedPackages(path.join(app, 'node_modules'));
  const carried = modules.filter((dir) => BUILD_PACKAGES.includes(path.basename(dir)));
  check(
    'the installed tree holds no build tool (cmake-js, node-addon-api)',
    carried.length === 0,
    carried.length > 0 ? carried.join(', ') : `${modules.length} packages`,
  );
  return app;
}

/** Every package folder under `nodeModules`, nested ones included (scopes looked into). */
function installedPackages(nodeModules) {
  if (!fs.existsSync(nodeModules)) return [];
  const found = [];
  for (const entry of fs.readdirSync(nodeModules, { withFileTypes: true })) {
    if (!entry.isDirectory() || entry.name.startsWith('.')) continue;
    const dir = path.join(nodeModules, entry.name);
    const packages = entry.name.startsWith('@')
      ? fs.readdirSync(dir).map((name) => path.join(dir, name))
      : [dir];
    for (const pkg of packages) {
      found.push(path.relative(path.dirname(nodeModules), pkg));
      for (const nested of installedPackages(path.join(pkg, 'node_modules'))) {
        found.push(path.join(path.relative(path.dirname(nodeModules), pkg), nested));
      }
    }
  }
  return found;
}

const CJS_CHECK = `
const assert = require('node:assert');
const graphdb = require('quiverdb');
const { Database, GraphDBError, QueryResult } = graphdb;
(async () => {
  const db = new Database();
  const conn = db.connect();
  await conn.query('CREATE NODE TABLE Person(name STRING, age INT64, PRIMARY KEY(name))');
  await conn.query("CREATE (:Person {name: 'Ada', age: 36}), (:Person {name: 'Alan', age: 41})");
  const result = await conn.query('MATCH (p:Person) WHERE p.age > $min RETURN p.name AS name ORDER BY name', { min: 30 });
  assert.ok(result instanceof QueryResult);
  assert.deepStrictEqual(result.toObjects(), [{ name: 'Ada' }, { name: 'Alan' }]);
  await assert.rejects(conn.query('RETURN nope'), (e) => e instanceof GraphDBError && e.code === 'QUERY_BINDING');
  const loaded = () => Object.keys(require.cache).filter((file) => /[/\\\\]node_modules[/\\\\](hono|@hono)[/\\\\]/.test(file));
  assert.deepStrictEqual(loaded(), [], 'embedding loads no HTTP layer');
  const service = new graphdb.GraphDBService(new Database());
  const status = await graphdb.createApp(service).request('/status');
  assert.strictEqual(status.status, 200, 'createApp loads the HTTP layer when first called');
  assert.ok(loaded().length > 0);
  await service.close();
  const esm = await import('quiverdb');
  assert.strictEqual(esm.Database, Database, 'import() gives the classes require() gave');
  assert.strictEqual(esm.default, graphdb);
  conn.close();
  db.close();
  console.log('require ok');
})().catch((error) => {
  console.error(error);
  process.exit(1);
});
`;

const ESM_CHECK = `
import assert from 'node:assert';
import { createRequire } from 'node:module';
import graphdb, * as namespace from 'quiverdb';
import { Database, GraphDBError } from 'quiverdb';
const required = createRequire(import.meta.url)('quiverdb');
assert.strictEqual(Database, required.Database, 'one Database class for import and require');
assert.strictEqual(GraphDBError, required.GraphDBError);
assert.strictEqual(graphdb, required);
const names = (keys) => keys.filter((k) => k !== 'default' && k !== '__esModule').sort();
assert.deepStrictEqual(names(Object.keys(namespace)), names(Object.keys(required)), 'the same exports');
const db = new Database(':memory:');
const conn = db.connect();
const result = await conn.query('UNWIND range(1, 3) AS x RETURN x, x * x AS square');
assert.deepStrictEqual(result.rows, [[1, 1], [2, 4], [3, 9]]);
assert.deepStrictEqual(result.types, ['INT64', 'INT64']);
await assert.rejects(conn.query('RETURN nope'), (e) => e instanceof required.GraphDBError);
conn.close();
db.close();
console.log('import ok');
`;

const WORKERS_CHECK = `
import assert from 'node:assert';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
const WORKERS = 4, ROUNDS = 3, QUERIES = 1000;
if (isMainThread) {
  for (let round = 1; round <= ROUNDS; round++) {
    const results = await Promise.all(Array.from({ length: WORKERS }, (_, i) => new Promise((resolve, reject) => {
      const worker = new Worker(new URL(import.meta.url), { workerData: { id: i, round } });
      let answer = null;
      worker.on('message', (message) => { answer = message; });
      worker.on('error', reject);
      worker.on('exit', (code) => (code === 0 && answer ? resolve(answer) : reject(new Error('worker ' + i + ' exited ' + code))));
    })));
    for (const r of results) assert.deepStrictEqual(r, { queries: QUERIES, sum: (QUERIES * (QUERIES + 1)) / 2 });
    console.log('round ' + round + ': ' + WORKERS + ' workers x ' + QUERIES + ' queries');
  }
  console.log('workers ok');
} else {
  const { Database } = await import('quiverdb');
  const db = new Database(':memory:', { maxThreadNum: 2 });
  const conn = db.connect();
  await conn.query('CREATE NODE TABLE Item(id INT64, PRIMARY KEY(id))');
  await conn.query('UNWIND range(1, $n) AS i CREATE (:Item {id: i})', { n: QUERIES });
  let sum = 0;
  let queries = 0;
  for (let i = 1; i <= QUERIES; i++) {
    const r = await conn.query('MATCH (t:Item {id: $id}) RETURN t.id AS id', { id: i });
    sum += r.rows[0][0];
    queries++;
  }
  // The last round leaves its database open: the worker's exit closes it.
  if (workerData.round < ROUNDS) {
    conn.close();
    db.close();
  }
  parentPort.postMessage({ queries, sum });
}
`;

const TYPES_CHECK = `
import { Database, type CypherValue, type GraphNode, type QueryResult } from 'quiverdb';

interface Person {
  name: string;
  age: number | bigint;
}

export async function check(): Promise<string[]> {
  const db = new Database();
  const conn = db.connect();
  const typed: QueryResult<Person> = await conn.query<Person>('MATCH (p:Person) RETURN p.name AS name, p.age AS age');
  const people: Person[] = typed.toObjects();
  const names: string[] = people.map((p) => p.name);
  // @ts-expect-error a Person has no email
  people[0]?.email;
  const untyped = (await conn.query('RETURN 1 AS x')).toObjects()[0];
  const cell: CypherValue | undefined = untyped?.x;
  // @ts-expect-error a cell is not known to be a number
  const n: number = cell;
  const node = (await conn.query<{ p: GraphNode }>('MATCH (p) RETURN p')).toObjects()[0];
  const label: string | undefined = node?.p._label;
  void n;
  void label;
  return names;
}
`;

// quiverdb/kuzu, Kùzu's API: required and imported, the same classes, a query with Kùzu's values.
const KUZU_CHECK = `
import assert from 'node:assert';
import { createRequire } from 'node:module';
import kuzu, { Connection, Database } from 'quiverdb/kuzu';
const required = createRequire(import.meta.url)('quiverdb/kuzu');
assert.strictEqual(Database, required.Database, 'one Database class for import and require');
assert.strictEqual(kuzu.Connection, Connection);
const db = new Database(':memory:');
const conn = new Connection(db);
const result = await conn.query("RETURN date('2020-01-02') AS d, CAST(1 AS INT128) AS h, 2 + 3 AS n");
const [row] = await result.getAll();
assert.ok(row.d instanceof Date && row.d.getTime() === Date.UTC(2020, 0, 2), 'DATE as a Date');
assert.strictEqual(row.h, 1n, 'INT128 as a BigInt');
assert.strictEqual(row.n, 5);
assert.deepStrictEqual(conn.querySync('RETURN 1 + 1').getAllSync(), [{ '+(1,1)': 2 }]);
await db.close();
console.log('kuzu ok');
`;

const KUZU_TYPES_CHECK = `
import { Connection, Database, type KuzuRow, type QueryResult } from 'quiverdb/kuzu';

export async function checkKuzu(): Promise<KuzuRow[]> {
  const conn = new Connection(new Database());
  const result = await conn.query('RETURN 1 AS x');
  const one: QueryResult = Array.isArray(result) ? (result[0] as QueryResult) : result;
  const names: string[] = one.getColumnNamesSync();
  void names;
  return one.getAll();
}
`;

function writeChecks(app) {
  fs.writeFileSync(path.join(app, 'check-require.cjs'), CJS_CHECK);
  fs.writeFileSync(path.join(app, 'check-import.mjs'), ESM_CHECK);
  fs.writeFileSync(path.join(app, 'check-workers.mjs'), WORKERS_CHECK);
  fs.writeFileSync(path.join(app, 'check-kuzu.mjs'), KUZU_CHECK);
}

function runChecks(app, env, version) {
  writeChecks(app);
  for (const [name, file, expected] of [
    ["require('quiverdb') runs a query", 'check-require.cjs', 'require ok'],
    ["import('quiverdb') runs a query, with the same classes", 'check-import.mjs', 'import ok'],
    ['4 workers x 1,000 queries, three rounds, exit 0', 'check-workers.mjs', 'workers ok'],
    ["quiverdb/kuzu (Kùzu's API) by require and import, the same classes", 'check-kuzu.mjs', 'kuzu ok'],
  ]) {
    const result = run(process.execPath, [file], { cwd: app, env, timeoutMs: 120_000 });
    check(name, result.ok && result.output.includes(expected), `${result.ms} ms`);
  }
  // The command is `quiverdb`; `graphdb` is kept as an alias of it.
  for (const command of ['quiverdb', 'graphdb']) {
    const bin = win32
      ? [process.execPath, [path.join(app, 'node_modules', 'quiverdb', 'bin', 'quiverdb.js'), '--version']]
      : [path.join(app, 'node_modules', '.bin', command), ['--version']];
    const printed = run(bin[0], bin[1], { cwd: app, env });
    check(`${command} --version`, printed.ok && printed.output.trim() === version, printed.output.trim());
  }
}

/**
 * A platform the package has no binary for: with the installed package's prebuilds/ moved
 * aside, its install script says so and tries to build from source, and loading the package
 * names the platform; both give the same build command. Without CMake the script stops before
 * fetching anything. With CMake but no compiler (on Linux, with this machine's cmake), it
 * fetches cmake-js and node-addon-api into a temporary folder, which it removes, and fails
 * with cmake-js's error printed once. The folder is put back afterwards.
 */
function checkFallback(app, env) {
  const pkgDir = path.join(app, 'node_modules', 'quiverdb');
  const prebuilds = path.join(pkgDir, 'prebuilds');
  const aside = path.join(app, 'prebuilds-aside');
  fs.renameSync(prebuilds, aside);
  try {
    const script = run(process.execPath, [path.join(pkgDir, 'scripts', 'install.cjs')], {
      cwd: pkgDir,
      env,
      failing: true,
    });
    const said =
      !script.ok &&
      script.output.includes('has no prebuilt binary for') &&
      script.output.includes('building the native addon from source') &&
      script.output.includes('CMake is not installed') &&
      script.output.includes(`Install CMake >= 3.20 and a C++20 compiler`) &&
      script.output.includes(BUILD_COMMAND) &&
      !script.output.includes('fetching');
    check(
      'without a prebuilt binary or CMake, the install script says what it needs, fetching nothing',
      said,
      said ? '' : script.ok ? 'it succeeded' : script.output.trim().slice(-600),
    );
    const load = run(process.execPath, ['-e', "require('quiverdb')"], { cwd: app, env, failing: true });
    check(
      'without a binary, loading the package names the platform and the same build command',
      !load.ok &&
        load.output.includes('QuiverDB has no native addon for') &&
        load.output.includes(BUILD_COMMAND),
    );
    checkFetchedTools(app, pkgDir);
  } finally {
    fs.rmSync(path.join(pkgDir, 'build'), { recursive: true, force: true });
    fs.renameSync(aside, prebuilds);
  }
}

/** The from-source path past the CMake check: CMake on PATH, no compiler. */
function checkFetchedTools(app, pkgDir) {
  // Linux only: there cmake-js looks for the compiler on PATH (elsewhere it may find Xcode's
  // or Visual Studio's and start a real build).
  if (process.platform !== 'linux' || !onPath('cmake', process.env)) {
    log('skip fetching the build tools: not Linux, or no cmake on this machine to lend the script');
    return;
  }
  const env = toolFreeEnvironment('bin-cmake', ['cmake']);
  const tmp = path.join(work, 'tmp');
  fs.mkdirSync(tmp);
  env.TMPDIR = tmp;
  const script = run(process.execPath, [path.join(pkgDir, 'scripts', 'install.cjs')], {
    cwd: pkgDir,
    env,
    failing: true,
    timeoutMs: 300_000,
  });
  const omg = script.output.split('\n').filter((line) => line.includes('OMG'));
  const fetchedAndRan =
    !script.ok &&
    script.output.includes('fetching the build tools (cmake-js@') &&
    !script.output.includes('could not fetch') &&
    omg.length === 1 &&
    script.output.includes(BUILD_COMMAND);
  check(
    'with CMake but no compiler, the install script fetches cmake-js and runs it; its error once',
    fetchedAndRan,
    fetchedAndRan
      ? `${script.ms} ms`
      : `${omg.length} error lines from cmake-js; ${script.output.trim().slice(-600)}`,
  );
  const left = fs.readdirSync(tmp);
  check('the fetched build tools are removed', left.length === 0, left.join(', '));
  const carried = installedPackages(path.join(app, 'node_modules')).filter((dir) =>
    BUILD_PACKAGES.includes(path.basename(dir)),
  );
  check('the project still holds no build tool', carried.length === 0, carried.join(', '));
}

/** Type-checks a CommonJS and an ES module consumer with the repository's TypeScript. */
function checkTypes(app, env) {
  let tsc;
  try {
    tsc = fs.realpathSync(path.join(root, 'node_modules', 'typescript', 'bin', 'tsc'));
  } catch {
    log('skip types: the repository has no node_modules/typescript');
    return;
  }
  const typeRoots = path.join(root, 'node_modules', '@types');
  if (!fs.existsSync(path.join(typeRoots, 'node'))) {
    log('skip types: the repository has no @types/node');
    return;
  }
  fs.writeFileSync(path.join(app, 'types-require.cts'), TYPES_CHECK);
  fs.writeFileSync(path.join(app, 'types-import.mts'), TYPES_CHECK);
  fs.writeFileSync(path.join(app, 'types-kuzu-require.cts'), KUZU_TYPES_CHECK);
  fs.writeFileSync(path.join(app, 'types-kuzu-import.mts'), KUZU_TYPES_CHECK);
  const tsconfig = {
    compilerOptions: {
      module: 'nodenext',
      moduleResolution: 'nodenext',
      target: 'es2022',
      // A strict project without the DOM library, and every declaration file checked (no
      // skipLibCheck): the package's types must stand alone, with those of the dependencies
      // they name.
      lib: ['es2022'],
      strict: true,
      noEmit: true,
      skipLibCheck: false,
      types: ['node'],
      typeRoots: [typeRoots],
    },
    files: ['types-require.cts', 'types-import.mts', 'types-kuzu-require.cts', 'types-kuzu-import.mts'],
  };
  fs.writeFileSync(path.join(app, 'tsconfig.json'), JSON.stringify(tsconfig, null, 2));
  const result = run(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: app, env });
  check(
    'a strict project (lib es2022, no skipLibCheck) type-checks as CommonJS and as ES module',
    result.ok,
    `${result.ms} ms`,
  );
}

try {
  const started = performance.now();
  const tarball = options.tarball ? path.resolve(options.tarball) : pack();
  const version = checkTarball(tarball);
  const env = toolFreeEnvironment();
  const app = install(tarball, env);
  if (app) {
    runChecks(app, env, version);
    checkTypes(app, env);
    checkFallback(app, env);
  }
  log(
    `${failures === 0 ? 'package test passed' : `package test FAILED (${failures} checks)`} in ${Math.round(performance.now() - started)} ms`,
  );
} catch (error) {
  failures++;
  log(`FAIL ${error instanceof Error ? error.message : String(error)}`);
} finally {
  if (options.keep) log(`kept ${work}`);
  else fs.rmSync(work, { recursive: true, force: true });
}
process.exitCode = failures === 0 ? 0 : 1;
