// The service's fixed pool of execution slots: TpExecutionSlotPool, ExecutionSlot and
// ExecutionSlotLease (docs/http-api.md, "Slots and leases").
//
// Each slot wraps one NativeConnection, so it owns one native worker thread: a statement run
// through a slot never touches libuv's thread pool and never blocks the event loop. A slot is
// used by one lease at a time and runs one statement at a time; leases are handed out in FIFO
// order, so at most `size` statements run at once through the pool.

import { GraphDBError } from '../core/errors.js';
import { same, whileInFlight } from '../core/loop-poll.js';
import { QueryResult } from '../core/query-result.js';
import {
  type QueryOptions,
  resolveQueryOptions,
  type StatementLimits,
  submitControlled,
} from '../core/statement-control.js';
import {
  type AccessModeName,
  addon,
  type NativeConnection,
  type NativeDatabase,
  type PackedResult,
  type PackStreamParameters,
  type RunOptions,
  run,
} from '../native/addon.js';
import { isRole, MOST_ACCESS, mostAccessOf, type Role } from './access.js';

/** Options of `ExecutionSlot.executeTransactionalRequest`. */
export interface RequestOptions extends QueryOptions {
  /**
   * The role of the client the request comes from (ServiceConfig.auth): the access modes it may
   * use are capped by it, and more is FORBIDDEN. Default: no cap.
   */
  role?: Role;
}

export interface AcquireExecutionSlotOptions {
  /** Aborting it while the call waits rejects the call with the signal's reason. */
  signal?: AbortSignal;
}

function serviceClosedError(): GraphDBError {
  return new GraphDBError('the GraphDB service was closed', 'SERVICE_UNAVAILABLE');
}

function leaseReleasedError(): GraphDBError {
  return new GraphDBError('the execution slot lease was released', 'CONNECTION_CLOSED');
}

/** @internal One slot of the pool: a native connection and its bookkeeping. */
export class SlotEntry {
  readonly index: number;
  readonly native: NativeConnection;
  /** The operation in flight on this slot, if any. */
  running: Promise<unknown> | null = null;
  /** The lease holding the slot, if any. */
  lease: ExecutionSlotLease | null = null;
  executed = 0;

  constructor(index: number, native: NativeConnection) {
    this.index = index;
    this.native = native;
  }
}

interface Waiter {
  resolve(lease: ExecutionSlotLease): void;
  reject(reason: unknown): void;
}

/** @internal A place in the wait queue, without the cost of an AbortController. */
export interface WaitTicket {
  readonly promise: Promise<ExecutionSlotLease>;
  /** Leaves the queue and rejects the promise with `reason`; false when already settled. */
  cancel(reason: unknown): boolean;
  onSettled: (() => void) | undefined;
}

/**
 * @internal The state a pool shares with the leases and slots it hands out: its slots, its
 * FIFO queue and the limits of its statements. The public classes hold it instead of reaching
 * into one another's private fields.
 */
export class SlotPoolState {
  readonly entries: SlotEntry[];
  free: SlotEntry[];
  readonly waiters = new Set<Waiter>();
  closed = false;
  lastActivity = Date.now();
  readonly queryTimeoutMs: number;
  readonly limits: StatementLimits;

  constructor(entries: SlotEntry[], queryTimeoutMs: number, limits: StatementLimits) {
    this.entries = entries;
    this.free = [...entries].reverse(); // pop() hands out slot 0 first
    this.queryTimeoutMs = queryTimeoutMs;
    this.limits = limits;
  }

  /** Hands out `entry` under a new lease. */
  lease(entry: SlotEntry): ExecutionSlotLease {
    this.lastActivity = Date.now();
    return new ExecutionSlotLease(this, entry);
  }

  /** A released slot comes back: straight to the longest waiter, else to the free list. */
  giveBack(entry: SlotEntry): void {
    entry.lease = null;
    this.lastActivity = Date.now();
    if (this.closed) return;
    const first = this.waiters.values().next();
    if (!first.done) {
      const waiter = first.value;
      this.waiters.delete(waiter);
      waiter.resolve(new ExecutionSlotLease(this, entry));
      return;
    }
    this.free.push(entry);
  }

