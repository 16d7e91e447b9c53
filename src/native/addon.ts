// The only module that touches the compiled addon. It loads the addon (see `loadAddon` below)
// and describes its surface with types; everything else imports from here.

import fs from 'node:fs';
import path from 'node:path';

/**
 * A result as the native side hands it over: an array, made by `packResult` below from the
 * arguments the native side calls it with (much faster than filling an object, or even an
 * array, from native code). `rowsOf`, `summaryOf` and QueryResult (src/core) read it.
 */
export type PackedResult = ReturnType<typeof packResult>;

/** The results of a query of several statements, one per statement, in order. */
export interface PackedBatch {
  results: PackedResult[];
}

/** A result whose cells are Kùzu's text form of each value (NULL as ''). */
export interface RawTextResult {
  columns: string[];
  types: string[];
  rows: string[][];
  summary: RawSummary;
}

export interface RawSummary {
  rowCount: number;
  elapsedMs: number;
  counters: {
    nodesCreated: number;
    nodesDeleted: number;
    relationshipsCreated: number;
    relationshipsDeleted: number;
    propertiesSet: number;
  };
}

/** The rows of a packed result. */
export function rowsOf(packed: PackedResult): unknown[][] {
  const width = packed[0].length;
  const cells = packed[2];
  if (width === 0) return cells as unknown[][];
  if (cells.length === width) return [cells];
  // Each row filled in from a preallocated array: 2-3x faster than a slice of the cells a row
  // (1,638 rows of 2 cells: 9 µs against 25).
  const count = cells.length / width;
  const rows: unknown[][] = new Array(count);
  for (let r = 0, at = 0; r < count; r++) {
    const row: unknown[] = new Array(width);
    for (let c = 0; c < width; c++) row[c] = cells[at++];
    rows[r] = row;
  }
  return rows;
}

/** The summary of a packed result whose rows are `rows`. */
export function summaryOf(packed: PackedResult, rows: unknown[][]): RawSummary {
  return {
    rowCount: rows.length,
    elapsedMs: packed[3],
    counters: {
      nodesCreated: packed[4],
      nodesDeleted: packed[5],
      relationshipsCreated: packed[6],
      relationshipsDeleted: packed[7],
      propertiesSet: packed[8],
    },
  };
}

export interface NativeDatabase {
  readonly maxThreadNum: number;
  /** Statements executing right now, on any slot or connection (a native counter). */
  readonly activeStatements: number;
  /** The most statements seen executing at once since the last reset. */
  readonly peakActiveStatements: number;
  resetPeakActiveStatements(): void;
  /** Write statements committed since the last compaction. */
  readonly writesSinceCompaction: number;
  /** Commits replayed from the write-ahead logs when the database was opened. */
  readonly recoveredCommits: number;
  /** What the last open's recovery warned of (also printed to stderr). */
  readonly recoveryWarnings: string[];
  /** Writes a checkpoint (on-disk databases) off the event loop, beside running statements. */
  checkpoint(): Promise<void>;
  /** Checkpoints an on-disk database and closes it. */
  close(): void;
}

/** The access modes of a request, lowest first. */
export type AccessModeName = 'read' | 'insert' | 'update' | 'schema';

/** A batch of a result stream: its rows (packed, or JSON lines) and whether it is the last. */
export type CursorBatch<T> = [rows: T, done: boolean];

