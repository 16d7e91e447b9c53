// One Bolt connection after the handshake: reads messages, runs them in order through the
// state machine of the Bolt specification, and answers each with SUCCESS, RECORDs, FAILURE or
// IGNORED (docs/bolt.md).
//
// States: CONNECTED (until HELLO), AUTHENTICATION (5.1+: until LOGON), READY, STREAMING (an
// auto-commit result is open), TX_READY and TX_STREAMING (an explicit transaction), FAILED (a
// request failed: everything but RESET and GOODBYE is IGNORED), DEFUNCT (closing). A RESET
// interrupts the request running when it arrives; requests queued before it are IGNORED.
//
// An auto-commit RUN leases an execution slot for the statement only; an explicit transaction
// (BEGIN .. COMMIT/ROLLBACK) holds one lease throughout, and is rolled back when it stays idle
// longer than the server allows.

import type { Socket } from 'node:net';
import { GraphDBError } from '../core/errors.js';
import { type PackedResult, PackStreamParameters } from '../native/addon.js';
import { MOST_ACCESS, ROLE_MOST_ACCESS, type Role } from '../runtime/access.js';
import type { ExecutionSlotLease, SessionStatementOptions } from '../runtime/pool.js';
import type { TransactionRegistry, TransactionSession } from '../runtime/session.js';
import { failureOf } from './errors.js';
import { ChunkReader } from './framing.js';
import { authToken, BoltError, boltError, mapField, REQUEST, RESPONSE } from './messages.js';
import { BoltOutput } from './output.js';
import {
  type DecodeLimits,
  decode,
  EncodedMap,
  PackStreamError,
  PackStreamLimitError,
  Structure,
} from './packstream.js';
import {
  checkDatabase,
  DATABASE_NAME,
  pullCount,
  requestedAccess,
  routingAddress,
  txTimeout,
} from './requests.js';
import { boltStats, CursorResult, MaterializedResult, type ResultSource, statementType } from './results.js';
import { shapeOf, toParameter, type ValueDialect, ValueWriter } from './values.js';

/** Bolt versions as [major, minor]. */
export type BoltVersion = readonly [number, number];

export type AccessMode = NonNullable<SessionStatementOptions['accessMode']>;

/** Decides who a HELLO/LOGON is: the token it carries, or undefined for scheme `none`. */
export type BoltAuthenticate = (token: string | undefined) => { role: Role; client: number } | null;

/** Who logged in: the role, and the client (the token's index; -1 without authentication). */
export interface BoltLogin {
  role: Role;
  client: number;
}

/** What a connection needs from its server. */
export interface ConnectionContext {
  /** Leases a slot (FIFO); rejects when the service is closed or `signal` aborts. */
  acquire(signal: AbortSignal): Promise<ExecutionSlotLease>;
  /**
   * Runs an auto-commit statement at once on a free slot when it is a short read (as HTTP's
   * inline path): its packed result (typed), the GraphDBError it failed with, or undefined when
   * it did not run (no free slot, others waiting, not a short read).
   */
  tryInline(
    text: string,
    params: Record<string, unknown>,
    accessMode: AccessMode,
    timeoutMs: number | undefined,
  ): PackedResult | GraphDBError | undefined;
  readonly authenticate: BoltAuthenticate | null;
  readonly serverAgent: string;
  readonly maxMessageBytes: number;
  /** Most PackStream values one message of a logged-in client may hold. */
  readonly maxMessageValues: number;
  /** Longest an explicit transaction may stay idle (no request) before it is rolled back. */
  readonly idleTransactionTimeoutMs: number;
  /** Longest a request may wait for a free slot (undefined: no limit). */
  readonly slotWaitMs: number | undefined;
  /** The statements' time limit (ms, 0: none). */
  readonly queryTimeoutMs: number;
  /** The largest result held in memory (bytes, 0: none): see CursorResult.materialize. */
  readonly maxResultBytes: number;
  /** The service's explicit transactions (their count is bounded across protocols). */
  readonly transactions: TransactionRegistry;
  /** The address to give in routing tables when the client gave none. */
  readonly localAddress: string;
  /** The service is stopping: finish the request at hand, then close. */
  readonly stopping: boolean;
  /**
   * The client is about to log in as `login`: throws a Bolt error when it may not (the
   * connection limits); else the handshake's time limit no longer applies.
   */
  authenticated(connection: BoltConnection, login: BoltLogin): void;
  /** The client logged off (LOGOFF): it no longer counts against its token's limit. */
  loggedOff(connection: BoltConnection): void;
  /** Called once the connection has closed and let go of everything. */
  closed(connection: BoltConnection): void;
}

