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
  const rows: unknown[][] = [];
  for (let start = 0; start < cells.length; start += width) rows.push(cells.slice(start, start + width));
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
  /** Writes a checkpoint (on-disk databases); waits for running statements. */
  checkpoint(): void;
  /** Checkpoints an on-disk database and closes it. */
  close(): void;
}

/**
 * The arguments of query, queryText and querySync: (text, params?) with the parameters as an
 * object, or (text, name, value, name, value...), which the native side reads much faster.
 * A null text stands for the text of the statement the connection read last (which it keeps).
 */
export type StatementArguments =
  | [text: string | null, params?: Record<string, unknown>]
  | [text: string | null, ...pairs: unknown[]];

/** The access modes of a request, lowest first. */
export type AccessModeName = 'read' | 'insert' | 'update' | 'schema';
/** The arguments of runPrepared and openPreparedCursor: a prepared statement's id, then as above. */
export type PreparedArguments =
  | [id: number, params?: Record<string, unknown>]
  | [id: number, ...pairs: unknown[]];

/** A batch of a result stream: its rows (packed, or JSON lines) and whether it is the last. */
export type CursorBatch<T> = [rows: T, done: boolean];

export interface NativeConnection {
  readonly pending: number;
  readonly closed: boolean;
  /**
   * [bytesRead, bytesTotal, stepsDone, stepsTotal] of the COPY FROM, EXPORT or IMPORT DATABASE
   * running (native/common/progress.h): the last one's once it ended, zeros before any.
   */
  progress(): [number, number, number, number];
  /**
   * The result itself when a short read ran at once on this thread, else a promise. A text of
   * several statements gives a PackedBatch instead, which only a connection without an access
   * mode runs (Connection.query reads both; a slot with one refuses several statements).
   */
  query(...args: StatementArguments): Promise<PackedResult> | PackedResult;
  queryText(...args: StatementArguments): Promise<RawTextResult> | RawTextResult;
  /**
   * Runs a JSON query request; resolves to the HTTP JSON body when asJson is true. `inSession`:
   * in the connection's explicit transaction (INVALID_REQUEST when none is open). `mostAccess`:
   * the highest access mode the client's role allows (default 'schema'); more is FORBIDDEN.
   */
  executeTransactionalRequest(
    json: string,
    asJson: true,
    inSession?: boolean,
    mostAccess?: AccessModeName,
  ): Promise<string>;
  executeTransactionalRequest(
    json: string,
    asJson?: false,
    inSession?: boolean,
    mostAccess?: AccessModeName,
  ): Promise<PackedResult>;
  /**
   * `executeTransactionalRequest(json, true, false, mostAccess)` of a request whose statement is
   * a short read, run at once on this thread when the connection is idle, under the time limit
   * (ms, 0: none) and the result and memory limits (bytes, 0: none) the worker would apply: the
   * response body, or the GraphDBError it would reject with (returned, not thrown); undefined
   * when it did not run (submit it then).
   */
  tryRequestInline(
    json: string,
    mostAccess: AccessModeName,
    timeoutMs: number,
    maxResultBytes: number,
    maxMemoryBytes: number,
  ): string | Error | undefined;
  /**
   * Confines the files this connection's statements may name: none, or only inside `root`
   * (absolute, symlinks resolved). Set once, before the connection runs anything.
   */
  setFileAccess(mode: 'none' | 'within', root?: string): void;
  /**
   * Opens a result stream (one per connection; other statements are refused with SLOT_BUSY
   * while it is open): resolves to a packed result of no rows (the columns and types). The
   * options of setNextOptions cover the whole stream.
   */
  openCursor(...args: StatementArguments): Promise<PackedResult>;
  /** openCursor of a JSON query request; resolves to the header line `{"columns","types"}\n`. */
  openCursorRequest(json: string, inSession?: boolean, mostAccess?: AccessModeName): Promise<string>;
  /** The next batch of the open stream, at most `maxRows` rows; JSON lines when asJson. */
  fetch(maxRows: number, asJson: true): Promise<CursorBatch<string>>;
  fetch(maxRows: number, asJson?: false): Promise<CursorBatch<PackedResult>>;
  /** Stops and closes the open stream, if any. */
  closeCursor(): Promise<void>;
  /** Prepares one statement; resolves to its id on this connection. */
  prepare(text: string): Promise<number>;
  runPrepared(...args: PreparedArguments): Promise<PackedResult>;
  openPreparedCursor(...args: PreparedArguments): Promise<PackedResult>;
  closePrepared(id: number): void;
  /** Rolls back the session's transaction, closes its stream, resets its settings. */
  resetSession(): Promise<void>;
  /** Whether the session has an explicit transaction open (read while nothing is in flight). */
  readonly inTransaction: boolean;
  /** The schema document of GET /schema as JSON text, read on this connection's thread. */
  schema(): Promise<string>;
  /** Compacts the database's adjacency on this connection's native thread. */
  compact(): Promise<PackedResult>;
  querySync(...args: StatementArguments): PackedResult | PackedBatch;
  /**
   * The time limit (ms, 0: none), cancel() token and result and memory limits (bytes, 0: none)
   * of the next statement submitted; a statement that runs inline ignores them.
   */
  setNextOptions(
    timeoutMs: number,
    token: number,
    maxResultBytes?: number,
    maxMemoryBytes?: number,
    accessMode?: AccessModeName,
    inSession?: boolean,
    typed?: boolean,
  ): void;
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
  setResultBuilders(pack: typeof packResult, append: typeof appendCells): void;
  setTypedParameterClass(cls: typeof TypedParameter): void;
  NativeDatabase: new (
    path: string,
    maxThreadNum: number,
    syncOnCommit?: boolean,
    writeWaitMs?: number,
  ) => NativeDatabase;
  NativeConnection: new (db: NativeDatabase) => NativeConnection;
}

