// Result streams of the embedded API (docs/concurrency.md, "Result streams"): the rows of one
// statement, fetched from the connection's native cursor a batch at a time as they are
// consumed.

import { type NativeConnection, type PackedResult, rowsOf, summaryOf } from '../native/addon.js';
import { GraphDBError } from './errors.js';
import type { QuerySummary } from './query-result.js';
import { type QueryOptions, resolveQueryOptions } from './statement-control.js';
import type { CypherValue } from './values.js';

export interface StreamOptions extends QueryOptions {
  /**
   * Rows fetched from the engine at a time (default 1000, at most 1048576). The engine
   * produces the next batch only when the loop has consumed this one, so memory holds one
   * batch, however large the result.
   */
  batchSize?: number;
}

export const DEFAULT_BATCH_SIZE = 1000;
const MAX_BATCH_SIZE = 1 << 20;

/** @internal `options` without `batchSize` (checked), and the batch size. */
export function splitStreamOptions(options: StreamOptions | undefined): {
  query: QueryOptions | undefined;
  batchSize: number;
} {
  if (options === undefined) return { query: undefined, batchSize: DEFAULT_BATCH_SIZE };
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    throw new TypeError('stream options must be an object');
  }
  const { batchSize, ...query } = options;
  if (batchSize === undefined) return { query, batchSize: DEFAULT_BATCH_SIZE };
  if (
    typeof batchSize !== 'number' ||
    !Number.isInteger(batchSize) ||
    batchSize < 1 ||
    batchSize > MAX_BATCH_SIZE
  ) {
    throw new RangeError(
      `stream option batchSize must be a whole number from 1 to ${MAX_BATCH_SIZE}, got ${String(batchSize)}`,
    );
  }
  return { query, batchSize };
}

/** @internal Validates stream options over a connection's default time limit. */
export function checkStreamOptions(options: StreamOptions | undefined, defaultTimeoutMs: number): void {
  resolveQueryOptions(splitStreamOptions(options).query, defaultTimeoutMs);
}

function noop(): void {}

/** What closing a dropped stream's cursor needs, without the stream itself. */
interface DroppedCursor {
  native: NativeConnection;
  opened: Promise<PackedResult>;
}

/**
 * Closes the cursor of a stream that was dropped while it still held one (neither read to its
 * end nor closed): an open cursor keeps its connection from running anything else (SLOT_BUSY)
 * and pins its snapshot, so DDL and COPY wait on it and CHECKPOINT refuses. Garbage
 * collection decides when, so this is a safety net, not a substitute for `close()`,
 * `break` or `await using`. A stream that ended unregisters itself, so a later stream of the
 * same connection is never the one closed here.
 */
const droppedCursors = new FinalizationRegistry<DroppedCursor>(({ native, opened }) => {
  opened.then(() => native.closeCursor()).catch(noop); // a closed connection closed it already
});

/**
 * The rows of one statement as an async iterable: `for await (const row of conn.stream(...))`.
 * Each row is an array of cells in column order, as `QueryResult.rows` holds them.
 *
 * A read query runs as the loop goes: the engine produces the next batch of rows only when
 * the loop has consumed the last one. Leaving the loop early (`break`, `return`, an exception)
 * stops the statement and closes the stream; so do `close()` and the end of an
 * `await using` block. Any other statement (one that writes, DDL ...) runs to its end (and
 * commits) when the stream opens, and its rows are then handed out in batches.
 *
 * While the stream is open its connection runs no other statement (SLOT_BUSY): read it to its
 * end or close it first, or use another connection. Its time limit (`timeoutMs`) covers the
 * whole stream, the time the loop takes included; the signal stops it at any point.
 */
export class RowStream implements AsyncIterableIterator<CypherValue[]>, AsyncDisposable {
  readonly #native: NativeConnection;
  readonly #batchSize: number;
  readonly #opened: Promise<PackedResult>;
  readonly #signal: AbortSignal | undefined;
  readonly #onAbort: () => void;
  #columns: readonly string[] = [];
  #types: readonly string[] = [];
  #rows: unknown[][] = [];
  #index = 0;
  #isOpen = false;
  /** No more batches: the last one came, the stream failed, or it was closed. */
  #ended = false;
  #count = 0;
  #summary: QuerySummary | null = null;
  #closing: Promise<void> | null = null;

  /**
   * @internal Made by `Connection.stream` and `PreparedStatement.stream`: `opened` is the open
   * call already submitted; `cancel` stops the statement (its signal's abort).
   */
  constructor(
    native: NativeConnection,
    opened: Promise<PackedResult>,
    batchSize: number,
    signal: AbortSignal | undefined,
    cancel: () => void,
  ) {
    this.#native = native;
    this.#batchSize = batchSize;
    this.#opened = opened;
    opened.catch(noop); // reported by next(), not as an unhandled rejection
    this.#signal = signal;
    this.#onAbort = cancel;
    signal?.addEventListener('abort', cancel, { once: true });
    droppedCursors.register(this, { native, opened }, this);
  }

  /** The column names, once the stream has opened (after the first `next()`); else empty. */
  get columns(): readonly string[] {
    return this.#columns;
  }

  /** The column types, like `columns`. */
  get types(): readonly string[] {
    return this.#types;
  }

  /** The statement's summary once every row was read (rowCount: the rows handed out); else null. */
  get summary(): QuerySummary | null {
    return this.#summary;
  }

  /** Whether the stream has no more rows to give (read to its end, failed or closed). */
  get closed(): boolean {
    return this.#ended && this.#index >= this.#rows.length;
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  async next(): Promise<IteratorResult<CypherValue[], undefined>> {
    for (;;) {
      if (this.#index < this.#rows.length) {
        return { value: this.#rows[this.#index++] as CypherValue[], done: false };
      }
      if (this.#ended) return { value: undefined, done: true };
      await this.#fetch();
    }
  }

  /** Leaving a `for await` loop early: closes the stream. */
  async return(): Promise<IteratorResult<CypherValue[], undefined>> {
    await this.close();
    return { value: undefined, done: true };
  }

  /**
   * Stops the statement (a fetch in flight stops within a fraction of a millisecond) and
   * closes the stream; rows not yet read are dropped. Idempotent.
   */
  close(): Promise<void> {
    if (this.#closing) return this.#closing;
    this.#rows = [];
    this.#index = 0;
    const wasEnded = this.#ended;
    this.#end();
    this.#closing = wasEnded
      ? Promise.resolve()
      : this.#opened.then(
          () => this.#native.closeCursor(),
          () => undefined,
        );
    return this.#closing;
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  async #fetch(): Promise<void> {
    try {
      if (!this.#isOpen) {
        const header = await this.#opened;
        this.#isOpen = true;
        this.#columns = header[0];
        this.#types = header[1];
        if (this.#ended) return; // closed meanwhile
      }
      const [packed, done] = await this.#native.fetch(this.#batchSize);
      if (this.#ended) return; // closed meanwhile
      this.#rows = rowsOf(packed);
      this.#index = 0;
      this.#count += this.#rows.length;
      if (done) {
        const summary = summaryOf(packed, this.#rows);
        summary.rowCount = this.#count;
        this.#summary = summary;
        this.#end();
      }
    } catch (error) {
      this.#end();
      if (this.#signal?.aborted && error instanceof GraphDBError && error.code === 'QUERY_CANCELLED') {
        error.cause = this.#signal.reason;
      }
      throw error;
    }
  }

  #end(): void {
    if (!this.#ended) droppedCursors.unregister(this);
    this.#ended = true;
    this.#signal?.removeEventListener('abort', this.#onAbort);
  }
}
