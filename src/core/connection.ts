import {
  addon,
  type NativeConnection,
  type NativeDatabase,
  type PackedBatch,
  type PackedResult,
  type RawTextResult,
  type RunOptions,
  run,
} from '../native/addon.js';
import { GraphDBError } from './errors.js';
import { same, whileInFlight } from './loop-poll.js';
import { type PreparedHost, PreparedStatement } from './prepared.js';
import { watchProgress } from './progress.js';
import { QueryResult } from './query-result.js';
import {
  type QueryOptions,
  resolveQueryOptions,
  type StatementLimits,
  submitControlled,
} from './statement-control.js';
import { RowStream, type StreamOptions, splitStreamOptions } from './stream.js';
import type { ResultRow } from './values.js';

export type { QueryOptions } from './statement-control.js';

export type QueryParameters = Record<string, unknown>;

function checkArguments(text: unknown, params: unknown): void {
  if (typeof text !== 'string') {
    throw new TypeError(`query text must be a string, got ${text === null ? 'null' : typeof text}`);
  }
  if (params !== undefined && (params === null || typeof params !== 'object' || Array.isArray(params))) {
    throw new TypeError('query parameters must be a plain object');
  }
}

/**
 * How each kind of call runs its statement (RunOptions; undefined: query's, the defaults);
 * frozen, as options the native side may keep what it read from.
 */
const TEXT: RunOptions = Object.freeze({ output: 'text' });
const SYNC: RunOptions = Object.freeze({ delivery: 'sync' });
const CURSOR: RunOptions = Object.freeze({ delivery: 'cursor' });
const PREPARED: RunOptions = Object.freeze({ source: 'prepared', delivery: 'worker' });
const PREPARED_CURSOR: RunOptions = Object.freeze({ source: 'prepared', delivery: 'cursor' });

function noop(): void {}

function toQueryResult<Row extends object>(packed: PackedResult | PackedBatch): QueryResult<Row> {
  return QueryResult.of<Row>(packed);
}

/**
 * An embedded connection. Statements run one at a time, in the order they were submitted;
 * each is its own transaction (the statements of one text, together), unless one was begun.
 */
export class Connection implements Disposable {
  #native: NativeConnection | null;
  readonly #onClose: () => void;
  /** The time limit of statements without a `timeoutMs` of their own (ms, 0: none). */
  readonly #defaultTimeoutMs: number;
  /** The database's result and memory limits of statements, when it has any. */
  readonly #limits: StatementLimits | undefined;
  /**
   * The text of the last statement the native connection read, which it keeps: the same text
   * again goes as null, sparing its conversion. Null while unknown (after a failed call).
   */
  #lastText: string | null = null;

  /** @internal Use `db.connect()`. */
  constructor(db: NativeDatabase, onClose: () => void, defaultTimeoutMs = 0, limits?: StatementLimits) {
    this.#native = new addon.NativeConnection(db);
    this.#onClose = onClose;
    this.#defaultTimeoutMs = defaultTimeoutMs;
    this.#limits =
      limits !== undefined && (limits.maxResultBytes > 0 || limits.maxMemoryBytes > 0) ? limits : undefined;
  }

  get closed(): boolean {
    return this.#native === null;
  }

  /** Statements submitted and not yet settled. */
  get pending(): number {
    return this.#native?.pending ?? 0;
  }