type State =
  | 'CONNECTED'
  | 'AUTHENTICATION'
  | 'READY'
  | 'STREAMING'
  | 'TX_READY'
  | 'TX_STREAMING'
  | 'FAILED'
  | 'DEFUNCT';

/**
 * What a message may be before the client logged in (HELLO, LOGON): a HELLO's extra map or a
 * LOGON's auth map needs a few dozen values; anything over these limits closes the connection.
 */
export const PRE_LOGIN_LIMITS = { maxMessageBytes: 16 * 1024, maxValues: 256, maxDepth: 8 } as const;
/**
 * Nesting of a logged-in client's messages: the message's structure, a RUN's parameters map,
 * then the 64 levels a parameter may have (native/napi/convert.cc).
 */
const MAX_DEPTH = 66;

/** Requests queued beyond this pause reading from the socket until they are served. */
const MAX_QUEUED = 256;
/** Responses are written once this many bytes are ready (and when the queue runs dry). */
const FLUSH_BYTES = 64 * 1024;
/** Records encoded per socket write while a PULL streams many. */
const RECORDS_PER_WRITE = 1000;
const ROUTING_TTL_SECONDS = 300;

/** An explicit transaction: the runtime's session and the results open in it. */
interface Transaction {
  session: TransactionSession;
  /** BEGIN asked for read mode (`mode: 'r'`): a write in it is the mode's fault, not the role's. */
  askedRead: boolean;
  results: Map<number, ResultSource>;
  nextQid: number;
}

/**
 * A RUN message of at least this many bytes keeps its parameter map encoded: the slot's native
 * thread converts it (native/main/bolt_parameters.h), not the event loop (docs/bolt.md).
 */
const ENCODED_PARAMETERS_FROM = 16 * 1024;

/** Values a RUN's parameters may hold to be tried inline first (a second conversion is cheap). */
const INLINE_PARAM_VALUES = 64;

/**
 * Whether a RUN's parameters are small enough to try the statement inline: one that does not
 * run there (not a short read) converts them again on the slot.
 */
function fitsInline(params: Record<string, unknown>): boolean {
  let budget = INLINE_PARAM_VALUES;
  const fits = (value: unknown): boolean => {
    if (--budget < 0) return false;
    if (Array.isArray(value)) return value.every(fits);
    if (value instanceof Structure) return value.fields.every(fits);
    if (
      value !== null &&
      typeof value === 'object' &&
      !(value instanceof Uint8Array) &&
      !(value instanceof Number)
    ) {
      return Object.values(value).every(fits);
    }
    return true;
  };
  return Object.values(params).every(fits);
}

/** A statement's parameters: converted, or a RUN's map left encoded. */
type StatementParameters = Record<string, unknown> | PackStreamParameters;

let nextConnectionId = 1;

export class BoltConnection {
  readonly id = `bolt-${nextConnectionId++}`;
  readonly #socket: Socket;
  readonly #context: ConnectionContext;
  readonly #version: BoltVersion;
  readonly #reader: ChunkReader;
  readonly #out: BoltOutput;
  readonly #dialect: ValueDialect;
  #state: State = 'CONNECTED';
  #role: Role | null = null;
  #routingAddress: string | null = null;
  /** Requests to serve in order; a PackStreamLimitError stands for one refused for its size. */
  readonly #queue: (Structure | PackStreamLimitError)[] = [];
  #processing: Promise<void> | null = null;
  /** RESETs received and not yet served: requests before them are IGNORED. */
  #pendingResets = 0;
  /** Cancels what the request being served waits for (a slot, a statement). */
  #interrupt: AbortController | null = null;
  #cancelStatement: (() => void) | null = null;
  #autoResult: ResultSource | null = null;
  /** Why the server closed the auto-commit result the client left idle (its next PULL fails). */
  #autoExpired: string | null = null;
  #tx: Transaction | null = null;
  /** Closes an auto-commit result left idle (an explicit transaction's session has its own). */
  #autoTimer: NodeJS.Timeout | null = null;
  #closing = false;
  #paused = false;
  #bookmark = 0;