  /** Joins the FIFO queue; `cancel(reason)` leaves it, rejecting the promise with `reason`. */
  enqueue(): WaitTicket {
    if (this.closed) throw serviceClosedError();
    let waiter!: Waiter;
    const promise = new Promise<ExecutionSlotLease>((resolve, reject) => {
      waiter = {
        resolve: (lease) => {
          ticket.onSettled?.();
          resolve(lease);
        },
        reject: (reason) => {
          ticket.onSettled?.();
          reject(reason);
        },
      };
    });
    const ticket: WaitTicket = {
      promise,
      onSettled: undefined,
      cancel: (reason) => {
        if (!this.waiters.delete(waiter)) return false;
        waiter.reject(reason);
        return true;
      },
    };
    this.waiters.add(waiter);
    return ticket;
  }
}

/**
 * A leased execution slot. It is valid while the lease that handed it out is held; it runs one
 * statement at a time (a second call while one is in flight is refused with SLOT_BUSY).
 */
export class ExecutionSlot {
  readonly #pool: SlotPoolState;
  readonly #entry: SlotEntry;
  readonly #lease: ExecutionSlotLease;

  /** @internal Slots are handed out by `ExecutionSlotLease.slot`. */
  constructor(pool: SlotPoolState, entry: SlotEntry, lease: ExecutionSlotLease) {
    this.#pool = pool;
    this.#entry = entry;
    this.#lease = lease;
  }

  /** The slot's position in the pool, `0..size-1`. */
  get id(): number {
    return this.#entry.index;
  }

  /** Whether a statement is in flight on this slot. */
  get busy(): boolean {
    return this.#entry.running !== null;
  }

  /** Statements this slot has executed over the pool's lifetime. */
  get executedQueryNum(): number {
    return this.#entry.executed;
  }

