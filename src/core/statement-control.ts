// Time limits and cancellation of statements (docs/concurrency.md, "Time limits and
// cancellation").
//
// A statement sent to a connection's native thread carries a token and its time limit (options
// of its `run` call, src/native/addon.ts). The engine stops it at its
// deadline by itself, polling the clock as it works; a JS timer at the same deadline also
// cancels it when it is still queued behind another statement, and an AbortSignal cancels it by
// its token. A statement that ran inline (a short read: a value instead of a promise) was over
// before anything could stop it and needs none of this.

import type { AccessModeName, NativeConnection, RunOptions } from '../native/addon.js';
import { GraphDBError } from './errors.js';
import { checkProgressCallback, type QueryProgress } from './progress.js';

export interface QueryOptions {
  /**
   * Time limit in milliseconds, counted from the call (time queued behind the connection's
   * other statements counts too). Past it the statement stops, its writes are undone, and the
   * promise rejects with QUERY_TIMEOUT. 0: no limit. Default: the database's `queryTimeoutMs`.
   */
  timeoutMs?: number;
  /**
   * Aborting it stops the statement: a queued one before it starts, a running one within a
   * fraction of a millisecond. The promise then rejects with QUERY_CANCELLED (its `cause` is
   * the signal's reason) and the statement's writes are undone.
   */
  signal?: AbortSignal;
  /**
   * Called with the progress of a long statement (COPY FROM, EXPORT DATABASE, IMPORT
   * DATABASE) while it runs, at most every 100 ms and only when it changed, and once more with
   * the totals when it succeeded, before the promise resolves; never after it settled.
   * `conn.query` only (src/core/progress.ts).
   */
  onProgress?: (progress: QueryProgress) => void;
  /**
   * The most threads this statement may use (docs/execution.md): at most the database's
   * `queryThreads` and the connection's `CALL threads` setting. 0 or omitted: no lower bound.
   */
  threads?: number;
}

/** The longest time limit: setTimeout's, about 24.8 days. */
export const MAX_TIMEOUT_MS = 2 ** 31 - 1;

/**
 * @internal A time limit option as a whole number of ms (0: none); throws a TypeError or
 * RangeError naming `what` for anything else.
 */
export function checkTimeout(value: unknown, what: string): number {
  if (typeof value !== 'number' || Number.isNaN(value)) {
    throw new TypeError(
      `${what} must be a number of milliseconds, got ${value === null ? 'null' : typeof value}`,
    );
  }
  if (value < 0 || value > MAX_TIMEOUT_MS) {
    throw new RangeError(`${what} must be between 0 and ${MAX_TIMEOUT_MS} ms (0: no limit), got ${value}`);
  }
  return Math.ceil(value);
}

/** @internal What a statement's options come to: its limit (0: none) and its signal. */
export interface StatementControl {
  timeoutMs: number;
  signal: AbortSignal | undefined;
  /** Result and memory limits in bytes (0 or undefined: none); RESOURCE_LIMIT past them. */
  maxResultBytes?: number;
  maxMemoryBytes?: number;
  /** The most threads the statement may use (0 or undefined: the database's queryThreads). */
  queryThreads?: number;
  /**
   * Whether the statement may wait in its connection's queue behind others: then a timer
   * enforces the time limit while it waits (once it runs, the engine does). False for the
   * pool's slots, which run one statement at a time.
   */
  mayQueue?: boolean;
  /** Receives a function that cancels the statement, once it is submitted (a cheap signal). */
  onSubmitted?: (cancel: () => void) => void;
  /**
   * The access mode the statement may use (a protocol's session on a pooled slot); the text
   * must then hold exactly one statement. Undefined: anything.
   */
  accessMode?: AccessModeName;
  /** False: the statement runs without its connection's session (default true). */
  inSession?: boolean;
  /**
   * The result's values in typed form: a whole DOUBLE as a Number object, DATE, TIMESTAMP and
   * INTERVAL as TypedParameter objects (a protocol that tells these types apart).
   */
  typed?: boolean;
}