  constructor(socket: Socket, context: ConnectionContext, version: BoltVersion) {
    this.#socket = socket;
    this.#context = context;
    this.#version = version;
    this.#reader = new ChunkReader(Math.min(context.maxMessageBytes, PRE_LOGIN_LIMITS.maxMessageBytes));
    // Bolt 4.4 sends DateTime in UTC only when HELLO agrees on the `utc` patch.
    this.#dialect = { elementIds: version[0] >= 5, utcDateTime: version[0] >= 5 };
    const neo4jCode = version[0] > 5 || (version[0] === 5 && version[1] >= 7);
    this.#out = new BoltOutput(socket, new ValueWriter(this.#dialect), neo4jCode);
    socket.on('data', (data: Buffer) => this.#onData(data));
    socket.on('close', () => this.#onClose());
    socket.on('error', () => undefined); // 'close' follows
  }

  get version(): BoltVersion {
    return this.#version;
  }

  /** Whether the connection is between requests with no transaction open. */
  get idle(): boolean {
    return this.#processing === null && this.#tx === null && this.#queue.length === 0;
  }

  /** Logged in (HELLO or LOGON done, no LOGOFF since). */
  get loggedIn(): boolean {
    return this.#role !== null;
  }

  /**
   * Closes the connection when it is logged in and idle with nothing open (no transaction, no
   * result); returns whether it did (the Bolt idle timeout).
   */
  closeIfIdle(): boolean {
    if (!this.idle || this.#state !== 'READY' || this.#closing) return false;
    this.#closing = true;
    this.#socket.end();
    return true;
  }

  /** Feeds bytes that arrived with the handshake. */
  receive(data: Buffer): void {
    if (data.length > 0) this.#onData(data);
  }

  /** Closes the connection now: what runs is cancelled, an open transaction rolled back. */
  destroy(): void {
    this.#cancelRunning();
    this.#socket.destroy();
  }

  /** Closes once the request at hand is done and no transaction is open (service stopping). */
  closeWhenIdle(): void {
    if (this.idle) this.#socket.end();
  }

  #onData(data: Buffer): void {
    if (this.#closing) return;
    let messages: Buffer[];
    try {
      messages = this.#reader.push(data);
    } catch (error) {
      this.#protocolError(error);
      return;
    }
    for (const bytes of messages) {
      let message: unknown;
      try {
        message = decode(bytes, this.#decodeLimits());
      } catch (error) {
        if (error instanceof PackStreamLimitError && this.#role !== null) {
          // Well-formed but too large: refused on its own turn, the connection stays usable.
          this.#queue.push(error);
          continue;
        }
        this.#protocolError(error);
        return;
      }
      if (!(message instanceof Structure)) {
        this.#protocolError(new PackStreamError('a Bolt message must be a structure'));
        return;
      }
      if (message.tag === REQUEST.reset) {
        // Interrupts at once what is running; requests before it are IGNORED.
        this.#pendingResets++;
        this.#cancelRunning();
      }
      this.#queue.push(message);
    }
    if (this.#queue.length > MAX_QUEUED && !this.#paused) {
      this.#paused = true;
      this.#socket.pause();
    }
    if (!this.#processing && this.#queue.length > 0) this.#processing = this.#serve();
  }

  /** Limits of a message decoded now: much lower until the client has logged in. */
  #decodeLimits(): DecodeLimits {
    return this.#role === null
      ? PRE_LOGIN_LIMITS
      : {
          maxDepth: MAX_DEPTH,
          maxValues: this.#context.maxMessageValues,
          encodedParametersFrom: ENCODED_PARAMETERS_FROM,
        };
  }

  /** A request that cannot be read: FAILURE, then the connection closes. */
  #protocolError(error: unknown): void {
    const f = failureOf(error);
    this.#out.failure(f);
    this.#out.flush();
    this.#state = 'DEFUNCT';
    this.#closing = true;
    this.#cancelRunning();
    this.#socket.end();
  }

  #cancelRunning(): void {
    this.#interrupt?.abort(new GraphDBError('interrupted by RESET', 'QUERY_CANCELLED'));
    this.#cancelStatement?.();
  }

  async #serve(): Promise<void> {
    try {
      while (this.#queue.length > 0 && !this.#closing) {
        const message = this.#queue.shift() as Structure | PackStreamLimitError;
        if (this.#paused && this.#queue.length < MAX_QUEUED / 2) {
          this.#paused = false;
          this.#socket.resume();
        }
        this.#stopTxTimer();
        if (message instanceof Structure && message.tag === REQUEST.reset) {
          this.#pendingResets--;
          await this.#reset();
        } else if (this.#pendingResets > 0 || (this.#state === 'FAILED' && !(message instanceof Structure))) {
          this.#out.message(RESPONSE.ignored, null);
        } else if (message instanceof Structure) {
          await this.#dispatch(message);
        } else {
          this.#fail(message);
        }
        if (this.#out.length >= FLUSH_BYTES || this.#queue.length === 0) await this.#out.flushAndDrain();
      }
    } catch (error) {
      // Nothing should get here (each request answers its own errors); close rather than hang.
      process.stderr.write(`graphdb: Bolt connection ${this.id} failed: ${String(error)}\n`);
      this.#socket.destroy();
    } finally {
      this.#processing = null;
      if (!this.#closing) {
        this.#startTxTimer();
        if (this.#context.stopping) this.closeWhenIdle();
      }
    }
  }

  async #dispatch(message: Structure): Promise<void> {
    const f = message.fields;
    if (this.#state === 'FAILED' && message.tag !== REQUEST.goodbye) {
      this.#out.message(RESPONSE.ignored, null);
      return;
    }
    try {
      switch (message.tag) {
        case REQUEST.hello:
          return this.#hello(mapField(f[0], 'HELLO extra'));
        case REQUEST.logon:
          return this.#logon(mapField(f[0], 'LOGON auth'));
        case REQUEST.logoff:
          return this.#logoff();
        case REQUEST.goodbye:
          this.#closing = true;
          this.#state = 'DEFUNCT';
          this.#socket.end();
          return;
        case REQUEST.run:
          return await this.#run(f);
        case REQUEST.pull:
          return await this.#pull(mapField(f[0], 'PULL extra'), false);
        case REQUEST.discard:
          return await this.#pull(mapField(f[0], 'DISCARD extra'), true);
        case REQUEST.begin:
          return await this.#begin(mapField(f[0], 'BEGIN extra'));
        case REQUEST.commit:
          return await this.#endTransaction(true);
        case REQUEST.rollback:
          return await this.#endTransaction(false);
        case REQUEST.route:
          return this.#route(f);
        case REQUEST.telemetry:
          this.#expectState('TELEMETRY', 'READY', 'TX_READY');
          if (!(this.#version[0] > 5 || (this.#version[0] === 5 && this.#version[1] >= 4))) {
            throw boltError('Neo.ClientError.Request.Invalid', 'TELEMETRY needs Bolt 5.4 or later');
          }
          this.#out.message(RESPONSE.success, {});
          return;
        default:
          throw boltError('Neo.ClientError.Request.Invalid', `unknown request 0x${message.tag.toString(16)}`);
      }
    } catch (error) {
      this.#fail(error);
    }
  }

  /** Answers FAILURE and enters FAILED (or closes, before authentication). */
  #fail(error: unknown): void {
    if (this.#pendingResets > 0 && !(error instanceof BoltError && error.fatal)) {
      // Interrupted by a RESET that follows: IGNORED, as every request before it.
      this.#out.message(RESPONSE.ignored, null);
      return;
    }
    const f = error instanceof BoltError ? error.failure : failureOf(error);
    if (error instanceof GraphDBError && error.code === 'ACCESS_MODE_VIOLATION' && this.#limitedByRole()) {
      f.code = 'Neo.ClientError.Security.Forbidden';
    }
    this.#out.failure(f);
    if (
      this.#state === 'CONNECTED' ||
      this.#state === 'AUTHENTICATION' ||
      (error instanceof BoltError && error.fatal)
    ) {
      this.#state = 'DEFUNCT';
      this.#closing = true;
      void this.#out.flushAndDrain().then(() => this.#socket.end());
      return;
    }
    this.#state = 'FAILED';
  }

  /** Whether the role, not the transaction's mode, kept the request from writing. */
  #limitedByRole(): boolean {
    return (
      this.#role !== null && ROLE_MOST_ACCESS[this.#role] !== MOST_ACCESS && !(this.#tx?.askedRead ?? false)
    );
  }

  #expectState(request: string, ...states: State[]): void {
    if (!states.includes(this.#state)) {
      throw boltError('Neo.ClientError.Request.Invalid', `${request} is not allowed in state ${this.#state}`);
    }
  }

  // --- authentication -----------------------------------------------------------------------

  #hello(extra: Record<string, unknown>): void {
    if (this.#state !== 'CONNECTED') {
      throw boltError('Neo.ClientError.Request.Invalid', 'HELLO was sent twice', true);
    }
    this.#routingAddress = routingAddress(extra);
    const metadata: Record<string, unknown> = {
      server: this.#context.serverAgent,
      connection_id: this.id,
      hints: {},
    };
    if (this.#usesLogon()) {
      this.#state = 'AUTHENTICATION';
    } else {
      this.#authenticate(extra);
      if (this.#version[0] === 4 && Array.isArray(extra.patch_bolt) && extra.patch_bolt.includes('utc')) {
        metadata.patch_bolt = ['utc'];
        this.#dialect.utcDateTime = true;
      }
      this.#state = 'READY';
    }
    this.#out.message(RESPONSE.success, metadata);
  }

