import os from 'node:os';
import { addon, type NativeDatabase } from '../native/addon.js';
import { Connection } from './connection.js';
import { GraphDBError } from './errors.js';
import { checkByteLimit, checkTimeout, type StatementLimits } from './statement-control.js';

addon.setErrorClass(GraphDBError);

export interface DatabaseOptions {
  /**
   * Size of the execution-slot pool (the most statements that run at once in service mode).
   * 0 or omitted: the machine's parallelism (`os.availableParallelism()`), 1 if unknown.
   */
  maxThreadNum?: number;
  /**
   * Whether a commit returns only once its write-ahead-log record is on disk (fdatasync).
   * Default true. With false a commit returns once the record is in the operating system's
   * cache: it survives a crash of the process but not a power loss or kernel crash.
   */
  syncOnCommit?: boolean;
  /**
   * Default time limit in milliseconds of every statement run through this database's
   * connections (`conn.query(..., { timeoutMs })` overrides it per statement). 0 or omitted: no
   * limit.
   */
  queryTimeoutMs?: number;
  /**
   * Largest result one statement may build, in bytes (as the engine holds it); past it the
   * statement stops with RESOURCE_LIMIT. 0 or omitted: no limit.
   */
  maxResultBytes?: number;
  /**
   * Most memory one statement's sorts, hash aggregations (with the values their min/max,
   * collect and DISTINCT keep), DISTINCT, collected lists, path sets and the lists, strings
   * and maps its expressions build may hold at once, in
   * bytes; past it: RESOURCE_LIMIT. 0 or omitted: no limit.
   */
  maxStatementMemoryBytes?: number;
  /**
   * How long, in milliseconds, a write (a write statement, a read-write BEGIN, a schema change
   * or COPY) waits for another connection's open transaction before it fails with TX_CONFLICT
   * and applies nothing (docs/concurrency.md). Default 10,000; 0: it fails at once.
   */
  writeWaitMs?: number;
  /**
   * An on-disk database checkpoints by itself, off the event loop and beside running
   * statements, once its write-ahead logs have grown by this many bytes since the last
   * checkpoint (docs/storage-format.md, "Checkpoints beside writers"). Default 16 MiB
   * (16,777,216); 0: never (only `checkpoint()`, `CHECKPOINT` and `close()` checkpoint).
   */
  checkpointThresholdBytes?: number;
  /**
   * The most threads one statement may use for its own work (docs/execution.md): scans,
   * expansions, filters, hash aggregation, DISTINCT and sorts over large tables split across
   * them. 0 or omitted: the machine's parallelism. A connection lowers it for its own
   * statements with `CALL threads = N` (or `conn.setMaxNumThreadForExec(N)`).
   */
  queryThreads?: number;
}

/** The default of DatabaseOptions.checkpointThresholdBytes. */
export const DEFAULT_CHECKPOINT_THRESHOLD_BYTES = 16 * 1024 * 1024;

const DATABASE_OPTIONS = new Set([
  'maxThreadNum',
  'syncOnCommit',
  'queryTimeoutMs',
  'maxResultBytes',
  'maxStatementMemoryBytes',
  'writeWaitMs',
  'checkpointThresholdBytes',
  'queryThreads',
]);

/** The default of DatabaseOptions.writeWaitMs. */
export const DEFAULT_WRITE_WAIT_MS = 10_000;

/** Largest accepted maxThreadNum: each slot owns a native thread. */
export const MAX_THREAD_NUM = 256;

export const IN_MEMORY = ':memory:';

/** Checks DatabaseOptions.writeWaitMs: whole milliseconds, 0 to 2^31 - 1. */
function resolveWriteWait(value: unknown): number {
  if (value === undefined) return DEFAULT_WRITE_WAIT_MS;
  if (typeof value !== 'number' || !Number.isInteger(value)) {
    throw new TypeError(`writeWaitMs must be a whole number of milliseconds, got ${describe(value)}`);
  }
  if (value < 0 || value > 2 ** 31 - 1) {
    throw new RangeError(`writeWaitMs must be between 0 and ${2 ** 31 - 1} ms, got ${value}`);
  }
  return value;
}

