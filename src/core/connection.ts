import {
  addon,
  type NativeConnection,
  type NativeDatabase,
  type PackedResult,
  type RawTextResult,
  type StatementArguments,
} from '../native/addon.js';
import { GraphDBError } from './errors.js';
import { same, whileInFlight } from './loop-poll.js';
import { QueryResult } from './query-result.js';

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
 * The arguments of a native statement call: the text, then the parameters as name, value,
 * name, value..., which the native side reads far faster than an object's properties (the
 * names `for...in` visits, as the native side would enumerate them, each value read after all
 * names). So many parameters that the call could overflow the stack go as the object.
 */
function statementArguments(text: string, params: QueryParameters | undefined): StatementArguments {
  const args: StatementArguments = [text];
  if (params === undefined) return args;
  for (const name in params) args.push(name, undefined);
  if (args.length > 1 + 2 * MAX_PAIRED_PARAMETERS) return [text, params];
  for (let i = 1; i < args.length; i += 2) args[i + 1] = params[args[i] as string];
  return args;
}

function toQueryResult(packed: PackedResult): QueryResult {
  return new QueryResult(packed);
}

/**
 * An embedded connection. Statements run one at a time, in the order they were submitted;
 * each is its own transaction.
 */
export class Connection implements Disposable {
  #native: NativeConnection | null;
  readonly #onClose: () => void;

  /** @internal Use `db.connect()`. */
  constructor(db: NativeDatabase, onClose: () => void) {
    this.#native = new addon.NativeConnection(db);
    this.#onClose = onClose;
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
   * `GRAPHDB_INLINE_READS=0` turns that off.
   */
  query(text: string, params?: QueryParameters): Promise<QueryResult> {
    try {
      checkArguments(text, params);
      return whileInFlight(this.#open().query(...statementArguments(text, params)), toQueryResult);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /**
   * Like `query`, but every cell is the value's text form as Kùzu prints it (`True`,
   * `1.500000`, `[1,2]`, `{_ID: 0:0, _LABEL: person, ...}`; NULL as ''). Used by the CLI's
   * table output and the conformance runner.
   */
  async queryText(text: string, params?: QueryParameters): Promise<RawTextResult> {
    checkArguments(text, params);
    return whileInFlight(this.#open().queryText(...statementArguments(text, params)), same);
  }

  /** Runs a statement inline on the calling thread, after any statements already queued. */
  querySync(text: string, params?: QueryParameters): QueryResult {
    checkArguments(text, params);
    return new QueryResult(this.#open().querySync(...statementArguments(text, params)));
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

  #open(): NativeConnection {
    if (!this.#native) throw new GraphDBError('the connection is closed', 'CONNECTION_CLOSED');
    return this.#native;
  }
}