  #usesLogon(): boolean {
    return this.#version[0] > 5 || (this.#version[0] === 5 && this.#version[1] >= 1);
  }

  #logon(auth: Record<string, unknown>): void {
    if (!this.#usesLogon())
      throw boltError('Neo.ClientError.Request.Invalid', 'LOGON needs Bolt 5.1 or later', true);
    if (this.#state !== 'AUTHENTICATION') {
      throw boltError(
        'Neo.ClientError.Request.Invalid',
        `LOGON is not allowed in state ${this.#state}`,
        true,
      );
    }
    this.#authenticate(auth);
    this.#state = 'READY';
    this.#out.message(RESPONSE.success, {});
  }

  #logoff(): void {
    if (!this.#usesLogon())
      throw boltError('Neo.ClientError.Request.Invalid', 'LOGOFF needs Bolt 5.1 or later');
    this.#expectState('LOGOFF', 'READY');
    this.#role = null;
    this.#reader.maxMessageBytes = Math.min(this.#context.maxMessageBytes, PRE_LOGIN_LIMITS.maxMessageBytes);
    this.#state = 'AUTHENTICATION';
    this.#context.loggedOff(this);
    this.#out.message(RESPONSE.success, {});
  }

  /**
   * Schemes: `none`, `basic` (the password is the token; the principal is not checked) and
   * `bearer` (credentials is the token). Without an authenticate hook every client is admin.
   */
  #authenticate(auth: Record<string, unknown>): void {
    const token = authToken(auth);
    const hook = this.#context.authenticate;
    const verdict = hook ? hook(token) : { role: 'admin' as const, client: -1 };
    if (!verdict) {
      throw boltError(
        'Neo.ClientError.Security.Unauthorized',
        token === undefined ? 'authentication is required' : 'the credentials are not valid',
        true,
      );
    }
    this.#context.authenticated(this, verdict);
    this.#role = verdict.role;
    this.#reader.maxMessageBytes = this.#context.maxMessageBytes;
  }

  // --- statements ---------------------------------------------------------------------------

  async #run(fields: unknown[]): Promise<void> {
    const query = fields[0];
    if (typeof query !== 'string')
      throw boltError('Neo.ClientError.Request.Invalid', 'RUN needs a query string');
    // A large parameter map comes encoded: the slot converts it where the statement runs.
    const encoded = fields[1] instanceof EncodedMap ? fields[1] : null;
    const rawParams = encoded ? {} : mapField(fields[1] ?? {}, 'RUN parameters');
    const extra = mapField(fields[2] ?? {}, 'RUN extra');
    let params: StatementParameters;
    if (encoded) {
      params = new PackStreamParameters(encoded.bytes, this.#dialect.utcDateTime);
    } else {
      const converted: Record<string, unknown> = {};
      for (const name of Object.keys(rawParams))
        converted[name] = toParameter(rawParams[name], this.#dialect);
      params = converted;
    }
    const tx = this.#tx;
    if (tx) {
      this.#expectState('RUN', 'TX_READY', 'TX_STREAMING');
      this.#checkExpired(tx);
      // The slot streams one result at a time: one still open is read into memory first.
      for (const [qid, open] of tx.results) {
        if (open instanceof CursorResult && open.open) {
          tx.results.set(qid, await open.materialize(this.#context.maxResultBytes));
        }
      }
      const session = tx.session;
      const result = await this.#open(
        session.lease,
        query,
        params,
        session.accessMode as AccessMode,
        true,
        session.remainingMs(),
        null,
      );
      const qid = tx.nextQid++;
      tx.results.set(qid, result);
      this.#state = 'TX_STREAMING';
      this.#out.message(RESPONSE.success, { fields: result.fields, t_first: result.firstMs, qid });
      return;
    }
    this.#expectState('RUN', 'READY');
    checkDatabase(extra);
    const { mode } = requestedAccess(extra, this.#role);
    const timeout = txTimeout(extra);
    if (!(params instanceof PackStreamParameters) && fitsInline(rawParams)) {
      // A point read and its like: run here at once, no slot leased, no thread hop.
      const started = performance.now();
      const ran = this.#context.tryInline(query, params, mode, timeout);
      if (ran instanceof Error) throw ran;
      if (ran !== undefined) {
        this.#autoResult = new MaterializedResult(ran, Math.round(performance.now() - started));
        this.#autoExpired = null;
        this.#state = 'STREAMING';
        this.#out.message(RESPONSE.success, {
          fields: this.#autoResult.fields,
          t_first: this.#autoResult.firstMs,
        });
        return;
      }
    }
    const lease = await this.#lease();
    // The lease is held until the result is done, fails, or is discarded or closed.
    const result = await this.#open(lease, query, params, mode, false, timeout, () => lease.release());
    this.#autoResult = result;
    this.#autoExpired = null;
    this.#state = 'STREAMING';
    this.#out.message(RESPONSE.success, { fields: result.fields, t_first: result.firstMs });
  }

  /** Waits (FIFO) for a slot; a RESET or a closing connection stops the wait. */
  async #lease(): Promise<ExecutionSlotLease> {
    const controller = new AbortController();
    this.#interrupt = controller;
    const wait = this.#context.slotWaitMs;
    const timer =
      wait === undefined
        ? undefined
        : setTimeout(
            () =>
              controller.abort(
                new GraphDBError(`no execution slot came free within ${wait} ms`, 'SERVICE_UNAVAILABLE'),
              ),
            wait,
          );
    try {
      return await this.#context.acquire(controller.signal);
    } finally {
      if (timer) clearTimeout(timer);
      if (this.#interrupt === controller) this.#interrupt = null;
    }
  }

  /** How a statement runs: a RESET can cancel it; `timeoutMs` lowers the service's limit. */
  #statementOptions(
    accessMode: AccessMode | undefined,
    inSession: boolean,
    timeoutMs: number | undefined,
  ): SessionStatementOptions {
    const limit = this.#context.queryTimeoutMs;
    const options: SessionStatementOptions = {
      accessMode,
      inSession,
      onSubmitted: (cancel) => {
        this.#cancelStatement = cancel;
      },
    };
    if (timeoutMs !== undefined) options.timeoutMs = limit > 0 ? Math.min(limit, timeoutMs) : timeoutMs;
    return options;
  }

  async #execute(
    lease: ExecutionSlotLease,
    query: string,
    params: StatementParameters,
    accessMode: AccessMode | undefined,
    inSession: boolean,
    timeoutMs: number | undefined,
  ): Promise<ResultSource> {
    const options = this.#statementOptions(accessMode, inSession, timeoutMs);
    try {
      return new MaterializedResult(await lease.slot.runStatement(query, params, options));
    } finally {
      this.#cancelStatement = null;
    }
  }

  /**
   * Opens the statement's result stream on the slot (its rows are fetched as they are pulled);
   * `release` is called once the result no longer needs the slot (and at once if it fails).
   */
  async #open(
    lease: ExecutionSlotLease,
    query: string,
    params: StatementParameters,
    accessMode: AccessMode,
    inSession: boolean,
    timeoutMs: number | undefined,
    release: (() => void) | null,
  ): Promise<CursorResult> {
    const options = this.#statementOptions(accessMode, inSession, timeoutMs);
    const started = performance.now();
    try {
      const header = await lease.slot.openCursor(query, params, options);
      return new CursorResult(lease.slot, header, Math.round(performance.now() - started), release);
    } catch (error) {
      release?.();
      throw error;
    } finally {
      this.#cancelStatement = null;
    }
  }

  async #pull(extra: Record<string, unknown>, discard: boolean): Promise<void> {
    const request = discard ? 'DISCARD' : 'PULL';
    const count = pullCount(extra, request);
    const tx = this.#tx;
    let result: ResultSource | undefined;
    let qid = -1;
    if (tx) {
      this.#expectState(request, 'TX_STREAMING');
      const given = extra.qid ?? -1;
      if (typeof given !== 'number' || !Number.isInteger(given)) {
        throw boltError('Neo.ClientError.Request.Invalid', 'qid must be an integer');
      }
      qid = given === -1 ? tx.nextQid - 1 : given;
      result = tx.results.get(qid);
      if (!result) throw boltError('Neo.ClientError.Request.Invalid', `no open result has qid ${given}`);
    } else {
      if (this.#autoExpired !== null) {
        const why = this.#autoExpired;
        this.#autoExpired = null;
        this.#state = 'READY';
        throw boltError(
          'Neo.ClientError.Transaction.TransactionTimedOut',
          `the result was closed because ${why}`,
        );
      }
      this.#expectState(request, 'STREAMING');
      result = this.#autoResult ?? undefined;
      if (!result) throw boltError('Neo.ClientError.Request.Invalid', `${request} without a result`);
    }
    // A RESET (or the connection closing) stops a fetch that runs: it closes the stream.
    const pulled = result;
    this.#cancelStatement = () => void pulled.close();
    let done: boolean;
    try {
      done = discard ? await this.#discardRows(result, count) : await this.#sendRecords(result, count);
    } finally {
      this.#cancelStatement = null;
    }
    if (!done) {
      this.#out.message(RESPONSE.success, { has_more: true });
      return;
    }
    await result.close();
    const summary = result.summary();
    const metadata: Record<string, unknown> = {
      type: statementType(summary, result.fields),
      t_last: 0,
      db: DATABASE_NAME,
    };
    const stats = boltStats(summary);
    if (Object.keys(stats).length > 0) metadata.stats = stats;
    if (tx) {
      tx.results.delete(qid);
      if (tx.results.size === 0) this.#state = 'TX_READY';
    } else {
      this.#autoResult = null;
      this.#state = 'READY';
      if (metadata.type !== 'r') metadata.bookmark = this.#nextBookmark();
    }
    this.#out.message(RESPONSE.success, metadata);
  }

  /** Drops up to `count` records (all: closes the result); true when the result is done. */
  async #discardRows(result: ResultSource, count: number): Promise<boolean> {
    if (count === Number.POSITIVE_INFINITY) return true;
    let left = count;
    for (;;) {
      const batch = await result.next(Math.min(left, RECORDS_PER_WRITE * 10));
      left -= batch.rows.length;
      if (batch.done || left <= 0) return batch.done;
    }
  }

  /** Sends up to `count` records, a slice per socket write; true when the result is done. */
  async #sendRecords(result: ResultSource, count: number): Promise<boolean> {
    const shapes = result.types.map(shapeOf);
    let left = count;
    for (;;) {
      const batch = await result.next(Math.min(left, RECORDS_PER_WRITE));
      for (const row of batch.rows) this.#out.record(row, shapes);
      left -= batch.rows.length;
      if (batch.done || left <= 0) return batch.done;
      await this.#out.flushAndDrain();
      if (this.#closing || this.#pendingResets > 0) return false;
    }
  }

  // --- explicit transactions ----------------------------------------------------------------

  async #begin(extra: Record<string, unknown>): Promise<void> {
    this.#expectState('BEGIN', 'READY');
    checkDatabase(extra);
    const { mode, readOnly: askedRead } = requestedAccess(extra, this.#role);
    const timeout = txTimeout(extra);
    const transactions = this.#context.transactions;
    if (!(await transactions.reserveWhenFree())) {
      throw boltError(
        'Neo.TransientError.Transaction.MaximumTransactionLimitReached',
        'as many explicit transactions are open as the server allows; retry when one ends',
      );
    }
    const deadline = timeout === undefined ? undefined : Date.now() + timeout;
    let lease: ExecutionSlotLease;
    try {
      lease = await this.#lease();
    } catch (error) {
      transactions.unreserve();
      throw error;
    }
    const results = new Map<number, ResultSource>();
    const session = transactions.open(lease, {
      accessMode: mode,
      readOnly: askedRead,
      deadline,
      // Results not pulled to their end are dropped (their reads need nothing more).
      beforeEnd: async () => {
        for (const result of results.values()) await result.close();
        results.clear();
      },
    });
    try {
      // Transaction statements run with no access mode (a mode refuses them in a session).
      await this.#execute(
        lease,
        // READ ONLY for read mode and for a reader in any mode (TransactionSession.readOnly).
        session.readOnly ? 'BEGIN TRANSACTION READ ONLY' : 'BEGIN TRANSACTION',
        {},
        undefined,
        true,
        timeout,
      );
    } catch (error) {
      await session.release();
      throw error;
    }
    this.#tx = { session, askedRead, results, nextQid: 0 };
    this.#state = 'TX_READY';
    this.#out.message(RESPONSE.success, {});
  }

  async #endTransaction(commit: boolean): Promise<void> {
    const request = commit ? 'COMMIT' : 'ROLLBACK';
    const tx = this.#tx;
    if (!tx) throw boltError('Neo.ClientError.Request.Invalid', `${request} without a transaction`);
    this.#expectState(request, 'TX_READY', 'TX_STREAMING');
    try {
      this.#checkExpired(tx);
      // Results not pulled to their end are dropped (their reads need nothing more).
      for (const result of tx.results.values()) await result.close();
      tx.results.clear();
      await this.#execute(tx.session.lease, commit ? 'COMMIT' : 'ROLLBACK', {}, undefined, true, undefined);
    } finally {
      this.#tx = null;
      await tx.session.release();
      this.#state = 'READY';
    }
    this.#out.message(RESPONSE.success, commit ? { bookmark: this.#nextBookmark() } : {});
  }

  /** Fails a request of a transaction the server has rolled back (idle, or past tx_timeout). */
  #checkExpired(tx: Transaction): void {
    if (tx.session.checkDeadline()) {
      throw boltError(
        'Neo.ClientError.Transaction.TransactionTimedOut',
        `the transaction was rolled back because ${tx.session.expired}`,
      );
    }
  }

  /** Between requests: an open transaction's idle timer runs, and so does an open result's. */
  #startTxTimer(): void {
    const tx = this.#tx;
    if (!tx && this.#autoResult instanceof CursorResult && this.#autoResult.open) {
      // An auto-commit result holds its slot until it is pulled to its end: not for ever.
      const result = this.#autoResult;
      const idle = this.#context.idleTransactionTimeoutMs;
      this.#autoTimer = setTimeout(() => {
        this.#autoTimer = null;
        if (this.#autoResult === result && this.#processing === null) {
          this.#autoResult = null;
          this.#autoExpired = `it was left idle for ${idle} ms`;
          void result.close();
        }
      }, idle);
      this.#autoTimer.unref();
      return;
    }
    if (tx && tx.session.expired === null) tx.session.resumeExpiry();
  }

  #stopTxTimer(): void {
    if (this.#autoTimer) clearTimeout(this.#autoTimer);
    this.#autoTimer = null;
    this.#tx?.session.pauseExpiry();
  }

  // --- RESET, ROUTE -------------------------------------------------------------------------

  async #reset(): Promise<void> {
    if (this.#state === 'CONNECTED' || this.#state === 'DEFUNCT') {
      this.#out.message(RESPONSE.failure, {
        code: 'Neo.ClientError.Request.Invalid',
        message: 'RESET before HELLO',
      });
      return;
    }
    await this.#autoResult?.close();
    this.#autoResult = null;
    this.#autoExpired = null;
    const tx = this.#tx;
    this.#tx = null;
    if (tx) await tx.session.release();
    if (this.#state !== 'AUTHENTICATION') this.#state = 'READY';
    this.#out.message(RESPONSE.success, {});
  }

  #route(fields: unknown[]): void {
    this.#expectState('ROUTE', 'READY');
    // Bolt 4.4 and 5: ROUTE routing::Map, bookmarks::List, extra::Map {db, imp_user}.
    const extra = mapField(fields[2] ?? {}, 'ROUTE extra');
    checkDatabase(extra);
    const address = this.#routingAddress ?? this.#context.localAddress;
    this.#out.message(RESPONSE.success, {
      rt: {
        ttl: ROUTING_TTL_SECONDS,
        db: DATABASE_NAME,
        servers: [
          { addresses: [address], role: 'WRITE' },
          { addresses: [address], role: 'READ' },
          { addresses: [address], role: 'ROUTE' },
        ],
      },
    });
  }

  #nextBookmark(): string {
    return `graphdb:${this.id}:${++this.#bookmark}`;
  }

  #onClose(): void {
    this.#closing = true;
    this.#state = 'DEFUNCT';
    this.#stopTxTimer();
    this.#cancelRunning();
    this.#queue.length = 0;
    const finish = async () => {
      await this.#processing;
      await this.#autoResult?.close();
      this.#autoResult = null;
      const tx = this.#tx;
      this.#tx = null;
      if (tx) await tx.session.release();
      this.#context.closed(this);
    };
    void finish();
  }
}