/**
 * How `run` runs one statement (native/main/execution_slot.h, StatementSpec; every option may
 * be left out):
 * - `source`: what the spec's `source` is: Cypher text (default; null: the text this connection
 *   read last, which it keeps), a JSON query request (`{"query", "access_mode"?, "parameters"?,
 *   "timeout_ms"?}`, exactly one statement, no `params`) or a prepared statement's id.
 * - `delivery`: `auto` (default): a short read (one within the inline work budget) of an idle
 *   connection runs at once on this thread and `run` returns its result itself (the limits do
 *   not apply to it: it is over within its small budget), anything else goes to the
 *   connection's native thread (a promise). `worker`: always there (a promise). `inline`: a
 *   short read of an idle connection at once on this thread under its limits, returning its
 *   result, the GraphDBError it failed with (returned, not thrown), or undefined when it did
 *   not run. `sync`: on this thread after the statements queued before it, whatever it is
 *   (throws its error). `cursor`: opens a result stream (one per connection; other statements
 *   are refused with SLOT_BUSY while it is open) whose limits cover its whole life; resolves
 *   to its header (a packed result of no rows, or the JSON header line); `fetch` reads it.
 * - `output`: `values` (default, a PackedResult), `typed` (the same with the values a protocol
 *   tells apart in typed form: a whole DOUBLE as a Number object, DATE, TIMESTAMP and INTERVAL
 *   as TypedParameter objects; a stream's batches too), `text` (RawTextResult) or `json` (the
 *   HTTP JSON body; a stream's header line) or `kuzu` (a PackedResult whose values are those
 *   Kùzu's Node.js package gives, native/napi/kuzu_values.h: for src/kuzu; no stream).
 * - `session`: `session` (default: the connection's own; its settings persist and it runs in
 *   its open transaction), `alone` (as a transactional request: its settings do not persist
 *   and it cannot open a transaction) or `transaction` (in the session's open explicit
 *   transaction; INVALID_REQUEST when none is).
 * - `access`: Cypher and prepared statements: the access mode it may use (the text must then
 *   hold one statement); a request: the most its client's role allows (more is FORBIDDEN).
 *   Absent: anything.
 * - `timeoutMs` (0: none, counted from the call), `maxResultBytes`, `maxMemoryBytes` (0: none):
 *   its limits. `queryThreads`: the most threads it may use (0: the database's budget).
 *   `token`: names it to `cancel` (0: none).
 */
export interface RunOptions {
  source?: 'cypher' | 'request' | 'prepared';
  delivery?: 'auto' | 'worker' | 'inline' | 'sync' | 'cursor';
  output?: 'values' | 'typed' | 'text' | 'json' | 'kuzu';
  session?: 'session' | 'alone' | 'transaction';
  access?: AccessModeName;
  timeoutMs?: number;
  maxResultBytes?: number;
  maxMemoryBytes?: number;
  queryThreads?: number;
  token?: number;
}

/**
 * Parameters as the bytes of one PackStream map (a Bolt RUN's), which the native side decodes
 * where the statement runs (native/main/bolt_parameters.h), not on this thread: the Bolt server
 * hands a large parameter map over this way. `utcDateTime`: the connection's DateTime form
 * (false: Bolt 4's legacy one).
 */
export class PackStreamParameters {
  readonly bytes: Uint8Array;
  readonly utcDateTime: boolean;

  constructor(bytes: Uint8Array, utcDateTime: boolean) {
    this.bytes = bytes;
    this.utcDateTime = utcDateTime;
  }
}

/** One statement for `run`: its source and parameters, and how it runs (RunOptions). */
export interface StatementSpec<O extends RunOptions | undefined = RunOptions | undefined> {
  /** The Cypher text (null: the one read last), the JSON request or the prepared statement's id. */
  source: string | number | null;
  /** Its parameters (Cypher and prepared statements). */
  params?: Record<string, unknown> | PackStreamParameters;
  options?: O;
}

/**
 * What a statement of `options` settles to, by its output (unknown for options not known). A
 * Cypher text of several statements, run without `access`, gives a PackedBatch instead of a
 * PackedResult (Connection.query reads both; with `access` several statements are refused).
 */
export type RunOutput<O> = RunOptions extends O
  ? unknown
  : O extends { output: 'json' }
    ? string
    : O extends { output: 'text' }
      ? RawTextResult
      : PackedResult;

/** What `run` returns for `options`, by its delivery (unknown for options not known). */
export type RunResult<O> = RunOptions extends O
  ? unknown
  : O extends { delivery: 'sync' }
    ? RunOutput<O>
    : O extends { delivery: 'inline' }
      ? RunOutput<O> | Error | undefined
      : O extends { delivery: 'worker' | 'cursor' }
        ? Promise<RunOutput<O>>
        : Promise<RunOutput<O>> | RunOutput<O>;

