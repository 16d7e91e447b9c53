import {
  addon,
  type NativeConnection,
  type NativeDatabase,
  type PackedBatch,
  type PackedResult,
  type RawTextResult,
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

/** Parameters with more names than this go to the native side as the object itself. */
const MAX_PAIRED_PARAMETERS = 1000;

/**
 * A native statement method: (text, params?) or (text, name, value, name, value...); for a
 * prepared statement, its id in place of the text.
 */
type StatementMethod<R, Head = string | null> = (this: NativeConnection, head: Head, ...rest: unknown[]) => R;

/**
 * Calls a native statement method with the text, then the parameters as name, value, name,
 * value..., which the native side reads far faster than an object's properties (the names
 * `for...in` visits, as the native side would enumerate them). One or two parameters go
 * without building an array; so many that the call could overflow the stack go as the object.
 * `text` null means the text of the statement the native connection read last.
 */
function callStatement<R, Head extends string | number | null>(
  native: NativeConnection,
  method: StatementMethod<R, Head>,
  text: Head,
  params: QueryParameters | undefined,
): R {
  if (params === undefined) return method.call(native, text);
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
      return method.apply(native, statementArguments(text, params));
    }
    count++;
  }
  if (count === 0) return method.call(native, text);
  if (count === 1) return method.call(native, text, name0, value0);
  return method.call(native, text, name0, value0, name1, value1);
}

/** The arguments of a native statement call with many parameters (see callStatement). */
function statementArguments<Head>(text: Head, params: QueryParameters): [Head, ...unknown[]] {
  const args: [Head, ...unknown[]] = [text];
  for (const name in params) args.push(name, params[name]);
  if (args.length > 1 + 2 * MAX_PAIRED_PARAMETERS) return [text, params];
  return args;
}

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
      // A text of several statements gives a PackedBatch (NativeConnection.query).
      const submitted = this.#submit(this.#open().query, text, params, options) as
        | Promise<PackedResult | PackedBatch>
        | PackedResult
        | PackedBatch;
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
    return whileInFlight(this.#submit(this.#open().queryText, text, params, options), same);
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
    return this.#openStream(native, query, batchSize, () => this.#call(native.openCursor, text, params));
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
          this.#controlled(options, () => callStatement(native, native.runPrepared, id, params)),
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
      return this.#openStream(native, query, batchSize, () =>
        callStatement(native, native.openPreparedCursor, id, params),
      );
    },
    release: (id) => {
      this.#native?.closePrepared(id);
    },
  };

  /** A RowStream over the cursor that `open` opens, under `options` for its whole life. */
  #openStream(
    native: NativeConnection,
    options: QueryOptions | undefined,
    batchSize: number,
    open: () => Promise<PackedResult>,
  ): RowStream {
    const control = resolveQueryOptions(options, this.#defaultTimeoutMs, this.#limits);
    let cancel: () => void = noop;
    control.onSubmitted = (stop) => {
      cancel = stop;
    };
    let opened: Promise<PackedResult>;
    try {
      opened = Promise.resolve(submitControlled(native, control, open));
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
      this.#submit(this.#open().querySync, text, params, undefined) as PackedResult | PackedBatch,
    );
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

  /** `#call` under the statement's time limit and signal (src/core/statement-control.ts). */
  #submit<T>(
    method: StatementMethod<Promise<T> | T>,
    text: string,
    params: QueryParameters | undefined,
    options: QueryOptions | undefined,
  ): Promise<T> | T {
    return this.#controlled(options, () => this.#call(method, text, params));
  }

  /** `submit()` (a native statement call) under the time limit and signal of `options`. */
  #controlled<T>(options: QueryOptions | undefined, submit: () => Promise<T> | T): Promise<T> | T {
    const native = this.#open();
    if (options === undefined && this.#defaultTimeoutMs === 0 && this.#limits === undefined) {
      return submit();
    }
    const control = resolveQueryOptions(options, this.#defaultTimeoutMs, this.#limits);
    return submitControlled(native, control, submit);
  }

  /** Calls a statement method of the open native connection with `text` and `params`. */
  #call<R>(method: StatementMethod<R>, text: string, params: QueryParameters | undefined): R {
    const native = this.#open();
    const sent = text === this.#lastText ? null : text;
    this.#lastText = null; // unknown until the call has returned
    const result = callStatement(native, method, sent, params);
    this.#lastText = text;
    return result;
  }

  #open(): NativeConnection {
    if (!this.#native) throw new GraphDBError('the connection is closed', 'CONNECTION_CLOSED');
    return this.#native;
  }
}