/** Resolves DatabaseOptions.queryThreads like maxThreadNum (0 or omitted: the machine's). */
export function resolveQueryThreads(value: unknown): number {
  return resolveThreadCount(value, 'queryThreads');
}

/** Resolves maxThreadNum as the contract describes; throws on invalid values. */
export function resolveMaxThreadNum(value: unknown): number {
  return resolveThreadCount(value, 'maxThreadNum');
}

function resolveThreadCount(value: unknown, name: string): number {
  if (value === undefined || value === 0) {
    let parallelism = 0;
    try {
      parallelism = typeof os.availableParallelism === 'function' ? os.availableParallelism() : 0;
    } catch {
      parallelism = 0;
    }
    return Number.isInteger(parallelism) && parallelism > 0 ? parallelism : 1;
  }
  if (typeof value !== 'number' || !Number.isInteger(value)) {
    throw new TypeError(`${name} must be an integer, got ${describe(value)}`);
  }
  if (value < 0 || value > MAX_THREAD_NUM) {
    throw new RangeError(`${name} must be between 0 and ${MAX_THREAD_NUM}, got ${value}`);
  }
  return value;
}

function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return value === null ? 'null' : typeof value;
}

/** Hooks the service layer uses to take a database over. Not part of the public API. */
export interface DatabaseInternals {
  native: NativeDatabase;
  connections: Set<Connection>;
  owner: object | null;
}

const internals = new WeakMap<Database, DatabaseInternals>();

/** @internal */
export function databaseInternals(db: Database): DatabaseInternals {
  const state = internals.get(db);
  if (!state) throw new TypeError('not a Database');
  return state;
}

/**
 * An opened graph database: a folder on disk, or in memory for no path or ':memory:'.
 */
export class Database implements Disposable {
  readonly path: string;
  readonly maxThreadNum: number;
  readonly syncOnCommit: boolean;
  /** The default time limit of its connections' statements in ms (0: none). */
  readonly queryTimeoutMs: number;
  /** How long a write waits for another connection's transaction (ms). */
  readonly writeWaitMs: number;
  /** Log growth in bytes that makes the database checkpoint by itself (0: never). */
  readonly checkpointThresholdBytes: number;
  /** The most threads one statement may use (DatabaseOptions.queryThreads, resolved). */
  readonly queryThreads: number;
  readonly #limits: StatementLimits;
  #closed = false;