  /**
   * Runs a statement on the connection's native thread, so the event loop keeps running. A
   * short read (one that finishes within a small work budget, such as key lookups and reads
   * of a few hops; see docs/concurrency.md) on a connection with nothing queued runs at once
   * on the calling thread instead, which costs less than the hand-off;
   * `GRAPHDB_INLINE_READS=0` turns that off. Either way the event loop gets a turn at least
   * every millisecond of inline work (GRAPHDB_INLINE_SLICE_US).
   *
   * `options.timeoutMs` limits its time (QUERY_TIMEOUT past it), `options.signal` cancels it
   * (QUERY_CANCELLED); either way its writes are undone and the connection is usable at once.
   * `options.onProgress` hears how far a COPY FROM, EXPORT or IMPORT DATABASE has got.
   *
   * `Row` types the objects of `toObjects()`: `conn.query<{ name: string }>(...)`.
   *
   * A text of several statements (`'A; B; C'`) runs as one transaction, all or nothing, and
   * resolves to the last one's result, whose `results` holds each statement's (README,
   * "Embedded API").
   */
  query<Row extends object = ResultRow>(
    text: string,
    params?: QueryParameters,
    options?: QueryOptions,
  ): Promise<QueryResult<Row>> {
    try {
      checkArguments(text, params);
      // A text of several statements gives a PackedBatch (native/napi/convert.cc).
      const submitted = this.#submit<PackedResult | PackedBatch>(undefined, text, params, options);
      const onProgress = options?.onProgress;
      return whileInFlight(
        onProgress === undefined ? submitted : watchProgress(this.#open(), submitted, onProgress),
        toQueryResult<Row>,
      );
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /**
   * Like `query`, but every cell is the value's text form as Kùzu prints it (`True`,
   * `1.500000`, `[1,2]`, `{_ID: 0:0, _LABEL: person, ...}`; NULL as ''). Used by the CLI's
   * table output and the conformance runner.
   */
  async queryText(text: string, params?: QueryParameters, options?: QueryOptions): Promise<RawTextResult> {
    checkArguments(text, params);
    return whileInFlight(this.#submit<RawTextResult>(TEXT, text, params, options), same);
  }

  /**
   * Runs a statement and hands its rows out as they are read: `for await (const row of
   * conn.stream(text, params))`. A read query runs as the loop goes, a batch of
   * `options.batchSize` rows (default 1000) at a time, so memory stays bounded however large
   * the result; `break` stops it. See `RowStream` for the details (one stream per connection
   * at a time; `timeoutMs` covers the whole stream).
   */
  stream(text: string, params?: QueryParameters, options?: StreamOptions): RowStream {
    checkArguments(text, params);
    const { query, batchSize } = splitStreamOptions(options);
    const native = this.#open();
    return this.#openStream(
      native,
      query,
      batchSize,
      (options) => this.#call<Promise<PackedResult>>(options, text, params),
      CURSOR,
    );
  }

  /**
   * Prepares one statement to run many times: resolves to a `PreparedStatement` whose `run`
   * and `stream` skip parsing and planning. Rejects with the statement's syntax error, or
   * INVALID_REQUEST for a text of several statements.
   */
  async prepare(text: string): Promise<PreparedStatement> {
    checkArguments(text, undefined);
    const id = await this.#open().prepare(text);
    return new PreparedStatement(this.#preparedHost, id, text);
  }

  /** How this connection's prepared statements run. */
  readonly #preparedHost: PreparedHost = {
    run: <Row extends object>(
      id: number,
      params: QueryParameters | undefined,
      options: QueryOptions | undefined,
    ): Promise<QueryResult<Row>> => {
      try {
        checkArguments('', params);
        const native = this.#open();
        return whileInFlight(
          this.#controlled(
            options,
            (run_options) =>
              run(native, { source: id, params, options: run_options }) as Promise<PackedResult>,
            PREPARED,
          ),
          toQueryResult<Row>,
        );
      } catch (error) {
        return Promise.reject(error);
      }
    },
    stream: (id, params, options) => {
      checkArguments('', params);
      const { query, batchSize } = splitStreamOptions(options);
      const native = this.#open();
      return this.#openStream(
        native,
        query,
        batchSize,
        (options) => run(native, { source: id, params, options }) as Promise<PackedResult>,
        PREPARED_CURSOR,
      );
    },
    release: (id) => {
      this.#native?.closePrepared(id);
    },
  };

  /**
   * A RowStream over the cursor that `open` opens (with the run options it is given, `base`
   * under the limits of `options`), under `options` for its whole life.
   */
  #openStream(
    native: NativeConnection,
    options: QueryOptions | undefined,
    batchSize: number,
    open: (options: RunOptions | undefined) => Promise<PackedResult>,
    base: RunOptions,
  ): RowStream {
    const control = resolveQueryOptions(options, this.#defaultTimeoutMs, this.#limits);
    let cancel: () => void = noop;
    control.onSubmitted = (stop) => {
      cancel = stop;
    };
    let opened: Promise<PackedResult>;
    try {
      opened = Promise.resolve(submitControlled(native, control, open, base));
    } catch (error) {
      opened = Promise.reject(error);
    }
    return new RowStream(native, opened, batchSize, control.signal, () => cancel());
  }

  /**
   * Stops every statement of this connection in flight now: the running one within a fraction
   * of a millisecond, the queued ones before they start. Each rejects with QUERY_CANCELLED and
   * its writes are undone; statements submitted afterwards run as usual. Returns how many were
   * stopped (0 on a closed connection).
   */
  interrupt(): number {
    return this.#native ? this.#native.interrupt() : 0;
  }

  /**
   * Runs a statement inline on the calling thread, after any statements already queued. The
   * database's `queryTimeoutMs`, `maxResultBytes` and `maxStatementMemoryBytes` apply to it as
   * to `query` (the engine checks them as it runs; nothing can cancel it from JavaScript).
   */
  querySync<Row extends object = ResultRow>(text: string, params?: QueryParameters): QueryResult<Row> {
    checkArguments(text, params);
    return QueryResult.of<Row>(
      this.#submit<PackedResult | PackedBatch>(SYNC, text, params, undefined) as PackedResult | PackedBatch,
    );
  }

  /**
   * The most threads this connection's statements may use from now on (Kùzu's
   * `setMaxNumThreadForExec`): `CALL threads = n`. 0: the database's `queryThreads`; above it,
   * the database's `queryThreads` holds. Runs after any statements already queued.
   */
  setMaxNumThreadForExec(threads: number): void {
    if (typeof threads !== 'number' || !Number.isInteger(threads) || threads < 0 || threads > 256) {
      throw new RangeError(`threads must be an integer between 0 and 256, got ${String(threads)}`);
    }
    this.querySync(`CALL threads=${threads}`);
  }

  /**
   * Closes the connection. Statements still queued are rejected with CONNECTION_CLOSED; the
   * running one completes. Idempotent.
   */
  close(): void {
    if (!this.#native) return;
    const native = this.#native;
    this.#native = null;
    native.close();
    this.#onClose();
  }

  /** @internal Whether a statement is queued or running. */
  get busy(): boolean {
    return (this.#native?.pending ?? 0) > 0;
  }

  [Symbol.dispose](): void {
    this.close();
  }

  /** `#call` of `base` under the statement's time limit and signal (statement-control.ts). */
  #submit<T>(
    base: RunOptions | undefined,
    text: string,
    params: QueryParameters | undefined,
    options: QueryOptions | undefined,
  ): Promise<T> | T {
    return this.#controlled(
      options,
      (run_options) => this.#call<Promise<T> | T>(run_options, text, params),
      base,
    );
  }

  /** `submit()` (a `run` call) with `base` under the time limit and signal of `options`. */
  #controlled<T>(
    options: QueryOptions | undefined,
    submit: (options: RunOptions | undefined) => Promise<T> | T,
    base?: RunOptions,
  ): Promise<T> | T {
    const native = this.#open();
    if (options === undefined && this.#defaultTimeoutMs === 0 && this.#limits === undefined) {
      return submit(base);
    }
    const control = resolveQueryOptions(options, this.#defaultTimeoutMs, this.#limits);
    return submitControlled(native, control, submit, base);
  }

  /** Runs `text` with `params` on the open native connection, as `options` say. */
  #call<R>(options: RunOptions | undefined, text: string, params: QueryParameters | undefined): R {
    const native = this.#open();
    const sent = text === this.#lastText ? null : text;
    this.#lastText = null; // unknown until the call has returned
    const result = run(native, { source: sent, params, options }) as R;
    this.#lastText = text;
    return result;
  }

  #open(): NativeConnection {
    if (!this.#native) throw new GraphDBError('the connection is closed', 'CONNECTION_CLOSED');
    return this.#native;
  }
}