  /**
   * Executes one JSON query request (`{"query", "access_mode"?, "parameters"?}`) on this slot's
   * native thread. Rejects with GraphDBError: the query's own error (INVALID_REQUEST,
   * QUERY_SYNTAX, ...), SLOT_BUSY while another statement runs on this slot,
   * CONNECTION_CLOSED after the lease was released, SERVICE_UNAVAILABLE after the service
   * was closed; QUERY_TIMEOUT past `options.timeoutMs` (default: the service's
   * `queryTimeoutMs`) and QUERY_CANCELLED when `options.signal` aborts, as `Connection.query`;
   * FORBIDDEN when `options.role` does not allow the access mode the request needs.
   */
  async executeTransactionalRequest(json: string, options?: RequestOptions): Promise<QueryResult> {
    if (typeof json !== 'string') {
      throw new TypeError(
        `the query request must be a JSON string, got ${json === null ? 'null' : typeof json}`,
      );
    }
    const { role, ...queryOptions } = options ?? {};
    if (role !== undefined && !isRole(role)) {
      throw new TypeError(`request option role must be 'reader', 'writer' or 'admin', got ${String(role)}`);
    }
    const most = mostAccessOf(role);
    const raw = await this.#run(
      (native, runOptions) => run(native, { source: json, options: runOptions }) as Promise<PackedResult>,
      true,
      options === undefined ? undefined : queryOptions,
      undefined,
      undefined,
      undefined,
      { source: 'request', delivery: 'worker', session: 'alone', access: most },
    );
    return new QueryResult(raw);
  }

  /**
   * `work` on this slot's native connection, given the run options (src/native/addon.ts `run`):
   * `base` under the limits of `options` (over the pool's), `accessMode` and `inSession`.
   */
  #run<T>(
    work: (native: NativeConnection, runOptions: RunOptions | undefined) => Promise<T>,
    counts: boolean,
    options?: QueryOptions,
    onSubmitted?: (cancel: () => void) => void,
    accessMode?: AccessModeName,
    inSession?: boolean,
    base?: RunOptions,
  ): Promise<T> {
    const entry = this.#entry;
    if (this.#pool.closed) return Promise.reject(serviceClosedError());
    if (entry.lease !== this.#lease || this.#lease.released) return Promise.reject(leaseReleasedError());
    if (entry.running) {
      return Promise.reject(
        new GraphDBError(
          `execution slot ${entry.index} is busy: it runs one statement at a time`,
          'SLOT_BUSY',
        ),
      );
    }
    let promise: Promise<T>;
    try {
      const pool = this.#pool;
      const control = resolveQueryOptions(options, pool.queryTimeoutMs, pool.limits);
      control.mayQueue = false; // one statement at a time per slot: the engine keeps the time
      control.onSubmitted = onSubmitted;
      control.accessMode = accessMode;
      control.inSession = inSession;
      if (accessMode !== undefined) control.typed = true;
      promise = whileInFlight(
        submitControlled(entry.native, control, (runOptions) => work(entry.native, runOptions), base),
        same,
      );
    } catch (error) {
      return Promise.reject(error);
    }
    // Bookkeeping runs before the caller sees the result, so the slot is free again (or back
    // in the pool, if the lease was released meanwhile) by the time the caller continues.
    const settle = () => {
      entry.running = null;
      if (counts) entry.executed++;
      if (entry.lease?.released) this.#pool.giveBack(entry);
    };
    const result = promise.then(
      (value) => {
        settle();
        return value;
      },
      (error: unknown) => {
        settle();
        throw error;
      },
    );
    entry.running = result.then(noop, noop);
    return result;
  }

  /**
   * @internal The HTTP hot path: runs a JSON query request on this slot's native thread (in its
   * session's explicit transaction when `inTransaction`) and resolves to the response body,
   * built natively. `onSubmitted` receives a function that cancels the statement
   * (QUERY_CANCELLED), for a client that goes away meanwhile.
   */
  requestAsJson(
    json: string,
    onSubmitted?: (cancel: () => void) => void,
    inTransaction = false,
    mostAccess: AccessModeName = MOST_ACCESS,
  ): Promise<string> {
    return this.#requestJson(json, 'worker', inTransaction, mostAccess, onSubmitted);
  }

  /** A JSON query request alone or in the session's transaction, its output JSON. */
  #requestJson(
    json: string,
    delivery: 'worker' | 'cursor',
    inTransaction: boolean,
    mostAccess: AccessModeName,
    onSubmitted: ((cancel: () => void) => void) | undefined,
  ): Promise<string> {
    const base: RunOptions = {
      source: 'request',
      delivery,
      output: 'json',
      session: inTransaction ? 'transaction' : 'alone',
      access: mostAccess,
    };
    const work = (native: NativeConnection, options: RunOptions | undefined) =>
      run(native, { source: json, options }) as Promise<string>;
    return this.#run(work, true, undefined, onSubmitted, undefined, undefined, base);
  }

  /**
   * @internal Opens a result stream of a JSON query request (in the session's explicit
   * transaction when `inTransaction`); resolves to the header line. The service's time limit
   * covers the whole stream; `onSubmitted` receives a function that stops it at any point.
   */
  openStream(
    json: string,
    inTransaction: boolean,
    mostAccess: AccessModeName,
    onSubmitted: (cancel: () => void) => void,
  ): Promise<string> {
    return this.#requestJson(json, 'cursor', inTransaction, mostAccess, onSubmitted);
  }

  /** @internal The next batch of the open stream as JSON lines, and whether it is the last. */
  fetchStream(maxRows: number): Promise<[string, boolean]> {
    return this.#run((native) => native.fetch(maxRows, true), false);
  }

  /**
   * @internal Stops and closes the open stream, if any, even while a fetch runs (it then
   * rejects with QUERY_CANCELLED).
   */
  closeStream(): Promise<void> {
    return this.#entry.native.closeCursor();
  }

  /**
   * @internal Runs one statement with typed parameters (TypedParameter among them) and resolves
   * to its packed result in typed form (src/native/addon.ts: `rowsOf` and `summaryOf` read it),
   * under the service's time and byte limits, in the slot's session (`inSession`: an explicit
   * transaction, BEGIN TRANSACTION ... COMMIT, stays open across statements while the lease is
   * held; call `resetSession` before the lease goes back to the pool) or alone.
   */
  runStatement(
    text: string,
    params: Record<string, unknown> | PackStreamParameters,
    options: SessionStatementOptions,
  ): Promise<PackedResult> {
    return this.#runStatement(text, params, options, undefined);
  }

  /**
   * @internal Opens a result stream of one statement with typed parameters, as runStatement
   * runs it (access mode, session, time and byte limits, which cover the whole stream);
   * resolves to its header (a packed result of no rows: the columns and types). Its batches
   * (fetchPacked) come in typed form. A statement that is not a read query runs to its end here
   * and its rows are then handed out in batches (docs/concurrency.md).
   */
  openCursor(
    text: string,
    params: Record<string, unknown> | PackStreamParameters,
    options: SessionStatementOptions,
  ): Promise<PackedResult> {
    return this.#runStatement(text, params, options, CURSOR);
  }

  /**
   * A protocol session's statement on this slot, under `options` (SessionStatementOptions), run
   * as `base` says (undefined: materialised, or at once when it is a short read).
   */
  #runStatement(
    text: string,
    params: Record<string, unknown> | PackStreamParameters,
    options: SessionStatementOptions,
    base: RunOptions | undefined,
  ): Promise<PackedResult> {
    const queryOptions = options.timeoutMs === undefined ? undefined : { timeoutMs: options.timeoutMs };
    const work = (native: NativeConnection, runOptions: RunOptions | undefined) =>
      Promise.resolve(
        run(native, { source: text, params, options: runOptions }) as Promise<PackedResult> | PackedResult,
      );
    return this.#run(
      work,
      true,
      queryOptions,
      options.onSubmitted,
      options.accessMode,
      options.inSession,
      base,
    );
  }

  /** @internal The next batch (at most `maxRows`) of the open stream, packed. */
  fetchPacked(maxRows: number): Promise<[PackedResult, boolean]> {
    return this.#run((native) => native.fetch(maxRows), false);
  }

  /** @internal Runs a statement (BEGIN, COMMIT ...) in the slot's own session. */
  runInSession(text: string): Promise<void> {
    return this.#run((native, options) => Promise.resolve(run(native, { source: text, options })), true).then(
      () => undefined,
    );
  }

  /**
   * @internal Rolls back the session's transaction, closes its stream and resets its settings:
   * the slot goes back to the pool as it came.
   */
  resetSession(): Promise<void> {
    return this.#entry.native.resetSession();
  }

  /** @internal Whether the slot's session has an explicit transaction open. */
  get inTransaction(): boolean {
    return this.#entry.native.inTransaction;
  }

  /** @internal Compacts the database on the slot's native thread. */
  compact(): Promise<void> {
    return this.#run((native) => native.compact(), false).then(() => undefined);
  }

  /** @internal The schema JSON of `GET /schema`, read on the slot's native thread. */
  schema(): Promise<string> {
    return this.#run((native) => native.schema(), false);
  }
}

