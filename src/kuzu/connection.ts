// Kùzu's Connection over a native connection of GraphDB's (src/native/addon.ts), whose results
// come in Kùzu's value form (run's output 'kuzu'). Statements run as GraphDB's own API runs
// them: a short read on the calling thread at once, anything else on the connection's native
// thread; the *Sync methods on the calling thread, blocking the event loop until done.

import { GraphDBError } from '../core/errors.js';
import { whileInFlight } from '../core/loop-poll.js';
import { watchProgress } from '../core/progress.js';
import {
  addon,
  type NativeConnection,
  type PackedBatch,
  type PackedResult,
  type RunOptions,
  run,
  TypedParameter,
} from '../native/addon.js';
import { Database } from './database.js';
import { asKuzuError, PARENT_CLOSED, usageError } from './errors.js';
import { beginCloseSync, closeAfterInit } from './lifecycle.js';
import { PreparedStatement } from './prepared-statement.js';
import { QueryResult } from './query-result.js';

/**
 * Kùzu's progress callback: how far the running statement has got. GraphDB reports the
 * progress of COPY FROM, EXPORT DATABASE and IMPORT DATABASE as they run (the fraction done,
 * the steps done and their number); every statement reports (1, n, n) once it has finished,
 * before its promise settles.
 */
export type ProgressCallback = (
  pipelineProgress: number,
  numPipelinesFinished: number,
  numPipelines: number,
) => void;

/** What a query resolves to: one result, or one per statement for a text of several. */
export type QueryResults = QueryResult | QueryResult[];

const MS_PER_DAY = 86_400_000;
const KUZU_ASYNC: RunOptions = Object.freeze({ output: 'kuzu' });
const KUZU_SYNC: RunOptions = Object.freeze({ output: 'kuzu', delivery: 'sync' });
const CONNECTION_CLOSED = 'Connection is closed.';

function checkStatement(statement: unknown): asserts statement is string {
  if (typeof statement !== 'string') throw usageError('statement must be a string.');
}

function checkProgress(callback: unknown): asserts callback is ProgressCallback | undefined {
  if (callback && typeof callback !== 'function') throw usageError('progressCallback must be a function.');
}

/**
 * Parameters as Kùzu reads them: a Date is a DATE (its UTC day); everything else as GraphDB's
 * API reads it. The object is copied only when it holds a Date.
 */
function kuzuParameters(params: Record<string, unknown>): Record<string, unknown> {
  let copy: Record<string, unknown> | undefined;
  for (const name in params) {
    const value = params[name];
    if (value instanceof Date) {
      copy ??= { ...params };
      copy[name] = TypedParameter.date(Math.floor(value.getTime() / MS_PER_DAY));
    }
  }
  return copy ?? params;
}

