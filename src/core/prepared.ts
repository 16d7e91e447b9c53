// Prepared statements of the embedded API: a statement parsed once, whose plan is kept and
// reused while the schema and the parameter types stay the same.

import { GraphDBError } from './errors.js';
import type { QueryResult } from './query-result.js';
import type { QueryOptions } from './statement-control.js';
import type { RowStream, StreamOptions } from './stream.js';
import type { ResultRow } from './values.js';

/** @internal What a prepared statement asks of its connection. */
export interface PreparedHost {
  run<Row extends object>(
    id: number,
    params: Record<string, unknown> | undefined,
    options: QueryOptions | undefined,
  ): Promise<QueryResult<Row>>;
  stream(
    id: number,
    params: Record<string, unknown> | undefined,
    options: StreamOptions | undefined,
  ): RowStream;
  release(id: number): void;
}

/**
 * One statement prepared on a connection by `conn.prepare(text)`: each `run` or `stream`
 * skips the parser, and the binder and planner while its plan fits (same schema, parameters
 * of the same types; otherwise the plan is made again and kept). It runs on its connection,
 * in the connection's order, and is unusable once closed or once the connection is closed
 * (CONNECTION_CLOSED).
 */
export class PreparedStatement implements Disposable {
  readonly text: string;
  readonly #host: PreparedHost;
  readonly #id: number;
  #closed = false;

  /** @internal Made by `Connection.prepare`. */
  constructor(host: PreparedHost, id: number, text: string) {
    this.#host = host;
    this.#id = id;
    this.text = text;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Runs the statement with `params`, as `conn.query(text, params, options)` would. */
  run<Row extends object = ResultRow>(
    params?: Record<string, unknown>,
    options?: QueryOptions,
  ): Promise<QueryResult<Row>> {
    if (this.#closed) return Promise.reject(closedError());
    return this.#host.run<Row>(this.#id, params, options);
  }

  /** Streams the statement's rows, as `conn.stream(text, params, options)` would. */
  stream(params?: Record<string, unknown>, options?: StreamOptions): RowStream {
    if (this.#closed) throw closedError();
    return this.#host.stream(this.#id, params, options);
  }

  /** Releases the statement and its plan; runs already submitted finish. Idempotent. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#host.release(this.#id);
  }

  [Symbol.dispose](): void {
    this.close();
  }
}

function closedError(): GraphDBError {
  return new GraphDBError('the prepared statement is closed', 'CONNECTION_CLOSED');
}
