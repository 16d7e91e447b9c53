#!/usr/bin/env node
// Kùzu conformance runner: runs the `.test` files of Kùzu's own test suite against GraphDB and
// reports how many statements pass, per folder. See docs/conformance.md.
//
//   npm run conformance [-- --suite DIR] [--json FILE] [--filter SUBSTR] [--verbose]
//
// The parent process parses every file (so it knows each file's statements), then runs each file
// in a child process (`--worker FILE`): a crash or a hang loses that file's remaining statements,
// not the run. A worker appends one JSON line per executed statement to a results file that the
// parent reads once the worker has exited.
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const scriptPath = fileURLToPath(import.meta.url);
const packageRoot = path.resolve(path.dirname(scriptPath), '..');

const { values: options } = parseArgs({
  options: {
    suite: { type: 'string', default: path.resolve(packageRoot, '..', 'shared', 'conformance', 'kuzu') },
    json: { type: 'string' },
    filter: { type: 'string' },
    tests: { type: 'string', default: 'test_files' },
    verbose: { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h', default: false },
    jobs: { type: 'string', default: String(Math.min(2, os.availableParallelism())) },
    timeout: { type: 'string', default: '10' },
    'file-timeout': { type: 'string', default: '300' },
    // Internal: the parent starts workers with these.
    worker: { type: 'string' },
    out: { type: 'string' },
    probe: { type: 'boolean', default: false },
  },
});

if (options.help) {
  process.stdout.write(`Runs Kùzu's .test files against GraphDB and reports the statements passed, per folder.

  npm run conformance -- [options]

  --suite DIR           the suite's folder (default ../shared/conformance/kuzu)
  --filter SUBSTR       only the files whose path holds SUBSTR (a folder name, say)
  --tests DIR           the test files' folder in the suite (default test_files; Kùzu's
                        extension suites: extension/algo, extension/fts, extension/json,
                        extension/vector)
  --json FILE           also write the per-statement results as JSON
  --verbose             print every failing statement with its error
  --jobs N              files run at once (default min(2, cores))
  --timeout S           time limit of one statement in seconds (default 10)
  --file-timeout S      time limit of one file in seconds (default 300)
  -h, --help            this text
`);
  process.exit(0);
}

const suiteDir = path.resolve(options.suite);
const statementTimeoutMs = Number(options.timeout) * 1000;
const fileTimeoutMs = Number(options['file-timeout']) * 1000;

// ---------------------------------------------------------------------------------------------
// Parsing `.test` files
// ---------------------------------------------------------------------------------------------

/** Directives that change nothing for this runner (build- or configuration-specific in Kùzu). */
const IGNORED_DIRECTIVES = new Set([
  'BUFFER_POOL_SIZE', // in the header it sets the statement memory limit (parseTestFile)
  'CHECKPOINT_WAIT_TIMEOUT',
  'INSERT_DATASET_BY_ROW',
  'LOG',
  // Kùzu 0.11.3 ships its extensions built in; so does this engine (for those it has).
  'LOAD_DYNAMIC_EXTENSION',
  'PARALLELISM',
  'SKIP_FSM_LEAK_CHECK',
  'SKIP_NODE_GROUP_SIZE_TESTS',
  'SKIP_PAGE_SIZE_TESTS',
  'SKIP_VECTOR_CAPACITY_TESTS',
  'SKIP_WASM',
  'TEST_FWD_ONLY_REL',
]);

/** Directives that qualify the statement next to them, before or after its `-STATEMENT`. */
const STATEMENT_OPTIONS = new Set([
  'LOG',
  'CHECK_ORDER',
  'CHECK_COLUMN_NAMES',
  'CHECK_PRECISION',
  'PARALLELISM',
]);

const isDirective = (text) => /^-[A-Z-]/.test(text);
const endsText = (text) => text.trim() === '' || text.startsWith('#') || isDirective(text);

/** Replaces `-INSERT_STATEMENT_BLOCK name` lines by the lines of the block defined earlier. */
function expandStatementBlocks(lines) {
  const blocks = new Map();
  const expanded = [];
  for (let i = 0; i < lines.length; i++) {
    const define = /^-DEFINE_STATEMENT_BLOCK\s+(\S+)\s*\[\s*$/.exec(lines[i].text);
    if (define) {
      const body = [];
      while (++i < lines.length && lines[i].text.trim() !== ']') body.push(lines[i]);
      blocks.set(define[1], body);
      continue;
    }
    const insert = /^-INSERT_STATEMENT_BLOCK\s+(\S+)/.exec(lines[i].text);
    if (insert && blocks.has(insert[1])) expanded.push(...blocks.get(insert[1]));
    else expanded.push(lines[i]);
  }
  return expanded;
}

/**
 * Parses a `.test` file into `{ dataset, cases, units, excludedUnits }`. A case is `{ name, line,
 * skip, onDisk, steps }`; steps are `statement`, `setup` (a statement without a result), `set`,
 * `reload`, `connect` and `concurrent` groups; loops are unrolled. Every statement step has a
 * `unit`: its index in `units`, the thing that is counted. The iterations of a looped statement
 * share one unit.
 */
function parseTestFile(file) {
  const lines = expandStatementBlocks(
    fs
      .readFileSync(file, 'utf8')
      .split(/\r?\n/)
      .map((text, i) => ({ text, line: i + 1 })),
  );
  let index = 0;
  let dataset = null;
  let skipFile = false;
  let memoryLimit = 0;
  for (; index < lines.length && lines[index].text.trim() !== '--'; index++) {
    const [directive, ...params] = lines[index].text.trim().split(/\s+/);
    if (directive === '-DATASET') dataset = datasetFolder(params[0], params[1]);
    else if (directive === '-SKIP') skipFile = true;
    // Kùzu's buffer pool is the memory its database may use: a statement that needs more
    // fails. The nearest GraphDB setting is the statement memory limit.
    else if (directive === '-BUFFER_POOL_SIZE' && /^\d+$/.test(params[0] ?? ''))
      memoryLimit = Number(params[0]);
  }

  const cases = [];
  const units = [];
  let current = null;
  let pending = {};
  // Where steps go: the case, or the innermost open loop or concurrent group.
  const targets = [];
  const target = () => targets.at(-1).steps;

  const readText = () => {
    const text = [];
    while (index + 1 < lines.length && !endsText(lines[index + 1].text)) text.push(lines[++index].text);
    return text;
  };

  /** The `count` rows after a `---- count` line, or those of the `<FILE>:name` answer file. */
  const readRows = (count) => {
    const first = lines[index + 1]?.text ?? '';
    if (!first.startsWith('<FILE>:')) {
      const rows = lines.slice(index + 1, index + 1 + count).map((entry) => entry.text);
      index += count;
      return { type: 'rows', rows };
    }
    index++;
    const answer = path.join(suiteDir, 'answers', first.slice('<FILE>:'.length).trim());
    if (!fs.existsSync(answer)) return { type: 'unsupported', header: `${count} (missing ${answer})` };
    return {
      type: 'rows',
      rows: fs
        .readFileSync(answer, 'utf8')
        .replace(/\r?\n$/, '')
        .split(/\r?\n/),
    };
  };

  const readExpectation = (header) => {
    if (header === 'ok') return { type: 'ok' };
    if (header === 'error') return { type: 'error', message: readText().join('\n') };
    if (header === 'error(regex)') return { type: 'regex', pattern: readText().join('\n') };
    if (header === 'hash') {
      const parts = lines[++index].text.trim().split(/\s+/);
      return { type: 'hash', count: Number(parts[0]), md5: parts.at(-1) };
    }
    if (/^\d+$/.test(header)) return readRows(Number(header));
    return { type: 'unsupported', header };
  };

  /** `[conn] query` names a connection; other statements use the default one. */
  const withConnection = (query) => {
    const prefix = /^\[(\w+)\]\s*/.exec(query);
    return prefix
      ? { connection: prefix[1], query: query.slice(prefix[0].length) }
      : { connection: null, query };
  };

  const finishStatement = (header) => {
    const { query, line } = pending;
    const expect = readExpectation(header);
    const unit = units.length;
    units.push({ line, caseName: current.name, query });
    target().push({
      kind: 'statement',
      unit,
      line,
      ...withConnection(query),
      checkOrder: Boolean(pending.checkOrder),
      checkColumnNames: Boolean(pending.checkColumnNames),
      checkPrecision: Boolean(pending.checkPrecision),
      unsupported: expect.type === 'unsupported' ? `result '---- ${header}'` : pending.unsupported,
      multiCopy: pending.multiCopy,
      expect,
    });
    pending = {};
  };

  // A statement with no `----` result is set-up: it runs, and its outcome is not checked.
  const finishSetup = () => {
    if (pending.query === undefined) return;
    target().push({ kind: 'setup', ...withConnection(pending.query) });
    pending = {};
  };

  for (index++; index < lines.length; index++) {
    const { text, line } = lines[index];
    const result = /^----\s*(.*)$/.exec(text);
    if (result) {
      if (current && pending.query !== undefined) finishStatement(result[1].trim());
      continue;
    }
    if (!isDirective(text)) continue;
    const [directive, ...params] = text.slice(1).trim().split(/\s+/);
    if (current && !STATEMENT_OPTIONS.has(directive)) finishSetup();
    if (directive === 'CASE') {
      current = { name: params.join(' '), line, skip: skipFile, onDisk: false, steps: [] };
      cases.push(current);
      targets.length = 0;
      targets.push(current);
      continue;
    }
    if (!current) continue;
    switch (directive) {
      case 'STATEMENT':
        pending.query = [text.slice('-STATEMENT'.length).trim(), ...readText().map((part) => part.trim())]
          .join(' ')
          .trim();
        pending.line = line;
        if (/\$\{DATABASE_PATH\}/.test(pending.query)) current.onDisk = true;
        break;
      case 'CHECK_ORDER':
        pending.checkOrder = true;
        break;
      case 'CHECK_COLUMN_NAMES':
        pending.checkColumnNames = true;
        break;
      case 'CHECK_PRECISION':
        pending.checkPrecision = true;
        break;
      case 'SKIP':
      // A case for builds that load extensions at run time (what happens before one is
      // loaded): this engine has them built in, as Kùzu's statically linked build does, and
      // Kùzu's runner skips these cases there too.
      case 'SKIP_STATIC_LINK':
        current.skip = true;
        break;
      case 'SKIP_IN_MEM':
        current.onDisk = true;
        break;
      case 'RELOADDB':
        current.onDisk = true;
        target().push({ kind: 'reload' });
        break;
      case 'SET':
        target().push({ kind: 'set', name: params[0], value: params.slice(1).join(' ') });
        break;
      // Kùzu's export/import tests: `-IMPORT_DATABASE dir` swaps in a new, empty database (the
      // next statement imports `dir` into it) and has `dir` removed when the case ends;
      // `-REMOVE_FILE path` removes a file. Quotes around the path are dropped.
      case 'IMPORT_DATABASE':
        target().push({ kind: 'import', path: params.join(' ') });
        break;
      case 'REMOVE_FILE':
        target().push({ kind: 'remove', path: params.join(' ') });
        break;
      case 'CREATE_CONNECTION':
        target().push({ kind: 'connect', name: params[0] });
        break;
      case 'LOOP':
        targets.push({ variable: params[0], from: Number(params[1]), to: Number(params[2]), steps: [] });
        break;
      case 'BEGIN_CONCURRENT_EXECUTION':
        targets.push({ kind: 'concurrent', steps: [] });
        break;
      case 'ENDLOOP':
      case 'END_CONCURRENT_EXECUTION': {
        if (targets.length < 2) break;
        const block = targets.pop();
        if (block.kind === 'concurrent') {
          target().push(block);
          break;
        }
        for (let i = block.from; i <= block.to; i++) {
          target().push({ kind: 'set', name: block.variable, value: String(i) }, ...block.steps);
        }
        break;
      }
      // `-MULTI_COPY_RANDOM n table [SEED a b] "file"`: the file's records in a random order,
      // split into n files, each copied into the table; judged as a statement expecting `ok`.
      case 'MULTI_COPY_RANDOM': {
        const seeded = params[2] === 'SEED';
        pending = {
          query: text,
          line,
          multiCopy: {
            parts: Number(params[0]),
            table: params[1],
            seed: seeded ? Number(params[3]) ^ Number(params[4]) : 1,
            path: params.slice(seeded ? 5 : 2).join(' '),
          },
        };
        finishStatement('ok');
        break;
      }
      default: {
        if (IGNORED_DIRECTIVES.has(directive)) break;
        // Counted as a skipped statement, with the result that follows it, if any.
        pending = { query: text, line, unsupported: `directive -${directive}` };
        const result = /^----\s*(.*)$/.exec(lines[index + 1]?.text ?? '');
        if (result) index++;
        finishStatement(result ? result[1].trim() : 'ok');
      }
    }
  }
  if (current) finishSetup();
  return { dataset, memoryLimit, cases, units, excludedUnits: excludedUnits(cases) };
}

/** The units of statements in `-SKIP` cases: Kùzu does not run them, so neither do we. */
function excludedUnits(cases) {
  const excluded = new Set();
  const visit = (steps) => {
    for (const step of steps) {
      if (step.kind === 'statement') excluded.add(step.unit);
      else if (step.steps) visit(step.steps);
    }
  };
  for (const testCase of cases) if (testCase.skip) visit(testCase.steps);
  return excluded;
}

/**
 * The `dataset` folder of Kùzu's source that the `kuzu` package (a dev dependency, the Kùzu
 * release the suite was taken from) ships in `kuzu-source/`, or null. It holds the large data
 * files the suite's README says it lacks (`ldbc-sf01`'s Comment and Post files, `snap`'s edge
 * files, ...); the runner reads them from there.
 */
const kuzuDatasetDir = (() => {
  try {
    const require = createRequire(path.join(packageRoot, 'package.json'));
    const dir = path.join(path.dirname(require.resolve('kuzu')), 'kuzu-source', 'dataset');
    return fs.existsSync(dir) ? dir : null;
  } catch {
    return null;
  }
})();

/**
 * Where a suite-relative dataset path (`snap/facebook/edges.csv`) is read from: the suite's
 * file, or when the suite lacks it the `kuzu` package's copy (kuzuDatasetDir).
 */
function datasetPath(relative) {
  const own = path.join(suiteDir, 'dataset', relative);
  if (kuzuDatasetDir === null || /[*?[]/.test(relative) || fs.existsSync(own)) return own;
  const packaged = path.join(kuzuDatasetDir, relative);
  return fs.existsSync(packaged) ? packaged : own;
}

/** Makes the suite-relative paths quoted in statements (`"dataset/..."`) absolute. */
function absolutePaths(text) {
  // Kùzu's repository keeps the answer files in `test/answers`; the suite keeps them in `answers`.
  return text
    .replace(/(["'])dataset\/([^"']*)\1/g, (_, quote, relative) => `${quote}${datasetPath(relative)}${quote}`)
    .replace(/(["'])dataset\//g, `$1${suiteDir}/dataset/`)
    .replaceAll(`${suiteDir}/test/answers/`, `${suiteDir}/answers/`);
}

/**
 * Kùzu's `-DATASET KUZU name` opens a database its build generated beforehand (the
 * `scripts/generate_binary_*.sh` of its repository) from one of the suite's datasets; the suite
 * holds the dataset, not the generated files, so the runner loads the dataset they came from.
 * `binary-demo` is serialized from `demo-db/parquet`; `demo-db/csv` holds the same rows.
 */
const GENERATED_DATABASES = new Map([['binary-demo', 'demo-db/csv']]);

/**
 * The dataset a `-DATASET kind name` header line loads: a folder, or for Kùzu's
 * `-DATASET PARQUET CSV_TO_PARQUET(folder)` (and `-DATASET JSON CSV_TO_JSON(folder)`)
 * `{ csvTo: 'parquet' | 'json', folder }` (convertedDatasetStatements).
 */
function datasetFolder(kind, name) {
  if (name === undefined) return null;
  const converted = /^CSV_TO_(PARQUET|JSON)\((.+)\)$/.exec(name);
  if (converted) return { csvTo: converted[1].toLowerCase(), folder: converted[2] };
  if (kind === 'KUZU' && GENERATED_DATABASES.has(name)) return GENERATED_DATABASES.get(name);
  return name;
}

/** The statements that load a dataset: `schema.cypher` then `copy.cypher`, one per line. */
function datasetStatements(dataset, files = ['schema.cypher', 'copy.cypher']) {
  if (!dataset) return [];
  const statements = [];
  for (const name of files) {
    const file = path.join(suiteDir, 'dataset', dataset, name);
    if (!fs.existsSync(file)) continue;
    for (const line of fs.readFileSync(file, 'utf8').split(/\r?\n/)) {
      if (line.trim() !== '') statements.push(absolutePaths(line.trim()));
    }
  }
  return statements;
}

/**
 * Kùzu's `CSV_TO_PARQUET(folder)` datasets: the CSV dataset converted to Parquet files, then
 * loaded from them, so the tests run over data that went through COPY FROM Parquet. As Kùzu's
 * runner converts with its own COPY TO, this one uses GraphDB's: the CSV dataset is loaded into
 * a scratch database, each table it copies into is written out with COPY (<query>) TO
 * '<table>.parquet' (a node table's properties but SERIAL ones, which COPY FROM fills; a rel
 * table's source and destination keys and properties, one file per FROM/TO pair), and the
 * statements returned are the schema and a COPY <table> FROM each file. The files are made once
 * per run (`scratch`, shared by the workers; the first to finish renames its folder in place).
 * A conversion that fails returns statements whose `error` says why.
 */
async function convertedDatasetStatements(addon, dataset, format, scratch) {
  const dir = path.join(scratch, `csv-to-${format}`, dataset.replace(/[\\/]/g, '_'));
  const copyFile = path.join(dir, 'copy.cypher');
  if (!fs.existsSync(copyFile)) {
    const work = fs.mkdtempSync(path.join(scratch, `csv-to-${format}-`));
    try {
      const lines = await convertCsvDataset(addon, dataset, format, work, dir);
      fs.writeFileSync(path.join(work, 'copy.cypher'), `${lines.join('\n')}\n`);
      fs.mkdirSync(path.dirname(dir), { recursive: true });
      try {
        fs.renameSync(work, dir);
      } catch {
        // Another worker converted it first: its files are the same.
      }
    } catch (error) {
      const statements = [];
      statements.error = `CSV_TO_${format.toUpperCase()}(${dataset}): ${firstLine(messageOf(error))}`;
      return statements;
    } finally {
      fs.rmSync(work, { recursive: true, force: true });
    }
  }
  const copies = fs
    .readFileSync(copyFile, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '');
  return [...datasetStatements(dataset, ['schema.cypher']), ...copies];
}

/**
 * Writes dataset's tables to Parquet or JSON files in `work`; returns the COPY FROM lines
 * (`dir`'s). Columns are named as the table's properties (and `from`, `to` for a rel table's
 * keys), which JSON records need.
 */
async function convertCsvDataset(addon, dataset, format, work, dir) {
  const db = new addon.NativeDatabase(':memory:', 2, true, 0);
  try {
    const connection = new addon.NativeConnection(db);
    const run = async (query) => (await rowsAsText(connection, query)).rows;
    for (const statement of datasetStatements(dataset)) await run(statement);
    const quote = (name) => `\`${name.replace(/`/g, '``')}\``;
    const tables = new Map();
    for (const [name, type] of await run('CALL show_tables() RETURN name, type')) {
      tables.set(name.toLowerCase(), { name, type });
    }
    // The tables in the order copy.cypher first fills them: nodes before the rels that use them.
    const order = [];
    for (const line of datasetStatements(dataset, ['copy.cypher'])) {
      const match = /^\s*COPY\s+(?:`([^`]+)`|(\w+))/i.exec(line);
      const table = match && tables.get((match[1] ?? match[2]).toLowerCase());
      if (table && !order.includes(table)) order.push(table);
    }
    const lines = [];
    for (const { name, type } of order) {
      const properties = await run(`CALL table_info('${name}') RETURN name, type`);
      if (type === 'NODE') {
        const columns = properties
          .filter(([, t]) => t !== 'SERIAL')
          .map(([p]) => `n.${quote(p)} AS ${quote(p)}`);
        if (columns.length === 0) continue;
        const file = `${name}.${format}`;
        await run(
          `COPY (MATCH (n:${quote(name)}) RETURN ${columns.join(', ')}) TO '${path.join(work, file)}'`,
        );
        lines.push(`COPY ${quote(name)} FROM '${path.join(dir, file)}'`);
        continue;
      }
      const pairs = await run(`CALL show_connection('${name}') RETURN *`);
      for (const [k, [from, to, fromKey, toKey]] of pairs.entries()) {
        const columns = [
          `a.${quote(fromKey)} AS \`from\``,
          `b.${quote(toKey)} AS \`to\``,
          ...properties.map(([p]) => `r.${quote(p)} AS ${quote(p)}`),
        ];
        const file = `${name}_${k}.${format}`;
        const pattern = `(a:${quote(from)})-[r:${quote(name)}]->(b:${quote(to)})`;
        await run(`COPY (MATCH ${pattern} RETURN ${columns.join(', ')}) TO '${path.join(work, file)}'`);
        const options = pairs.length > 1 ? ` (from='${from}', to='${to}')` : '';
        lines.push(`COPY ${quote(name)} FROM '${path.join(dir, file)}'${options}`);
      }
    }
    return lines;
  } finally {
    db.close();
  }
}

/** The folder a file's pass rate is reported under: `match`, or `tck/match` for the TCK. */
function folderOf(relativeFile) {
  const parts = relativeFile.split(path.sep);
  return parts[0] === 'tck' ? parts.slice(0, 2).join('/') : parts[0];
}

// ---------------------------------------------------------------------------------------------
// Kùzu's text form of a result
// ---------------------------------------------------------------------------------------------

/** The addon's `run` (src/native/addon.ts), set by loadEngine. */
let runStatement;

/**
 * Runs `query` and returns `{ columns, rows }` with every cell in Kùzu's printed form (NULL as
 * ''), as the native `text` output produces it. The only place that turns results into text.
 * `maxMemoryBytes`: the statement's memory limit (0: none).
 */
function rowsAsText(connection, query, maxMemoryBytes = 0) {
  return runStatement(connection, { source: query, options: { output: 'text', maxMemoryBytes } });
}

// ---------------------------------------------------------------------------------------------
// Worker: runs one file
// ---------------------------------------------------------------------------------------------

async function loadEngine() {
  const dist = path.join(packageRoot, 'dist');
  if (!fs.existsSync(path.join(dist, 'index.js'))) {
    throw new Error(`${dist}/index.js not found: run \`npm run build\` first`);
  }
  // index.js registers GraphDBError as the addon's error class.
  await import(pathToFileURL(path.join(dist, 'index.js')).href);
  const { addon, run } = await import(pathToFileURL(path.join(dist, 'native', 'addon.js')).href);
  runStatement = run;
  return addon;
}

const TIMED_OUT = Symbol('timed out');

function withTimeout(promise, ms) {
  let timer;
  const expiry = new Promise((resolve) => {
    timer = setTimeout(resolve, ms, TIMED_OUT);
  });
  return Promise.race([promise, expiry]).finally(() => clearTimeout(timer));
}

function messageOf(error) {
  const message = String(error?.message ?? error);
  return error?.code && message.startsWith(`${error.code}: `)
    ? message.slice(error.code.length + 2)
    : message;
}

const firstLine = (text) => text.split('\n')[0];

/** One case's database: in memory, or in a scratch folder for cases that reopen it. */
class Session {
  #addon;
  #dataset;
  #scratch;
  #onDisk;
  #db = null;
  #connections = new Map();

  #memoryLimit;

  constructor(addon, dataset, scratch, onDisk, memoryLimit = 0) {
    this.#addon = addon;
    this.#dataset = dataset;
    this.#memoryLimit = memoryLimit;
    this.#scratch = scratch;
    this.#onDisk = onDisk;
    this.dir = null;
    /** Why the statements cannot run, once opening or loading has failed. */
    this.broken = null;
  }

  /** Opens a new database (a new folder when on disk) and loads the dataset. */
  async start() {
    this.broken = null;
    this.dir = this.#onDisk ? fs.mkdtempSync(path.join(this.#scratch, 'db-')) : null;
    this.#open();
    if (this.#dataset.error) this.broken = `dataset: ${this.#dataset.error}`;
    for (const statement of this.#dataset) {
      if (this.broken) return;
      const outcome = await this.#execute(null, statement);
      if (outcome.error !== undefined) this.broken = `dataset: ${firstLine(outcome.error)}`;
      else if (outcome.timedOut) this.broken = `dataset: timeout on '${statement}'`;
    }
  }

  /** `-RELOADDB`: closes the database and opens the same folder again. */
  reload() {
    if (this.broken) return;
    this.#close();
    this.#open();
  }

  /** `-IMPORT_DATABASE`: closes the database and opens a new, empty one (no dataset). */
  renew() {
    this.#close();
    if (this.dir) fs.rmSync(this.dir, { recursive: true, force: true });
    this.dir = this.#onDisk ? fs.mkdtempSync(path.join(this.#scratch, 'db-')) : null;
    this.broken = null;
    this.#open();
  }

  /** Runs a statement: `{ result }`, `{ error }` or `{ timedOut }` (then the database is new). */
  async run(connectionName, text) {
    const outcome = await this.#execute(connectionName, text);
    if (outcome.timedOut) {
      // The statement still runs on its native thread: abandon that database, start another.
      this.#db = null;
      this.#connections.clear();
      await this.start();
    }
    return outcome;
  }

  connect(name) {
    if (!this.broken) this.#connection(name);
  }

  dispose() {
    this.#close();
    if (this.dir) fs.rmSync(this.dir, { recursive: true, force: true });
  }

  async #execute(connectionName, text) {
    let outcome;
    try {
      const connection = this.#connection(connectionName);
      outcome = await withTimeout(
        Promise.resolve().then(() => rowsAsText(connection, text, this.#memoryLimit)),
        statementTimeoutMs,
      );
    } catch (error) {
      return { error: messageOf(error) };
    }
    return outcome === TIMED_OUT ? { timedOut: true } : { result: outcome };
  }

  #open() {
    try {
      // writeWaitMs 0: Kùzu never waits for another connection's write transaction (a write,
      // BEGIN or a read beside a transaction that changed the schema fails at once), and the
      // statements of a test run one after another, so a wait could only end in its time limit.
      this.#db = new this.#addon.NativeDatabase(this.dir ?? ':memory:', 2, true, 0);
    } catch (error) {
      this.broken = `open database: ${firstLine(messageOf(error))}`;
    }
  }

  #close() {
    this.#connections.clear();
    try {
      this.#db?.close();
    } catch {
      // Closing is best effort: the next open reports what is wrong.
    }
    this.#db = null;
  }

  #connection(name) {
    const key = name ?? '';
    if (!this.#connections.has(key)) this.#connections.set(key, new this.#addon.NativeConnection(this.#db));
    return this.#connections.get(key);
  }
}

/**
 * Values for `random.*` in `-SET`. Kùzu's generator cannot be reproduced, so results that depend
 * on the drawn values differ; draws never repeat, which Kùzu's expected results imply (e.g.
 * RandUpdateInt expects 1000 distinct draws from a timestamp seed).
 */
class RandomDraws {
  #state = 1;
  #drawn = new Set();

  seed(value) {
    this.#state = Number(BigInt.asUintN(32, BigInt(Math.trunc(Number(value)) || 0)));
    this.#drawn.clear();
  }

  /** An integer in [0, bound) not drawn since the last seed (mulberry32). */
  next(bound) {
    for (;;) {
      this.#state = (this.#state + 0x6d2b79f5) >>> 0;
      let t = this.#state;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      const value = (((t ^ (t >>> 14)) >>> 0) / 2 ** 32) * bound;
      const draw = Math.floor(value);
      if (!this.#drawn.has(draw) || this.#drawn.size >= bound) {
        this.#drawn.add(draw);
        return draw;
      }
    }
  }
}

function substitute(text, variables) {
  return text.replace(/\$\{(\w+)\}/g, (match, name) => variables.get(name) ?? match);
}

/** The value of `-SET name value`: ARANGE, REPEAT, random.*, current_timestamp() or a literal. */
function setValue(raw, variables, random) {
  const value = substitute(raw, variables);
  const arange = /^ARANGE\s+(-?\d+)\s+(-?\d+)$/.exec(value);
  if (arange) {
    const items = [];
    for (let i = Number(arange[1]); i <= Number(arange[2]); i++) items.push(i);
    return `[${items.join(',')}]`;
  }
  const repeat = /^REPEAT\s+(\d+)\s+"(.*)"$/.exec(value);
  if (repeat) {
    let text = '';
    for (let i = 1; i <= Number(repeat[1]); i++) text += repeat[2].replace(/\$\{count\}/g, String(i));
    return text;
  }
  const seed = /^random\.set_seed\((.*)\)$/.exec(value);
  if (seed) {
    random.seed(seed[1]);
    return '';
  }
  const draw = /^random\.randInt32\((\d+)\)$/.exec(value);
  if (draw) return String(random.next(Number(draw[1])));
  if (value === 'current_timestamp()') return String(Date.now());
  return value;
}

/** Byte order, as Kùzu's std::sort over UTF-8 strings. */
const byteOrder = (a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b));

/** With -CHECK_PRECISION, numbers may differ by one unit of the sixth decimal (relative for large). */
function closeNumbers(expected, actual) {
  const pattern = /^-?\d+(\.\d+)?(e[+-]?\d+)?$/i;
  if (!pattern.test(expected) || !pattern.test(actual)) return false;
  const a = Number(expected);
  const b = Number(actual);
  return Math.abs(a - b) <= 1.5e-6 * Math.max(1, Math.abs(a), Math.abs(b));
}

function sameLine(expected, actual, precision) {
  if (expected === actual) return true;
  if (!precision) return false;
  const expectedCells = expected.split('|');
  const actualCells = actual.split('|');
  return (
    expectedCells.length === actualCells.length &&
    expectedCells.every((cell, i) => cell === actualCells[i] || closeNumbers(cell, actualCells[i]))
  );
}

const PASSED = { status: 'passed', strict: true };

/** Whether `text` matches all of `pattern` (Kùzu's std::regex_match); false if it is no regex. */
function matchesRegex(pattern, text) {
  try {
    return new RegExp(`^(?:${pattern})$`).test(text);
  } catch {
    return false;
  }
}

/** The first lines of a result, shortened, for the --verbose report. */
function excerpt(lines) {
  if (!lines) return undefined;
  const shown = lines.slice(0, 10).map((line) => (line.length > 300 ? `${line.slice(0, 300)}…` : line));
  return lines.length > 10 ? [...shown, `… ${lines.length - 10} more lines`] : shown;
}

function failed(reason, expected, actual) {
  return { status: 'failed', strict: false, reason, expected: excerpt(expected), actual: excerpt(actual) };
}

/** Compares a statement's outcome with its expectation. */
function judge(step, outcome, variables) {
  const { expect } = step;
  if (outcome.timedOut) return failed(`timeout after ${statementTimeoutMs / 1000} s`);
  if (expect.type === 'error' || expect.type === 'regex') {
    const wanted = substitute(expect.type === 'error' ? expect.message : expect.pattern, variables).trim();
    if (outcome.error === undefined) {
      return failed(
        'expected an error, the statement succeeded',
        [wanted],
        outcome.result.rows.map((row) => row.join('|')),
      );
    }
    const message = outcome.error.trim();
    const strict = expect.type === 'error' ? message === wanted : matchesRegex(wanted, message);
    return strict
      ? PASSED
      : { status: 'passed', strict: false, expected: excerpt([wanted]), actual: excerpt([message]) };
  }
  if (outcome.error !== undefined) return failed(`error: ${outcome.error}`);
  if (expect.type === 'ok') return PASSED;

  const { columns, rows } = outcome.result;
  const header = step.checkColumnNames ? [columns.join('|')] : [];
  const body = rows.map((row) => row.join('|'));
  if (!step.checkOrder) body.sort(byteOrder);
  const actual = [...header, ...body];
  if (expect.type === 'hash') {
    const md5 = createHash('md5')
      .update(actual.map((line) => `${line}\n`).join(''))
      .digest('hex');
    if (rows.length === expect.count && md5 === expect.md5) return PASSED;
    return failed(
      'wrong result: hash differs',
      [`${expect.count} tuples hashed to ${expect.md5}`],
      [`${rows.length} tuples hashed to ${md5}`],
    );
  }
  const expectedRows = expect.rows.map((row) => substitute(row, variables));
  const expectedHeader = expectedRows.slice(0, header.length);
  const expectedBody = expectedRows.slice(header.length);
  if (!step.checkOrder) expectedBody.sort(byteOrder);
  const expected = [...expectedHeader, ...expectedBody];
  if (actual.length !== expected.length) return failed('wrong result: row count differs', expected, actual);
  const same = expected.every((line, i) => sameLine(line, actual[i], step.checkPrecision));
  return same ? PASSED : failed('wrong result: values differ', expected, actual);
}

async function runWorker(file, outFile) {
  const addon = await loadEngine();
  const parsed = parseTestFile(file);
  const scratch = path.dirname(outFile);
  // `~` in a statement's paths is the home folder (Kùzu's CopyFilesWithHomeDir writes ~/id.csv):
  // this worker's scratch folder, so that a run leaves nothing in the user's home.
  process.env.HOME = scratch;
  const dataset = parsed.dataset?.csvTo
    ? await convertedDatasetStatements(addon, parsed.dataset.folder, parsed.dataset.csvTo, scratch)
    : datasetStatements(parsed.dataset);
  const out = fs.openSync(outFile, 'a');
  const report = (unit, record) => fs.writeSync(out, `${JSON.stringify({ unit, ...record })}\n`);
  // EXPORT DATABASE writes under `${KUZU_EXPORT_DB_DIRECTORY}_name/...`: a folder of this
  // file's own, so that files running side by side do not meet.
  const exportRoot = fs.mkdtempSync(path.join(scratch, 'export-'));
  const variables = new Map([
    ['KUZU_ROOT_DIRECTORY', suiteDir],
    ['KUZU_EXPORT_DB_DIRECTORY', path.join(exportRoot, 'db')],
  ]);
  /** The folders `-IMPORT_DATABASE` named in the running case: removed when it ends. */
  const imported = [];
  const pathOf = (step) => substitute(step.path, variables).replace(/["']/g, '');
  const random = new RandomDraws();
  const queryOf = (step) => absolutePaths(substitute(step.query, variables));

  const runStatement = async (step, session) => {
    if (step.unsupported) {
      report(step.unit, { status: 'skipped', reason: `unsupported: ${step.unsupported}` });
    } else if (session.broken) {
      report(step.unit, failed(session.broken));
    } else if (step.multiCopy) {
      report(step.unit, judge(step, await multiCopy(step.multiCopy, session), variables));
    } else {
      report(step.unit, judge(step, await session.run(step.connection, queryOf(step)), variables));
    }
  };

  /** `-MULTI_COPY_RANDOM`: the outcome of the first COPY that fails, else of the last. */
  const multiCopy = async ({ parts, table, seed, path: file }, session) => {
    const records = fs
      .readFileSync(absolutePaths(substitute(file, variables)).replace(/["']/g, ''), 'utf8')
      .split('\n')
      .filter((record) => record !== '');
    const shuffle = new RandomDraws();
    shuffle.seed(seed);
    for (let i = records.length - 1; i > 0; i--) {
      const j = Math.floor((shuffle.next(2 ** 31) / 2 ** 31) * (i + 1));
      [records[i], records[j]] = [records[j], records[i]];
    }
    let outcome = { error: 'no part to copy' };
    const size = Math.ceil(records.length / parts);
    for (let part = 0; part < parts; part++) {
      const partFile = path.join(exportRoot, `multi-copy-${part}.csv`);
      fs.writeFileSync(partFile, `${records.slice(part * size, (part + 1) * size).join('\n')}\n`);
      outcome = await session.run(null, `COPY ${table} FROM '${partFile}'`);
      if (outcome.error !== undefined || outcome.timedOut) break;
    }
    return outcome;
  };

  const runSteps = async (steps, session) => {
    for (const step of steps) {
      switch (step.kind) {
        case 'statement':
          await runStatement(step, session);
          break;
        case 'setup':
          if (!session.broken) await session.run(step.connection, queryOf(step));
          break;
        case 'set':
          variables.set(step.name, setValue(step.value, variables, random));
          break;
        case 'reload':
          session.reload();
          break;
        case 'import':
          session.renew();
          variables.set('DATABASE_PATH', session.dir ?? '');
          imported.push(pathOf(step));
          break;
        case 'remove':
          fs.rmSync(pathOf(step), { force: true });
          break;
        case 'connect':
          session.connect(step.name);
          break;
        case 'concurrent':
          await Promise.all(step.steps.map((inner) => runSteps([inner], session)));
          break;
      }
    }
  };

  for (const testCase of parsed.cases) {
    if (testCase.skip) continue;
    const session = new Session(addon, dataset, scratch, testCase.onDisk, parsed.memoryLimit);
    await session.start();
    variables.set('DATABASE_PATH', session.dir ?? '');
    await runSteps(testCase.steps, session);
    session.dispose();
    for (const dir of imported.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
  }
  fs.rmSync(exportRoot, { recursive: true, force: true });
  fs.closeSync(out);
}

/** `--probe`: loads the addon and runs one statement, so the parent can fail early and clearly. */
async function runProbe() {
  const addon = await loadEngine();
  const db = new addon.NativeDatabase(':memory:', 1);
  const connection = new addon.NativeConnection(db);
  if (typeof connection.run !== 'function') {
    throw new Error('the addon has no NativeConnection.run: rebuild it (npm run build:native)');
  }
  const { rows } = await rowsAsText(connection, 'RETURN 1');
  connection.close();
  db.close();
  if (rows[0]?.[0] !== '1') throw new Error(`RETURN 1 gave ${JSON.stringify(rows)}`);
}

// ---------------------------------------------------------------------------------------------
// Parent: runs every file in a worker and aggregates
// ---------------------------------------------------------------------------------------------

function listTestFiles(dir) {
  return fs
    .readdirSync(dir, { recursive: true })
    .filter((name) => name.endsWith('.test'))
    .sort()
    .map((name) => path.join(dir, name));
}

function runWorkerProcess(file, outFile, cwd) {
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      [scriptPath, '--worker', file, '--out', outFile, '--suite', suiteDir, '--timeout', options.timeout],
      { stdio: ['ignore', 'ignore', 'pipe'], cwd },
    );
    let stderr = '';
    let timedOut = false;
    child.stderr.on('data', (chunk) => {
      if (stderr.length < 4000) stderr += chunk;
    });
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, fileTimeoutMs);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, timedOut, stderr: stderr.trim() });
    });
  });
}

/** Why a file's unreported statements did not run. */
function exitReason({ code, signal, timedOut, stderr }) {
  if (timedOut) return `file timeout after ${fileTimeoutMs / 1000} s`;
  const detail = stderr ? `: ${firstLine(stderr)}` : '';
  if (signal) return `worker crashed (${signal})${detail}`;
  if (code !== 0) return `worker exited with code ${code}${detail}`;
  return 'not run';
}

const RANK = { passed: 0, skipped: 2, failed: 3 };
const rank = (record) => RANK[record.status] + (record.status === 'passed' && !record.strict ? 1 : 0);
const strictPass = (record) => record.status === 'passed' && record.strict;

/** Runs one file in a worker; a Map from unit to its record (the worst over loop iterations). */
async function runFile(entry, runDir) {
  const outFile = path.join(runDir, `${entry.index}.jsonl`);
  fs.writeFileSync(outFile, '');
  // Each file runs in a working folder of its own, inside the run's folder: the relative paths
  // its statements name (`COPY ... TO 'user.csv'`) resolve there, never in the caller's folder.
  const workDir = path.join(runDir, `${entry.index}.cwd`);
  fs.mkdirSync(workDir);
  const exit = await runWorkerProcess(entry.file, outFile, workDir);
  fs.rmSync(workDir, { recursive: true, force: true });
  const results = new Map();
  for (const line of fs.readFileSync(outFile, 'utf8').split('\n')) {
    let record;
    try {
      record = JSON.parse(line);
    } catch {
      continue; // empty, or cut short by a crash
    }
    const previous = results.get(record.unit);
    if (!previous || rank(record) > rank(previous)) results.set(record.unit, record);
  }
  entry.units.forEach((_, unit) => {
    if (!entry.excluded.has(unit) && !results.has(unit)) results.set(unit, failed(exitReason(exit)));
  });
  return new Map([...results].sort((a, b) => a[0] - b[0]));
}

/** Runs the files, `jobs` workers at a time; results in the order of `entries`. */
async function runFiles(entries) {
  const runDir = fs.mkdtempSync(path.join(os.tmpdir(), 'graphdb-conformance-'));
  const results = new Array(entries.length);
  const jobs = Math.max(1, Number(options.jobs) || 1);
  let next = 0;
  let done = 0;
  const progress = (text) => {
    if (process.stdout.isTTY) process.stdout.write(`\r${text}\x1b[K`);
  };
  try {
    await Promise.all(
      Array.from({ length: Math.min(jobs, entries.length) }, async () => {
        while (next < entries.length) {
          const index = next++;
          results[index] = await runFile(entries[index], runDir);
          progress(`[${++done}/${entries.length}] ${entries[index].relative}`);
        }
      }),
    );
  } finally {
    fs.rmSync(runDir, { recursive: true, force: true });
    progress('');
  }
  return results;
}

/** Groups failures by the start of their reason, with literals and numbers blanked out. */
function reasonGroup(reason) {
  return firstLine(reason)
    .replace(/'[^']*'|"[^"]*"|`[^`]*`/g, '…')
    .replace(/\d+/g, 'N')
    .slice(0, 72);
}

const increment = (counts, key) => {
  counts[key] = (counts[key] ?? 0) + 1;
};

/** The JSON report (see docs/conformance.md). */
function summarize(entries, results) {
  const report = {
    total: 0,
    passed: 0,
    failed: 0,
    skipped: 0,
    strictPassed: 0,
    excluded: 0,
    rate: 0,
    folders: {},
    skipReasons: {},
    failureReasons: {},
  };
  const failureReasons = {};
  entries.forEach((entry, i) => {
    report.excluded += entry.excluded.size;
    report.folders[entry.folder] ??= { total: 0, passed: 0 };
    const folder = report.folders[entry.folder];
    for (const record of results[i].values()) {
      report.total++;
      report[record.status]++;
      folder.total++;
      if (record.status === 'passed') folder.passed++;
      if (strictPass(record)) report.strictPassed++;
      if (record.status === 'skipped') increment(report.skipReasons, record.reason);
      if (record.status === 'failed') increment(failureReasons, reasonGroup(record.reason));
    }
  });
  report.rate = report.total === 0 ? 0 : Number((report.passed / report.total).toFixed(4));
  const topReasons = Object.entries(failureReasons)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 40);
  report.failureReasons = Object.fromEntries(topReasons);
  return report;
}