export class Connection {
  /** @internal */
  readonly _database: Database;
  /** @internal The native connection once initialized; absent before and after. */
  _connection: NativeConnection | undefined;
  /** @internal */
  _isInitialized = false;
  /** @internal */
  _initPromise: Promise<void> | null = null;
  /** @internal */
  _isClosed = false;
  #timeoutMs = 0;
  #numThreads = 0;
  /** How statements run (RunOptions), for the async and the sync calls. */
  #async: RunOptions = KUZU_ASYNC;
  #sync: RunOptions = KUZU_SYNC;
  /** The text the native connection read last, which it keeps (sent again as null). */
  #lastText: string | null = null;
  readonly #owner = {
    connection: this,
    get databaseClosed(): boolean {
      return this.connection._database._isClosed;
    },
  };

  /**
   * `numThreads`: the most threads each statement may use (as in Kùzu; the database's
   * `queryThreads` bounds it).
   */
  constructor(database: Database, numThreads: number | null = null) {
    if (!(database instanceof Database)) throw usageError('database must be a valid Database object.');
    this._database = database;
    const threads = Number.parseInt(String(numThreads), 10);
    if (threads > 0) this.#numThreads = threads;
    this.#updateOptions();
  }

  /** Opens the connection (and its database); the first statement does it otherwise. */
  async init(): Promise<void> {
    if (this._isClosed) throw usageError(CONNECTION_CLOSED);
    if (this._isInitialized) return;
    if (this._initPromise === null) {
      this._initPromise = this._database._getDatabase().then(() => this.initSync());
    }
    try {
      await this._initPromise;
    } finally {
      this._initPromise = null;
    }
  }

  /** Opens the connection (and its database) on this thread. */
  initSync(): void {
    if (this._isClosed) throw usageError(CONNECTION_CLOSED);
    if (this._isInitialized) return;
    const db = this._database._getDatabaseSync();
    const native = new addon.NativeConnection(this._database._attach(this, db));
    const defaults = this._database._sessionDefaults;
    if (defaults !== undefined) {
      // Settings of this session that GraphDB does not act on, for current_setting to show.
      run(native, {
        source: `CALL auto_checkpoint=${defaults.autoCheckpoint}`,
        options: { delivery: 'sync' },
      });
      if (defaults.checkpointThreshold >= 0) {
        run(native, {
          source: `CALL checkpoint_threshold=${defaults.checkpointThreshold}`,
          options: { delivery: 'sync' },
        });
      }
    }
    this._connection = native;
    this._isInitialized = true;
  }

  /**
   * Checks `statement`: resolves to a PreparedStatement whose isSuccess() says whether it can
   * run, and getErrorMessage() why not. It is parsed, then bound and planned without running
   * (as `EXPLAIN` does): a syntax error, or a binder error such as a table that does not exist,
   * fails it. Binding stops at a `$parameter`, whose type is known only once `execute` gives
   * its value: what follows it is checked then.
   */
  prepare(statement: string): Promise<PreparedStatement> {
    try {
      checkStatement(statement);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.#connection().then(async (native) => {
      try {
        native.closePrepared(await native.prepare(statement));
      } catch (error) {
        return new PreparedStatement(this, statement, messageOf(error));
      }
      try {
        await this.#call<Promise<unknown>>(native, PROBE, `EXPLAIN ${statement}`, undefined);
      } catch (error) {
        if (failsPrepare(error)) return new PreparedStatement(this, statement, messageOf(error));
      }
      return new PreparedStatement(this, statement, '');
    });
  }

  /** `prepare` on this thread. */
  prepareSync(statement: string): PreparedStatement {
    checkStatement(statement);
    const native = this.#connectionSync();
    try {
      native.closePrepared(native.prepare(statement, true));
    } catch (error) {
      return new PreparedStatement(this, statement, messageOf(error));
    }
    try {
      this.#call(native, PROBE_SYNC, `EXPLAIN ${statement}`, undefined);
    } catch (error) {
      if (failsPrepare(error)) return new PreparedStatement(this, statement, messageOf(error));
    }
    return new PreparedStatement(this, statement, '');
  }

  /** Runs a prepared statement with `params` (a plain object of its `$parameters`' values). */
  execute(
    preparedStatement: PreparedStatement,
    params: Record<string, unknown> = {},
    progressCallback?: ProgressCallback,
  ): Promise<QueryResults> {
    try {
      this.#checkExecute(preparedStatement, params);
      checkProgress(progressCallback);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.#submit(preparedStatement._text, kuzuParameters(params), progressCallback);
  }

  executeSync(preparedStatement: PreparedStatement, params: Record<string, unknown> = {}): QueryResults {
    this.#checkExecute(preparedStatement, params);
    return this.#runSync(preparedStatement._text, kuzuParameters(params));
  }

  /**
   * Runs `statement`: a QueryResult, or an array of them for a text of several statements
   * (which GraphDB runs as one transaction: all of them or none).
   */
  query(statement: string, progressCallback?: ProgressCallback): Promise<QueryResults> {
    try {
      checkStatement(statement);
      checkProgress(progressCallback);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.#submit(statement, undefined, progressCallback);
  }

  /** Runs `statement` on this thread: the event loop waits until it has finished. */
  querySync(statement: string): QueryResults {
    checkStatement(statement);
    return this.#runSync(statement, undefined);
  }

  /** Accepted, as the constructor's `numThreads`. */
  setMaxNumThreadForExec(numThreads: number): void {
    if (typeof numThreads !== 'number' || !numThreads || numThreads < 0) {
      throw usageError('numThreads must be a positive number.');
    }
    this.#numThreads = numThreads;
    this.#updateOptions();
  }

  /** The time limit of each later statement, in ms: past it, it stops with "Interrupted.". */
  setQueryTimeout(timeoutInMs: number): void {
    if (typeof timeoutInMs !== 'number' || Number.isNaN(timeoutInMs) || timeoutInMs <= 0) {
      throw usageError('timeoutInMs must be a positive number.');
    }
    this.#timeoutMs = timeoutInMs;
    this.#updateOptions();
  }

  /** Closes the connection. Idempotent. */
  close(): Promise<void> {
    return closeAfterInit(this);
  }

  closeSync(): void {
    if (!beginCloseSync(this)) return;
    this._release();
    this._database._detach(this);
    this._isInitialized = true;
    this._isClosed = true;
  }

  /** @internal Closes the native connection (its database is closing, or it is). */
  _release(): void {
    this._connection?.close();
    this._connection = undefined;
  }

  /** @internal The threads asked for (no effect on GraphDB). */
  get _numThreads(): number {
    return this.#numThreads;
  }

  #updateOptions(): void {
    const timeoutMs = this.#timeoutMs > 0 ? Math.max(1, Math.round(this.#timeoutMs)) : undefined;
    const access = this._database._readOnly ? ('read' as const) : undefined;
    // Kùzu's threads per statement: the engine's per-statement thread budget (docs/execution.md),
    // never above the database's.
    const queryThreads = this.#numThreads > 0 ? Math.min(256, Math.floor(this.#numThreads)) : undefined;
    // Frozen: run() packs frozen options once (src/native/addon.ts, packOptions).
    this.#async = Object.freeze({ output: 'kuzu', timeoutMs, access, queryThreads });
    this.#sync = Object.freeze({ output: 'kuzu', delivery: 'sync', timeoutMs, access, queryThreads });
  }

  #checkExecute(preparedStatement: unknown, params: unknown): asserts preparedStatement is PreparedStatement {
    if (!(preparedStatement instanceof PreparedStatement)) {
      throw usageError('preparedStatement must be a valid PreparedStatement object.');
    }
    if (!preparedStatement.isSuccess()) throw usageError(preparedStatement.getErrorMessage());
    if (params === null || typeof params !== 'object' || params.constructor !== Object) {
      throw usageError('params must be a plain object.');
    }
  }

  #submit(
    text: string,
    params: Record<string, unknown> | undefined,
    progress: ProgressCallback | undefined,
  ): Promise<QueryResults> {
    const native = this._connection;
    if (native === undefined || progress !== undefined || this._database._isClosed) {
      return this.#connection().then((native) => this.#start(native, text, params, progress));
    }
    return this.#start(native, text, params, undefined);
  }

  #start(
    native: NativeConnection,
    text: string,
    params: Record<string, unknown> | undefined,
    progress: ProgressCallback | undefined,
  ): Promise<QueryResults> {
    let submitted: Promise<PackedResult | PackedBatch> | PackedResult | PackedBatch;
    try {
      submitted = this.#call(native, this.#async, text, params);
    } catch (error) {
      return Promise.reject(asKuzuError(error));
    }
    if (progress !== undefined) submitted = reportProgress(native, submitted, progress);
    // A result computed on this thread is a value (no promise to translate the error of).
    if (submitted instanceof Promise) submitted = submitted.catch(rethrowAsKuzu);
    return whileInFlight(submitted, this.#wrap);
  }

  #runSync(text: string, params: Record<string, unknown> | undefined): QueryResults {
    const native = this.#connectionSync();
    try {
      return this.#wrap(this.#call(native, this.#sync, text, params) as PackedResult | PackedBatch);
    } catch (error) {
      throw asKuzuError(error);
    }
  }

  #call<R>(
    native: NativeConnection,
    options: RunOptions,
    text: string,
    params: Record<string, unknown> | undefined,
  ): R {
    const source = text === this.#lastText ? null : text;
    this.#lastText = null; // unknown until the call has returned
    const result = run(native, { source, params, options }) as R;
    this.#lastText = text;
    return result;
  }

  readonly #wrap = (packed: PackedResult | PackedBatch): QueryResults => {
    if (!('results' in packed)) return new QueryResult(this.#owner, packed);
    return packed.results.map((one) => new QueryResult(this.#owner, one));
  };

  async #connection(): Promise<NativeConnection> {
    if (this._isClosed) throw usageError(CONNECTION_CLOSED);
    if (this._database._isClosed) throw usageError(PARENT_CLOSED);
    await this.init();
    return this.#native();
  }

  #connectionSync(): NativeConnection {
    if (this._isClosed) throw usageError(CONNECTION_CLOSED);
    if (this._database._isClosed) throw usageError(PARENT_CLOSED);
    this.initSync();
    return this.#native();
  }

  #native(): NativeConnection {
    if (this._connection === undefined) throw new GraphDBError(PARENT_CLOSED, 'CONNECTION_CLOSED');
    return this._connection;
  }
}