/** The package folder (this file is src/native/addon.ts, or dist/native/addon.js once built). */
export const packageRoot = path.resolve(__dirname, '..', '..');

/**
 * How to build the addon from source, for messages: `npm rebuild` runs the package's install
 * script (scripts/install.cjs), which builds it when asked to or when no prebuilt binary fits.
 */
const BUILD_HINT =
  'build it from source (needs CMake >= 3.20 and a C++20 compiler such as g++ 12): in your project run ' +
  '`npm rebuild quiverdb --build-from-source --foreground-scripts`, or in a clone of QuiverDB ' +
  '`npm run build:native`';

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
 * The native side makes a packed result by calling this with its parts and up to 1024 cells as
 * arguments, then `appendCells` with the next cells, 1024 at a time. `cells` are the cells of
 * all rows, row after row; `rows` is null unless there are no columns (rows of no cells).
 * `columns` and `types` are frozen arrays, which the native side hands out again for later
 * results with the same names and types.
 */
function packResult(
  columns: readonly string[],
  types: readonly string[],
  rows: unknown[][] | null,
  elapsedMs: number,
  nodesCreated: number,
  nodesDeleted: number,
  relationshipsCreated: number,
  relationshipsDeleted: number,
  propertiesSet: number,
  ...cells: unknown[]
) {
  return [
    columns,
    types,
    (rows ?? cells) as unknown[],
    elapsedMs,
    nodesCreated,
    nodesDeleted,
    relationshipsCreated,
    relationshipsDeleted,
    propertiesSet,
  ] as const;
}

function appendCells(packed: PackedResult, ...cells: unknown[]): void {
  const target = packed[2];
  for (let i = 0; i < cells.length; i++) target.push(cells[i]);
}

addon.setResultBuilders(packResult, appendCells);

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
   * @internal The native side makes them too (results in typed form, setNextOptions); use the
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