function noop(): void {}

/** A result stream's run options (frozen: they never change). */
const CURSOR: RunOptions = Object.freeze({ delivery: 'cursor' });

/**
 * Exclusive use of one execution slot, from `acquireExecutionSlot()` until `release()` (or the
 * end of a `using` block). A slot released while a statement still runs on it returns to the
 * pool when that statement settles.
 */
export class ExecutionSlotLease implements Disposable {
  readonly #pool: SlotPoolState;
  readonly #entry: SlotEntry;
  readonly #slot: ExecutionSlot;
  #released = false;

  /** @internal Leases are issued by `acquireExecutionSlot()`. */
  constructor(pool: SlotPoolState, entry: SlotEntry) {
    this.#pool = pool;
    this.#entry = entry;
    entry.lease = this;
    this.#slot = new ExecutionSlot(pool, entry, this);
  }

  /**
   * The leased slot. Throws GraphDBError CONNECTION_CLOSED after `release()`, and
   * SERVICE_UNAVAILABLE after the service was closed.
   */
  get slot(): ExecutionSlot {
    if (this.#pool.closed) throw serviceClosedError();
    if (this.#released) throw leaseReleasedError();
    return this.#slot;
  }

  get released(): boolean {
    return this.#released;
  }

  /** Returns the slot to the pool. Idempotent; never throws. */
  release(): void {
    if (this.#released) return;
    this.#released = true;
    if (this.#entry.running === null) this.#pool.giveBack(this.#entry);
  }

  [Symbol.dispose](): void {
    this.release();
  }
}

/**
 * Which of the server's files statements on the pool's slots may name (COPY, LOAD FROM): none,
 * or those inside `root` (absolute, symlinks resolved; relative paths start there).
 */
export type FileAccess = { mode: 'none' } | { mode: 'within'; root: string };

/**
 * The fixed set of execution slots a GraphDBService schedules TP queries on. Created by the
 * service; clients lease slots through `service.acquireExecutionSlot()`.
 */
export class TpExecutionSlotPool {
  readonly #state: SlotPoolState;

  /**
   * @internal Created by GraphDBService. `queryTimeoutMs`: the time limit of statements that
   * give none (0: none); `limits`: the result and memory limits of every statement.
   */
  constructor(
    db: NativeDatabase,
    size: number,
    queryTimeoutMs = 0,
    limits: StatementLimits = { maxResultBytes: 0, maxMemoryBytes: 0 },
    files: FileAccess = { mode: 'none' },
  ) {
    if (!Number.isInteger(size) || size < 1) throw new RangeError(`pool size must be >= 1, got ${size}`);
    const entries: SlotEntry[] = [];
    try {
      for (let i = 0; i < size; i++) {
        const native = new addon.NativeConnection(db);
        entries.push(new SlotEntry(i, native));
        native.setFileAccess(files.mode, files.mode === 'within' ? files.root : undefined);
      }
    } catch (error) {
      for (const entry of entries) entry.native.close();
      throw error;
    }
    this.#state = new SlotPoolState(entries, queryTimeoutMs, limits);
  }

  /** Number of slots; fixed for the pool's lifetime. */
  get size(): number {
    return this.#state.entries.length;
  }

  /** Slots free right now (0 once the pool is closed). */
  get available(): number {
    return this.#state.closed ? 0 : this.#state.free.length;
  }

  /** Slots leased (or still finishing a statement after release). */
  get inUse(): number {
    const state = this.#state;
    return state.closed ? 0 : state.entries.length - state.free.length;
  }

  /** Callers waiting for a slot, in FIFO order. */
  get waiting(): number {
    return this.#state.waiters.size;
  }

  get closed(): boolean {
    return this.#state.closed;
  }

  /** Date.now() of the last lease or release (the service's idleness test). */
  get lastActivity(): number {
    return this.#state.lastActivity;
  }

  /** Total statements executed across all slots (successful or failed). */
  getExecutedQueryNum(): number {
    let total = 0;
    for (const entry of this.#state.entries) total += entry.executed;
    return total;
  }

  /**
   * Leases a free slot, or waits (FIFO) until one is released. Rejects with the signal's
   * reason when `signal` aborts first, and with SERVICE_UNAVAILABLE when the pool is closed.
   */
  acquireExecutionSlot(options: AcquireExecutionSlotOptions = {}): Promise<ExecutionSlotLease> {
    if (options === null || typeof options !== 'object') {
      return Promise.reject(new TypeError('options must be an object'));
    }
    const { signal } = options;
    if (signal !== undefined && !(signal instanceof AbortSignal)) {
      return Promise.reject(new TypeError('signal must be an AbortSignal'));
    }
    if (this.#state.closed) return Promise.reject(serviceClosedError());
    if (signal?.aborted) return Promise.reject(signal.reason);
    const lease = this.tryAcquireExecutionSlot();
    if (lease) return Promise.resolve(lease);
    const ticket = this.#state.enqueue();
    if (signal) {
      const onAbort = () => ticket.cancel(signal.reason);
      signal.addEventListener('abort', onAbort, { once: true });
      ticket.onSettled = () => signal.removeEventListener('abort', onAbort);
    }
    return ticket.promise;
  }

  /** Leases a free slot without waiting; null when none is free (or others are waiting). */
  tryAcquireExecutionSlot(): ExecutionSlotLease | null {
    const state = this.#state;
    if (state.closed) throw serviceClosedError();
    if (state.waiters.size > 0) return null; // FIFO: no barging past waiters
    const entry = state.free.pop();
    return entry ? state.lease(entry) : null;
  }

  /**
   * @internal Joins the FIFO queue (the HTTP layer's cheap alternative to a signal); throws
   * SERVICE_UNAVAILABLE once the pool is closed.
   */
  queue(): WaitTicket {
    return this.#state.enqueue();
  }

  /**
   * @internal The HTTP hot path's first try: a JSON query request whose statement is a short
   * read (one that finishes within a small work budget, docs/concurrency.md), run at once on
   * this thread on a free slot, under the pool's time and byte limits. The slot is never
   * leased: the run ends before this returns. Returns the response body as
   * ExecutionSlot.requestAsJson would resolve to it, the GraphDBError it would reject with, or
   * undefined when it did not run (no slot is free, others wait for one, or the statement is
   * not a short read): lease a slot and call requestAsJson then.
   */
  tryRequestInline(json: string, mostAccess: AccessModeName): string | GraphDBError | undefined {
    return this.#tryInline((native, limits) =>
      run(native, {
        source: json,
        options: {
          source: 'request',
          delivery: 'inline',
          output: 'json',
          session: 'alone',
          access: mostAccess,
          ...limits,
        },
      }),
    ) as string | GraphDBError | undefined;
  }

  /**
   * @internal The Bolt hot path's first try, as tryRequestInline: an auto-commit statement with
   * typed parameters run at once on a free slot when it is a short read, in `accessMode`, under
   * the pool's limits (and `timeoutMs` when lower). Returns its packed result in typed form (as
   * ExecutionSlot.runStatement resolves to it), the GraphDBError it failed with, or undefined
   * when it did not run: lease a slot then.
   */
  tryStatementInline(
    text: string,
    params: Record<string, unknown>,
    accessMode: AccessModeName,
    timeoutMs: number | undefined,
  ): PackedResult | GraphDBError | undefined {
    return this.#tryInline((native, limits) =>
      run(native, {
        source: text,
        params,
        options: {
          source: 'cypher',
          delivery: 'inline',
          output: 'typed',
          session: 'alone',
          access: accessMode,
          ...limits,
          timeoutMs:
            timeoutMs === undefined
              ? limits.timeoutMs
              : limits.timeoutMs > 0
                ? Math.min(limits.timeoutMs, timeoutMs)
                : timeoutMs,
        },
      }),
    ) as PackedResult | GraphDBError | undefined;
  }

  /** Runs `attempt` on the free slot next in line, when one is free and no one waits for it. */
  #tryInline(
    attempt: (
      native: NativeConnection,
      limits: { timeoutMs: number; maxResultBytes: number; maxMemoryBytes: number },
    ) => unknown,
  ): unknown {
    const state = this.#state;
    if (state.closed || state.waiters.size > 0) return undefined;
    const entry = state.free[state.free.length - 1];
    if (entry === undefined) return undefined;
    const out = attempt(entry.native, {
      timeoutMs: state.queryTimeoutMs,
      maxResultBytes: state.limits.maxResultBytes,
      maxMemoryBytes: state.limits.maxMemoryBytes,
    });
    if (out === undefined) return undefined;
    entry.executed++;
    state.lastActivity = Date.now();
    return out;
  }

  /**
   * @internal Closes the pool: waiters are rejected with SERVICE_UNAVAILABLE, outstanding
   * leases become unusable, statements in flight finish, then the slots' native connections
   * (and their threads) are closed. Idempotent.
   */
  async close(): Promise<void> {
    const state = this.#state;
    if (state.closed) return;
    state.closed = true;
    const waiters = [...state.waiters];
    state.waiters.clear();
    for (const waiter of waiters) waiter.reject(serviceClosedError());
    // Closing a native connection joins its thread, which waits for the running statement on
    // the JS thread; wait for the statements here instead so the event loop stays free.
    await Promise.all(state.entries.map((entry) => entry.running));
    for (const entry of state.entries) {
      entry.native.close();
      entry.lease = null;
    }
    state.free = [];
  }

  /**
   * @internal Stops every statement running or queued on the pool's slots (QUERY_CANCELLED);
   * returns how many. The slots stay usable.
   */
  interruptAll(): number {
    let stopped = 0;
    for (const entry of this.#state.entries) stopped += entry.native.interrupt();
    return stopped;
  }
}

/** @internal How a protocol session (Bolt) runs a statement on its leased slot. */
export interface SessionStatementOptions {
  /**
   * The access mode the statement may use; the text must then hold one statement, and not a
   * transaction statement. Undefined: anything (how BEGIN TRANSACTION, COMMIT and ROLLBACK
   * run in the session).
   */
  accessMode: AccessModeName | undefined;
  /** Lowers the service's time limit for this statement (ms). */
  timeoutMs?: number;
  /** Receives a function that cancels the statement (QUERY_CANCELLED) once it is submitted. */
  onSubmitted?: (cancel: () => void) => void;
  /**
   * True: in the slot's session, which keeps an explicit transaction open across statements;
   * false: alone, as a transactional request (settings do not persist).
   */
  inSession: boolean;
}