function printFailures(entries, results) {
  entries.forEach((entry, i) => {
    for (const [unit, record] of results[i]) {
      if (strictPass(record)) continue;
      const meta = entry.units[unit];
      const status = record.status === 'passed' ? 'passed, message differs' : record.status;
      const reason = record.reason ? `: ${record.reason}` : '';
      console.log(`\n${entry.relative}:${meta.line} [${meta.caseName}] ${status}${reason}`);
      console.log(`  ${meta.query.slice(0, 300)}`);
      for (const [label, lines] of [
        ['expected', record.expected],
        ['actual', record.actual],
      ]) {
        if (!lines) continue;
        console.log(`  ${label}:`);
        for (const line of lines) console.log(`    ${line}`);
      }
    }
  });
  console.log('');
}

const percent = (passed, total) => (total === 0 ? '-' : `${((100 * passed) / total).toFixed(1)}%`);

function printReport(report, seconds) {
  const width = Math.max(...Object.keys(report.folders).map((name) => name.length), 6);
  const row = (name, passed, total) =>
    console.log(
      `${name.padEnd(width)}  ${String(passed).padStart(6)}  ${String(total).padStart(6)}  ${percent(passed, total).padStart(6)}`,
    );
  console.log(`${'folder'.padEnd(width)}  passed   total    rate`);
  for (const [name, { passed, total }] of Object.entries(report.folders).sort()) row(name, passed, total);
  row('total', report.passed, report.total);
  console.log(
    `strict (same error text): ${report.strictPassed}; failed: ${report.failed}; skipped: ${report.skipped}; ` +
      `not counted (-SKIP cases): ${report.excluded}; ${seconds.toFixed(0)} s`,
  );
  for (const [reason, count] of Object.entries(report.skipReasons)) {
    console.log(`  skipped ${count}: ${reason}`);
  }
  if (report.failed > 0) console.log('Top failure reasons:');
  for (const [reason, count] of Object.entries(report.failureReasons).slice(0, 15)) {
    console.log(`  ${String(count).padStart(5)}  ${reason}`);
  }
}