export interface NativeConnection {
  readonly pending: number;
  readonly closed: boolean;
  /**
   * [bytesRead, bytesTotal, stepsDone, stepsTotal] of the COPY FROM, EXPORT or IMPORT DATABASE
   * running (native/common/progress.h): the last one's once it ended, zeros before any.
   */
  progress(): [number, number, number, number];
  /**
   * Runs one statement: `run(options, source, name, value, name, value...)` or `run(options,
   * source, params)`, its options packed by `packOptions` (undefined: the defaults). `run`
   * below is how to call it.
   */
  run(options: Float64Array | undefined, source: string | number | null, ...params: unknown[]): unknown;
  /**
   * Confines the files this connection's statements may name: none, or only inside `root`
   * (absolute, symlinks resolved). Set once, before the connection runs anything.
   */
  setFileAccess(mode: 'none' | 'within', root?: string): void;
  /** The next batch of the open stream, at most `maxRows` rows; JSON lines when asJson. */
  fetch(maxRows: number, asJson: true): Promise<CursorBatch<string>>;
  fetch(maxRows: number, asJson?: false): Promise<CursorBatch<PackedResult>>;
  /** Stops and closes the open stream, if any. */
  closeCursor(): Promise<void>;
  /** Prepares one statement; resolves to its id on this connection. */
  prepare(text: string): Promise<number>;
  /** The same on this thread, after the statements queued before it: the id (throws its error). */
  prepare(text: string, sync: true): number;
  closePrepared(id: number): void;
  /** Rolls back the session's transaction, closes its stream, resets its settings. */
  resetSession(): Promise<void>;
  /** Whether the session has an explicit transaction open (read while nothing is in flight). */
  readonly inTransaction: boolean;
  /** The schema document of GET /schema as JSON text, read on this connection's thread. */
  schema(): Promise<string>;
  /** Compacts the database's adjacency on this connection's native thread. */
  compact(): Promise<PackedResult>;
  /**
   * Stops the statement submitted with `token`: a queued one is rejected at once, a running one
   * stops at its next check. QUERY_TIMEOUT when `timedOut`, else QUERY_CANCELLED. False when
   * no such statement is in flight.
   */
  cancel(token: number, timedOut?: boolean): boolean;
  /** Stops every statement in flight (QUERY_CANCELLED); returns how many. */
  interrupt(): number;
  close(): void;
}

interface Addon {
  setErrorClass(cls: new (message: string, code: never) => Error): void;
  setResultBuilders(
    pack: typeof packResult,
    append: typeof appendCells,
    list: typeof listOf,
    extend: typeof extendList,
  ): void;
  /** Whether statements' pool threads hold the cores now (native TaskPool::Busy). */
  poolBusy(): boolean;
  setTypedParameterClass(cls: typeof TypedParameter): void;
  NativeDatabase: new (
    path: string,
    maxThreadNum: number,
    syncOnCommit?: boolean,
    writeWaitMs?: number,
    checkpointThresholdBytes?: number,
    queryThreads?: number,
  ) => NativeDatabase;
  NativeConnection: new (db: NativeDatabase) => NativeConnection;
}

/** The package folder (this file is src/native/addon.ts, or dist/native/addon.js once built). */
export const packageRoot = path.resolve(__dirname, '..', '..');

/**
 * How to build the addon from source, for messages: `npm rebuild` runs the package's install
 * script (scripts/install.cjs, whose failures name the same command), which builds it when
 * asked to or when no prebuilt binary fits.
 */
const BUILD_HINT =
  'build it from source (needs CMake >= 3.20 and a C++20 compiler such as g++ 12): run ' +
  '`npm rebuild quiverdb --build-from-source --foreground-scripts` in your project';