/** @internal The options of one call, validated, over the connection's default time limit. */
export function resolveQueryOptions(
  options: unknown,
  defaultTimeoutMs: number,
  limits?: StatementLimits,
): StatementControl {
  if (options === undefined) return { timeoutMs: defaultTimeoutMs, signal: undefined, ...limits };
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    throw new TypeError('query options must be an object');
  }
  const { timeoutMs, signal, onProgress, threads } = options as QueryOptions;
  for (const key of Object.keys(options)) {
    if (key !== 'timeoutMs' && key !== 'signal' && key !== 'onProgress' && key !== 'threads') {
      throw new TypeError(`unknown query option '${key}'`);
    }
  }
  checkProgressCallback(onProgress);
  if (signal !== undefined && !(signal instanceof AbortSignal)) {
    throw new TypeError('query option signal must be an AbortSignal');
  }
  if (threads !== undefined && (!Number.isInteger(threads) || threads < 0 || threads > 256)) {
    throw new RangeError(`query option threads must be an integer from 0 to 256, got ${String(threads)}`);
  }
  return {
    timeoutMs: timeoutMs === undefined ? defaultTimeoutMs : checkTimeout(timeoutMs, 'query option timeoutMs'),
    signal,
    ...limits,
    ...(threads ? { queryThreads: threads } : {}),
  };
}

/** @internal The byte limits of a database's or a service's statements (0: none). */
export interface StatementLimits {
  maxResultBytes: number;
  maxMemoryBytes: number;
  /** The most threads one statement may use (0 or undefined: the database's queryThreads). */
  queryThreads?: number;
}

/**
 * @internal A byte limit option as a whole number (0: none); throws a TypeError or RangeError
 * naming `what` for anything else.
 */
export function checkByteLimit(value: unknown, what: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value)) {
    throw new TypeError(
      `${what} must be a whole number of bytes, got ${value === null ? 'null' : typeof value}`,
    );
  }
  if (value < 0 || value > Number.MAX_SAFE_INTEGER) {
    throw new RangeError(
      `${what} must be between 0 and ${Number.MAX_SAFE_INTEGER} bytes (0: no limit), got ${value}`,
    );
  }
  return value;
}

function cancelledBeforeStart(signal: AbortSignal): GraphDBError {
  const error = new GraphDBError('the query was cancelled before it started', 'QUERY_CANCELLED');
  error.cause = signal.reason;
  return error;
}

let nextToken = 1;

/**
 * @internal Submits one statement under `control`: `submit` runs it (addon.ts `run`) with the
 * options it is given: `base` (how it runs: source, delivery, output...) with the limits, token,
 * access mode, session and output of `control`. Returns what `run` returned (a value when the
 * statement ran inline, else a promise that settles when it does).
 */
export function submitControlled<T>(
  native: NativeConnection,
  control: StatementControl,
  submit: (options: RunOptions | undefined) => Promise<T> | T,
  base?: RunOptions,
): Promise<T> | T {
  const { timeoutMs, signal, onSubmitted, accessMode, inSession, typed } = control;
  const maxResultBytes = control.maxResultBytes ?? 0;
  const maxMemoryBytes = control.maxMemoryBytes ?? 0;
  const queryThreads = control.queryThreads ?? 0;
  if (
    signal === undefined &&
    timeoutMs === 0 &&
    onSubmitted === undefined &&
    maxResultBytes === 0 &&
    maxMemoryBytes === 0 &&
    queryThreads === 0 &&
    accessMode === undefined &&
    inSession === undefined &&
    typed === undefined
  ) {
    return submit(base);
  }
  if (signal?.aborted) return Promise.reject(cancelledBeforeStart(signal));
  const token = nextToken++;
  if (nextToken > Number.MAX_SAFE_INTEGER) nextToken = 1;
  // Every field, always in this order: one shape for all of them.
  const options: RunOptions = {
    source: base?.source,
    delivery: base?.delivery,
    output: typed === true ? 'typed' : base?.output,
    session: inSession === false ? 'alone' : base?.session,
    access: accessMode ?? base?.access,
    timeoutMs,
    maxResultBytes,
    maxMemoryBytes,
    queryThreads,
    token,
  };
  const submitted = submit(options);
  if (!(submitted instanceof Promise)) return submitted;
  // The engine stops a running statement at its deadline itself; the timer stops one still
  // queued behind others, which the engine has not seen yet.
  const timer =
    timeoutMs > 0 && control.mayQueue !== false
      ? setTimeout(() => native.cancel(token, true), timeoutMs)
      : undefined;
  timer?.unref();
  const onAbort = () => native.cancel(token, false);
  signal?.addEventListener('abort', onAbort, { once: true });
  onSubmitted?.(onAbort);
  const done = () => {
    if (timer !== undefined) clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
  };
  return submitted.then(
    (value) => {
      done();
      return value;
    },
    (error: unknown) => {
      done();
      if (signal?.aborted && error instanceof GraphDBError && error.code === 'QUERY_CANCELLED') {
        error.cause = signal.reason;
      }
      throw error;
    },
  );
}