  constructor(path: string = IN_MEMORY, options: DatabaseOptions = {}) {
    if (typeof path !== 'string') {
      throw new TypeError(`path must be a string, got ${describe(path)}`);
    }
    if (path.includes('\0')) {
      // The file system would stop reading the path at the NUL and open another folder.
      throw new TypeError(`path must not contain NUL characters, got ${JSON.stringify(path)}`);
    }
    if (path === '') path = IN_MEMORY;
    if (options === null || typeof options !== 'object') {
      throw new TypeError('options must be an object');
    }
    for (const key of Object.keys(options)) {
      if (!DATABASE_OPTIONS.has(key)) {
        throw new TypeError(`unknown database option '${key}'`);
      }
    }
    const syncOnCommit = options.syncOnCommit ?? true;
    if (typeof syncOnCommit !== 'boolean') {
      throw new TypeError(`syncOnCommit must be a boolean, got ${describe(syncOnCommit)}`);
    }
    this.path = path;
    this.maxThreadNum = resolveMaxThreadNum(options.maxThreadNum);
    this.syncOnCommit = syncOnCommit;
    this.queryTimeoutMs =
      options.queryTimeoutMs === undefined ? 0 : checkTimeout(options.queryTimeoutMs, 'queryTimeoutMs');
    this.#limits = {
      maxResultBytes:
        options.maxResultBytes === undefined ? 0 : checkByteLimit(options.maxResultBytes, 'maxResultBytes'),
      maxMemoryBytes:
        options.maxStatementMemoryBytes === undefined
          ? 0
          : checkByteLimit(options.maxStatementMemoryBytes, 'maxStatementMemoryBytes'),
    };
    this.writeWaitMs = resolveWriteWait(options.writeWaitMs);
    this.checkpointThresholdBytes =
      options.checkpointThresholdBytes === undefined
        ? DEFAULT_CHECKPOINT_THRESHOLD_BYTES
        : checkByteLimit(options.checkpointThresholdBytes, 'checkpointThresholdBytes');
    this.queryThreads = resolveQueryThreads(options.queryThreads);
    const native = new addon.NativeDatabase(
      path,
      this.maxThreadNum,
      syncOnCommit,
      this.writeWaitMs,
      this.checkpointThresholdBytes,
      this.queryThreads,
    );
    internals.set(this, { native, connections: new Set(), owner: null });
  }

  get closed(): boolean {
    return this.#closed;
  }

  get inMemory(): boolean {
    return this.path === IN_MEMORY;
  }

  /** Commits replayed from the write-ahead logs when this database was opened. */
  get recoveredCommits(): number {
    return databaseInternals(this).native.recoveredCommits;
  }

  /**
   * What recovery warned of when this database was opened (each also printed to stderr): a
   * torn log tail dropped, log records after a gap dropped, or that the database opened
   * read-only because its recovery checkpoint could not be written (a full disk: writes and
   * CHECKPOINT answer IO_ERROR until it is reopened with free space; docs/wal-format.md, "A
   * full disk"). Empty after a clean open.
   */
  get recoveryWarnings(): readonly string[] {
    return Object.freeze(databaseInternals(this).native.recoveryWarnings);
  }

  /** Opens an embedded connection; it owns one execution slot and one native thread. */
  connect(): Connection {
    this.#checkOpen();
    const state = databaseInternals(this);
    if (state.owner) {
      throw new GraphDBError(
        'the database is served by a GraphDBService; embedded connections are closed while it runs',
        'SERVICE_UNAVAILABLE',
      );
    }
    const connection = new Connection(
      state.native,
      () => state.connections.delete(connection),
      this.queryTimeoutMs,
      this.#limits,
    );
    state.connections.add(connection);
    return connection;
  }

  /**
   * Writes a new checkpoint to the database's folder (atomically: a crash leaves the previous
   * checkpoint): the tables that changed since the last one, and a manifest that names the
   * earlier files of the others; then drops what it holds from the write-ahead logs. Runs off
   * the event loop, beside reads and writes: it waits its turn behind the write statements
   * running and a read-write transaction that has written (writers that come later wait for
   * it while it notes what is committed; docs/storage-format.md, "Checkpoints beside
   * writers"). Rejects with TX_CONFLICT when such a transaction stays open longer than
   * `writeWaitMs`. Resolves at once for in-memory databases.
   */
  async checkpoint(): Promise<void> {
    this.#checkOpen();
    await databaseInternals(this).native.checkpoint();
  }

  /** Closes every connection, checkpoints an on-disk database and closes it. Idempotent. */
  close(): void {
    if (this.#closed) return;
    const state = databaseInternals(this);
    if (state.owner) {
      throw new GraphDBError(
        'cannot close the database while a GraphDBService runs over it; close the service first',
        'SERVICE_UNAVAILABLE',
      );
    }
    for (const connection of [...state.connections]) connection.close();
    this.#closed = true;
    state.native.close();
  }

  [Symbol.dispose](): void {
    this.close();
  }

  #checkOpen(): void {
    if (this.#closed) throw new GraphDBError('the database is closed', 'CONNECTION_CLOSED');
  }
}