/** How `prepare` runs its EXPLAIN probe (the plan is not wanted: its text output is cheapest). */
const PROBE: RunOptions = Object.freeze({ output: 'text', delivery: 'worker' });
const PROBE_SYNC: RunOptions = Object.freeze({ output: 'text', delivery: 'sync' });

/**
 * Whether an error of `prepare`'s EXPLAIN probe means the statement cannot run: a syntax or
 * binder error. Others (a `$parameter` without a value, a statement EXPLAIN does not take)
 * leave it to `execute`.
 */
function failsPrepare(error: unknown): boolean {
  return error instanceof GraphDBError && (error.code === 'QUERY_SYNTAX' || error.code === 'QUERY_BINDING');
}

function messageOf(error: unknown): string {
  const kuzu = asKuzuError(error);
  return kuzu instanceof Error ? kuzu.message : String(kuzu);
}

function rethrowAsKuzu(error: unknown): never {
  throw asKuzuError(error);
}

/** Reports `submitted`'s progress to `callback` as Kùzu's pipelines, and (1, n, n) at its end. */
function reportProgress<T>(
  native: NativeConnection,
  submitted: Promise<T> | T,
  callback: ProgressCallback,
): Promise<T> {
  let steps = 0;
  const watched = watchProgress(native, submitted, (progress) => {
    steps = progress.stepsTotal;
    callback(progress.fraction, progress.stepsDone, progress.stepsTotal);
  });
  return Promise.resolve(watched).then((value) => {
    const total = Math.max(1, steps);
    callback(1, total, total);
    return value;
  });
}