/** This platform as prebuilt binaries are named: linux-x64 (glibc), darwin-arm64, ... */
export function platformTag(): string {
  const tuple = `${process.platform}-${process.arch}`;
  if (process.platform !== 'linux') return tuple;
  const header = process.report?.getReport?.() as { header?: { glibcVersionRuntime?: string } } | undefined;
  return `${tuple} (${header?.header?.glibcVersionRuntime ? 'glibc' : 'musl'})`;
}

/** The prebuilt binaries the package holds, as `prebuilds/<platform>-<arch>/<file>`. */
function prebuiltBinaries(root: string): string[] {
  const dir = path.join(root, 'prebuilds');
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .flatMap((tuple) => fs.readdirSync(path.join(dir, tuple)).map((file) => `prebuilds/${tuple}/${file}`))
    .filter((file) => file.endsWith('.node'));
}

/**
 * The addon's file, found by node-gyp-build: a build from source first (build/Release, then
 * build/Debug: a clone of the repository, or an install that built it), else the prebuilt
 * binary the package ships for this platform, prebuilds/<platform>-<arch>/graphdb.napi[.libc].node
 * (Node-API is ABI-stable: one file serves every Node >= 20 and Electron). GRAPHDB_PREBUILD
 * names another package folder to look in.
 */
export function findAddon(root: string = packageRoot): string {
  const nodeGypBuild = require('node-gyp-build') as { path(dir: string): string };
  try {
    return nodeGypBuild.path(root);
  } catch (cause) {
    const shipped = prebuiltBinaries(root);
    throw new Error(
      `QuiverDB has no native addon for ${platformTag()} in ${root}: ` +
        (shipped.length > 0
          ? `the package ships prebuilt binaries for other platforms only (${shipped.join(', ')}), `
          : 'the package holds no prebuilt binary, ') +
        `and none was built from source. To use QuiverDB here, ${BUILD_HINT}.`,
      { cause },
    );
  }
}

/** Loads the addon `file`; a file that does not load (a libc or C++ runtime too old...) is named. */
export function loadAddon(file: string): Addon {
  try {
    return require(file) as Addon;
  } catch (cause) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    throw new Error(
      `QuiverDB's native addon ${file} could not be loaded on ${platformTag()}: ${reason}. ` +
        `If it is a prebuilt binary that does not suit this system, ${BUILD_HINT}.`,
      { cause },
    );
  }
}

export const addon: Addon = loadAddon(findAddon());

/**
 * The most cells whose array packResult makes at its size. V8 (Node 20-24) gives `new Array(n)`
 * dictionary elements, slow to fill and to read, past 32M (2^25); a larger result's array grows
 * as the cells come (appendCells writes each at the array's end then).
 */
export const MAX_SIZED_CELLS = 2 ** 24;

/**
 * The native side makes a packed result by calling this with its parts, the number of cells of
 * all rows (`cellCount`) and up to 1024 cells as arguments, then `appendCells` with where the
 * next cells go and those cells, 1024 at a time. The cells of all rows, row after row, go in one
 * array made at its size here (grown a `push` at a time, the array of 100k rows of four cells
 * was copied into ever larger ones, each new pages of V8's heap); `rows` is null unless there
 * are no columns (rows of no cells). `columns` and `types` are frozen arrays, which the native
 * side hands out again for later results with the same names and types.
 * @internal (exported for tests)
 */
export function packResult(
  columns: readonly string[],
  types: readonly string[],
  rows: unknown[][] | null,
  elapsedMs: number,
  nodesCreated: number,
  nodesDeleted: number,
  relationshipsCreated: number,
  relationshipsDeleted: number,
  propertiesSet: number,
  cellCount: number,
  ...cells: unknown[]
) {
  let all = cells;
  if (cellCount > cells.length && cellCount <= MAX_SIZED_CELLS) {
    all = new Array(cellCount);
    for (let i = 0; i < cells.length; i++) all[i] = cells[i];
  }
  return [
    columns,
    types,
    (rows ?? all) as unknown[],
    elapsedMs,
    nodesCreated,
    nodesDeleted,
    relationshipsCreated,
    relationshipsDeleted,
    propertiesSet,
  ] as const;
}