async function runSuite() {
  if (!fs.existsSync(suiteDir)) {
    console.log(`Kùzu conformance suite not found at ${suiteDir}: nothing to run.`);
    return;
  }
  const probe = spawnSync(process.execPath, [scriptPath, '--probe'], { encoding: 'utf8' });
  if (probe.status !== 0) {
    console.error(`Cannot run the engine (probe exited with ${probe.status ?? probe.signal}):`);
    console.error(probe.stderr.trim() || probe.stdout.trim());
    process.exitCode = 1;
    return;
  }
  const testDir = path.join(suiteDir, options.tests);
  const entries = listTestFiles(testDir)
    .map((file) => ({ file, relative: path.relative(testDir, file) }))
    .filter(({ relative }) => !options.filter || relative.includes(options.filter))
    .map((entry, index) => {
      const { units, excludedUnits } = parseTestFile(entry.file);
      return { ...entry, index, folder: folderOf(entry.relative), units, excluded: excludedUnits };
    });
  console.log(`Kùzu conformance: ${entries.length} files from ${suiteDir}`);
  const started = Date.now();
  const results = await runFiles(entries);
  const report = summarize(entries, results);
  if (options.verbose) printFailures(entries, results);
  printReport(report, (Date.now() - started) / 1000);
  if (options.json) fs.writeFileSync(options.json, `${JSON.stringify(report, null, 2)}\n`);
}

try {
  if (options.probe) await runProbe();
  else if (options.worker) await runWorker(path.resolve(options.worker), path.resolve(options.out));
  else await runSuite();
} catch (error) {
  console.error(error?.stack ?? String(error));
  process.exitCode = 1;
}
// A statement abandoned after a timeout may still hold a native thread: do not wait for it.
if (options.worker) process.exit(process.exitCode ?? 0);