/** @internal (exported for tests) Puts `cells` in packResult's cells from `at` on. */
export function appendCells(packed: PackedResult, at: number, ...cells: unknown[]): void {
  const target = packed[2];
  for (let i = 0; i < cells.length; i++) target[at + i] = cells[i];
}

/**
 * @internal A result's LIST cell of these items (the native side calls it with up to 256 at
 * a time, then extendList with the rest): the arguments gathered by JIT-compiled code, where
 * each element stored from native code took a slow generic lookup.
 */
export function listOf(...items: unknown[]): unknown[] {
  return items;
}

/** @internal Appends `items` to a list listOf made. */
export function extendList(list: unknown[], ...items: unknown[]): void {
  for (let i = 0; i < items.length; i++) list.push(items[i]);
}

addon.setResultBuilders(packResult, appendCells, listOf, extendList);

/**
 * A parameter of a type JavaScript has no value of its own for, given by its parts: DATE (days
 * since 1970-01-01), TIMESTAMP (micros since the epoch, no zone), TIMESTAMP_TZ (micros since
 * the epoch, an instant), INTERVAL (months, days, micros), or a DOUBLE whose value is whole
 * (a plain whole number is an INT64). The native side reads it (convert.cc,
 * TypedParameterToValue); protocols whose values carry these types (Bolt) use it.
 */
export class TypedParameter {
  readonly type: 'DATE' | 'TIMESTAMP' | 'TIMESTAMP_TZ' | 'INTERVAL' | 'DOUBLE';
  readonly months: number;
  readonly days: number;
  readonly micros: bigint;
  readonly value: number;

  /**
   * @internal The native side makes them too (results in typed form, run's output 'typed'); use the
   * static methods.
   */
  constructor(type: TypedParameter['type'], months: number, days: number, micros: bigint, value = 0) {
    this.type = type;
    this.months = months;
    this.days = days;
    this.micros = micros;
    this.value = value;
  }

  static double(value: number): TypedParameter {
    return new TypedParameter('DOUBLE', 0, 0, 0n, value);
  }

  static date(days: number): TypedParameter {
    return new TypedParameter('DATE', 0, days, 0n);
  }

  static timestamp(micros: bigint, withZone: boolean): TypedParameter {
    return new TypedParameter(withZone ? 'TIMESTAMP_TZ' : 'TIMESTAMP', 0, 0, micros);
  }

  static interval(months: number, days: number, micros: bigint): TypedParameter {
    return new TypedParameter('INTERVAL', months, days, micros);
  }
}

addon.setTypedParameterClass(TypedParameter);

/** Parameters with more names than this go to the native side as the object itself. */
const MAX_PAIRED_PARAMETERS = 1000;

/**
 * Runs the statement `spec` describes on `native` (NativeConnection.run; RunOptions says how).
 * The parameters go to the native side as name, value, name, value..., which it reads far
 * faster than an object's properties (the names `for...in` visits, as the native side would
 * enumerate them); one or two go without building an array, and so many that the call could
 * overflow the stack go as the object.
 */
export function run<const O extends RunOptions | undefined = undefined>(
  native: NativeConnection,
  spec: StatementSpec<O>,
): RunResult<O> {
  const { source, params } = spec;
  if (params instanceof PackStreamParameters) {
    const options = packOptions(spec.options ?? {});
    options[10] = params.utcDateTime ? 1 : 2;
    try {
      return native.run(options, source, params.bytes) as RunResult<O>;
    } finally {
      options[10] = 0; // read by the call: the next one's options have their own parameters
    }
  }
  const options = spec.options === undefined ? undefined : packOptions(spec.options);
  if (params === undefined) return native.run(options, source) as RunResult<O>;
  let count = 0;
  let name0 = '';
  let name1 = '';
  let value0: unknown;
  let value1: unknown;
  for (const name in params) {
    if (count === 0) {
      name0 = name;
      value0 = params[name];
    } else if (count === 1) {
      name1 = name;
      value1 = params[name];
    } else {
      return native.run(options, source, ...parameterPairs(params)) as RunResult<O>;
    }
    count++;
  }
  if (count === 0) return native.run(options, source) as RunResult<O>;
  if (count === 1) return native.run(options, source, name0, value0) as RunResult<O>;
  return native.run(options, source, name0, value0, name1, value1) as RunResult<O>;
}

/**
 * RunOptions for the native side: numbers in a Float64Array, which it reads in one call
 * (reading an object's properties from native code costs some 90 ns each, more than a short
 * read's whole hand-over). The array is this module's, rewritten by each call: the native side
 * reads it before `run` returns. The codes are those native/napi/connection_wrap.cc reads
 * (ReadRunOptions: ConnectionWrap's enums, and native AccessMode).
 */
const packed = new Float64Array(11); // [10]: the parameters' form, set by run itself
/** The frozen options `packed` holds now, which a call with the same options reuses. */
let packedFrozen: RunOptions | undefined;
/** @internal Exported for tests that call NativeConnection.run itself. */
export function packOptions(options: RunOptions): Float64Array {
  if (options === packedFrozen) return packed;
  packedFrozen = Object.isFrozen(options) ? options : undefined;
  packed[0] = sourceCode(options.source);
  packed[1] = deliveryCode(options.delivery);
  packed[2] = outputCode(options.output);
  packed[3] = sessionCode(options.session);
  packed[4] = accessCode(options.access);
  packed[5] = options.timeoutMs ?? 0;
  packed[6] = options.maxResultBytes ?? 0;
  packed[7] = options.maxMemoryBytes ?? 0;
  packed[8] = options.token ?? 0;
  packed[9] = options.queryThreads ?? 0;
  return packed;
}

function sourceCode(value: RunOptions['source']): number {
  switch (value) {
    case undefined:
    case 'cypher':
      return 0;
    case 'request':
      return 1;
    case 'prepared':
      return 2;
  }
  return unknownChoice('source', value, 'cypher, request, prepared');
}

function deliveryCode(value: RunOptions['delivery']): number {
  switch (value) {
    case undefined:
    case 'auto':
      return 0;
    case 'worker':
      return 1;
    case 'inline':
      return 2;
    case 'sync':
      return 3;
    case 'cursor':
      return 4;
  }
  return unknownChoice('delivery', value, 'auto, worker, inline, sync, cursor');
}

function outputCode(value: RunOptions['output']): number {
  switch (value) {
    case undefined:
    case 'values':
      return 0;
    case 'typed':
      return 1;
    case 'text':
      return 2;
    case 'json':
      return 3;
    case 'kuzu':
      return 4;
  }
  return unknownChoice('output', value, 'values, typed, text, json, kuzu');
}

function sessionCode(value: RunOptions['session']): number {
  switch (value) {
    case undefined:
    case 'session':
      return 0;
    case 'alone':
      return 1;
    case 'transaction':
      return 2;
  }
  return unknownChoice('session', value, 'session, alone, transaction');
}

/** An access mode as native AccessMode numbers it; -1: any. */
function accessCode(value: RunOptions['access']): number {
  switch (value) {
    case undefined:
      return -1;
    case 'read':
      return 0;
    case 'insert':
      return 1;
    case 'update':
      return 2;
    case 'schema':
      return 3;
  }
  return unknownChoice('access', value, 'read, insert, update, schema');
}

function unknownChoice(what: string, value: unknown, choices: string): never {
  throw new TypeError(`run option ${what} must be one of ${choices}, got ${String(value)}`);
}

/** The parameters of a `run` call with many of them (see `run`). */
function parameterPairs(params: Record<string, unknown>): unknown[] {
  const pairs: unknown[] = [];
  for (const name in params) pairs.push(name, params[name]);
  if (pairs.length > 2 * MAX_PAIRED_PARAMETERS) return [params];
  return pairs;
}
