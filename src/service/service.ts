// GraphDBService: serves a Database through a fixed pool of execution slots
// (docs/http-api.md, "Programmatic API") over HTTP (src/http) and, when configured, Bolt (src/bolt). It
// composes the protocol-neutral runtime (src/runtime: config, slot pool, transactions, auth,
// auto-compaction) with the front ends, and nothing below it imports it.

import { X509Certificate } from 'node:crypto';
import type { BoltAuthenticate } from '../bolt/connection.js';
import type { BoltServer } from '../bolt/server.js';
import { Database, databaseInternals } from '../core/database.js';
import { GraphDBError } from '../core/errors.js';
import { resolveAccessPolicy } from '../http/access.js';
import { bindHttpRuntime, type HttpRuntime, InFlight } from '../http/context.js';
import type { HttpListener } from '../http/listener.js';
import type { Authenticator } from '../runtime/auth.js';
import { AutoCompaction } from '../runtime/compaction.js';
import { type ConfigValues, resolveConfig, type ServiceConfig } from '../runtime/config.js';
import type { AcquireExecutionSlotOptions, ExecutionSlotLease } from '../runtime/pool.js';
import { TpExecutionSlotPool } from '../runtime/pool.js';
import {
  type ServiceState,
  STATUS_NOT_INITED,
  STATUS_NOT_STARTED,
  STATUS_RUNNING,
} from '../runtime/runtime.js';
import { TransactionRegistry } from '../runtime/session.js';
import { VERSION } from '../version.js';

export type { ServiceConfig, TlsConfig } from '../runtime/config.js';

export interface RunOptions {
  /** Called with the URL once the server listens. */
  onListening?: (url: string) => void;
}

export interface ServiceStatus {
  code: 'OK';
  message: string;
}

type Phase = 'closed' | 'initialized' | 'starting' | 'running' | 'stopping';

/** Whether the first certificate of a PEM chain is self-signed (its own issuer). */
function selfSigned(pem: string | Buffer): boolean {
  try {
    const certificate = new X509Certificate(pem);
    return certificate.checkIssued(certificate);
  } catch {
    return false;
  }
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Bolt's login by the service's tokens: the credentials are the token; none is refused. */
function boltAuthenticate(auth: Authenticator): BoltAuthenticate {
  return (token) => {
    if (token === undefined) return null;
    const verdict = auth.authenticateToken(token);
    return 'role' in verdict ? { role: verdict.role, client: verdict.token } : null;
  };
}

/**
 * Serves a Database over HTTP (and Bolt) through a fixed pool of execution slots: its states,
 * slots and leases are described in docs/http-api.md ("Programmatic API").
 */
export class GraphDBService implements AsyncDisposable {
  readonly #db: Database;
  readonly #config: ServiceConfig;
  readonly #settings: ConfigValues;
  #pool: TpExecutionSlotPool | null;
  #phase: Phase = 'initialized';
  #http: HttpListener | null = null;
  #bolt: BoltServer | null = null;
  #url: string | null = null;
  #startedAt = Date.now();
  #startPromise: Promise<string> | null = null;
  #stopPromise: Promise<void> | null = null;
  #closePromise: Promise<void> | null = null;
  /** Settles when the current run ends (stop or close); what runAndWaitForExit waits on. */
  #runEnded: { promise: Promise<void>; resolve: () => void } | null = null;
  /** The HTTP requests in flight and waiting for a slot. */
  readonly #requests = new InFlight();
  readonly #compaction: AutoCompaction;
  readonly #runtime: HttpRuntime;
  readonly #transactions: TransactionRegistry;

  /**
   * Takes `db` over: validates `config`, closes every embedded connection of `db` (later use
   * throws CONNECTION_CLOSED) and opens the slot pool. Throws (and changes nothing) when `db`
   * is closed, another service holds it, or one of its connections has a statement in flight.
   */
  constructor(db: Database, config?: ServiceConfig) {
    if (!(db instanceof Database)) throw new TypeError('GraphDBService needs a Database');
    const given = config === undefined ? {} : config;
    const resolved = resolveConfig(given, db.maxThreadNum);
    const settings = resolved.values;
    const access = resolveAccessPolicy(
      settings.hostStr,
      settings.allowedHosts,
      settings.corsOrigins,
      settings.tls ? 'https' : 'http',
    );
    if (db.closed) throw new GraphDBError('the database is closed', 'CONNECTION_CLOSED');
    const state = databaseInternals(db);
    if (state.owner) {
      throw new GraphDBError('another GraphDBService already serves this database', 'SERVICE_UNAVAILABLE');
    }
    for (const connection of state.connections) {
      if (connection.busy) {
        throw new GraphDBError(
          'an embedded connection has a statement in flight; wait for it before starting a service',
          'SLOT_BUSY',
        );
      }
    }
    this.#pool = new TpExecutionSlotPool(
      state.native,
      resolved.poolSize,
      settings.queryTimeoutMs,
      resolved.statementLimits,
      settings.importDir,
    );
    for (const connection of [...state.connections]) connection.close();
    state.owner = this;
    this.#db = db;
    this.#config = given;
    this.#settings = settings;

    const service = this;
    this.#transactions = new TransactionRegistry(settings.txIdleTimeoutMs, settings.maxOpenTransactions);
    this.#runtime = {
      transactions: this.#transactions,
      get pool() {
        return service.#pool;
      },
      limits: {
        maxBodyBytes: settings.maxBodyBytes,
        maxWaiting: settings.maxWaiting,
        requestTimeoutMs: settings.requestTimeoutMs,
      },
      auth: settings.auth,
      access,
      console: settings.console,
      requests: this.#requests,
      get accepting() {
        return service.#pool !== null && service.#phase !== 'stopping';
      },
      get stopping() {
        return service.#phase === 'stopping';
      },
      get state() {
        return service.#state();
      },
      get statusMessage() {
        return service.#statusMessage();
      },
      get startedAt() {
        return service.#startedAt;
      },
      get executedQueries() {
        return service.#pool?.getExecutedQueryNum() ?? 0;
      },
    };
    bindHttpRuntime(this, this.#runtime);
    this.#compaction = new AutoCompaction({
      intervalMs: settings.autoCompactionIntervalMs,
      minWrites: settings.autoCompactionMinWrites,
      pool: () => service.#pool,
      writes: () => databaseInternals(db).native.writesSinceCompaction,
      quiet: () => service.#phase === 'running' && service.#requests.count === 0,
    });
  }

  /** The wrapped database; using it bypasses the service. */
  db(): Database {
    return this.#db;
  }

  /** Exactly the config object given to the constructor (not resolved defaults). */
  getServiceConfig(): Readonly<ServiceConfig> {
    return this.#config;
  }

  /** The slot pool; null once the service is closed. */
  get pool(): TpExecutionSlotPool | null {
    return this.#pool;
  }

  /** The URL while running, else null. */
  get url(): string | null {
    return this.#phase === 'running' ? this.#url : null;
  }

  /** The Bolt server's bound port while running with `boltPort`, else null. */
  get boltPort(): number | null {
    return this.#phase === 'running' ? (this.#bolt?.port ?? null) : null;
  }

  /**
   * The URL a Neo4j driver connects with while running with `boltPort`, else null:
   * `bolt://<host>:<port>`; with `tls`, `bolt+s://` (a certificate a client can verify) or
   * `bolt+ssc://` (a self-signed one, which `bolt+s://` would refuse).
   */
  get boltUrl(): string | null {
    const port = this.boltPort;
    if (port === null) return null;
    const host = this.#settings.hostStr;
    const tls = this.#settings.tls;
    const scheme = tls === null ? 'bolt' : selfSigned(tls.cert) ? 'bolt+ssc' : 'bolt+s';
    return host.includes(':') ? `${scheme}://[${host}]:${port}` : `${scheme}://${host}:${port}`;
  }

  /** True while the HTTP server accepts connections. */
  isRunning(): boolean {
    return this.#phase === 'running';
  }

  /** Always `code: 'OK'`; the state is in the message. Never throws. */
  serviceStatus(): ServiceStatus {
    return { code: 'OK', message: this.#statusMessage() };
  }

  /**
   * Leases an execution slot, waiting (FIFO) while none is free. Rejects with the signal's
   * reason on abort, SERVICE_UNAVAILABLE once the service is closed.
   */
  acquireExecutionSlot(options?: AcquireExecutionSlotOptions): Promise<ExecutionSlotLease> {
    if (!this.#pool) {
      return Promise.reject(
        new GraphDBError(`the service is closed: ${STATUS_NOT_INITED}`, 'SERVICE_UNAVAILABLE'),
      );
    }
    return this.#pool.acquireExecutionSlot(options);
  }

  /**
   * Binds the configured address and serves HTTP. Resolves to `http://<host>:<port>` (the
   * actual port when queryPort is 0). Rejects when the service is closed, already running, or
   * the address cannot be bound.
   */
  start(): Promise<string> {
    switch (this.#phase) {
      case 'closed':
        return Promise.reject(new Error(`cannot start: ${STATUS_NOT_INITED}`));
      case 'running':
        return Promise.reject(
          new Error(`cannot start: the GraphDB service is already running at ${this.#url}`),
        );
      case 'starting':
        return Promise.reject(new Error('cannot start: the GraphDB service is already starting'));
      case 'stopping':
        // Let the stop finish, then start again.
        return (this.#stopPromise ?? Promise.resolve()).then(() => this.start());
      default:
        break;
    }
    this.#phase = 'starting';
    this.#startPromise = this.#listen().finally(() => {
      this.#startPromise = null;
    });
    return this.#startPromise;
  }

  /**
   * Starts, then settles once the service stops (`stop()`, `close()`, SIGINT or SIGTERM). The
   * signal handlers are installed only while it waits. Same errors as `start()`.
   * `onListening` is called with the URL once the server listens.
   */
  async runAndWaitForExit(options: RunOptions = {}): Promise<void> {
    await this.start();
    const ended = this.#runEnded;
    if (!ended) return;
    const onSignal = () => {
      void this.stop();
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    try {
      // Told once the handlers are in place: a signal sent on seeing the URL stops the service
      // gracefully, however the threads were scheduled.
      if (this.#url) options.onListening?.(this.#url);
      await ended.promise;
    } finally {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    }
  }

  /**
   * Stops serving: no new connections, requests in flight finish (within stopTimeoutMs),
   * idle keep-alive connections close. Idempotent and safe from a signal handler; never
   * rejects. When the service is not running it prints the status message to stderr.
   */
  stop(): Promise<void> {
    if (this.#phase === 'stopping' && this.#stopPromise) return this.#stopPromise;
    if (this.#phase === 'starting' && this.#startPromise) {
      return this.#startPromise.then(
        () => this.stop(),
        () => this.stop(),
      );
    }
    if (this.#phase !== 'running') {
      process.stderr.write(`${this.#statusMessage()}\n`);
      return Promise.resolve();
    }
    this.#stopPromise = this.#shutdown().finally(() => {
      this.#stopPromise = null;
    });
    return this.#stopPromise;
  }

  /**
   * The destructor: stops if running, waits for statements in flight, closes the slot pool
   * and gives the database back (db.close() works again). Afterwards the service is "not
   * initialized". Idempotent.
   */
  close(): Promise<void> {
    if (!this.#closePromise) this.#closePromise = this.#close();
    return this.#closePromise;
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  #state(): ServiceState {
    if (this.#phase === 'running') return 'running';
    if (this.#phase === 'stopping') return 'stopping';
    return this.#pool ? 'not_started' : 'not_initialized';
  }

  #statusMessage(): string {
    switch (this.#phase) {
      case 'closed':
        return STATUS_NOT_INITED;
      case 'running':
        return STATUS_RUNNING;
      default:
        return STATUS_NOT_STARTED;
    }
  }

  async #listen(): Promise<string> {
    const settings = this.#settings;
    let http: HttpListener;
    try {
      const { HttpListener } = await import('../http/listener.js');
      http = await HttpListener.open(this, this.#runtime, {
        host: settings.hostStr,
        port: settings.queryPort,
        tls: settings.tls,
        headersTimeoutMs: settings.headersTimeoutMs,
        receiveTimeoutMs: settings.receiveTimeoutMs,
        keepAliveTimeoutMs: settings.keepAliveTimeoutMs,
        maxConnections: settings.maxConnections,
      });
    } catch (error) {
      this.#phase = this.#pool ? 'initialized' : 'closed';
      throw error;
    }
    if (settings.boltPort !== null) {
      try {
        this.#bolt = await this.#listenBolt(settings.boltPort);
      } catch (error) {
        await http.abandon();
        this.#phase = this.#pool ? 'initialized' : 'closed';
        throw error;
      }
    }
    this.#http = http;
    this.#url = http.url;
    this.#startedAt = Date.now();
    let resolveEnded!: () => void;
    const promise = new Promise<void>((resolve) => {
      resolveEnded = resolve;
    });
    this.#runEnded = { promise, resolve: resolveEnded };
    this.#phase = 'running';
    this.#transactions.reopen();
    if (settings.autoCompaction) this.#compaction.start();
    return this.#url;
  }

  /**
   * Starts the Bolt server (src/bolt/server.ts) on the service's host, with TLS when the
   * service has it. Its clients log in with the tokens of `auth`, and its explicit transactions
   * count against `maxOpenTransactions` with the HTTP ones.
   */
  async #listenBolt(port: number): Promise<BoltServer> {
    const settings = this.#settings;
    const host = settings.hostStr;
    const transactions = this.#transactions;
    const { BoltServer } = await import('../bolt/server.js');
    const bolt = new BoltServer({
      host,
      port,
      tls: settings.tls,
      maxConnections: settings.maxConnections,
      adminReserved: settings.adminReservedConnections,
      maxConnectionsPerClient: settings.boltMaxConnectionsPerToken,
      idleTimeoutMs: settings.boltIdleTimeoutMs,
      handshakeTimeoutMs: settings.headersTimeoutMs,
      maxMessageBytes: settings.maxBodyBytes,
      maxMessageValues: settings.boltMaxMessageValues,
      idleTransactionTimeoutMs: settings.txIdleTimeoutMs,
      transactions,
      slotWaitMs: settings.requestTimeoutMs,
      queryTimeoutMs: settings.queryTimeoutMs,
      maxResultBytes: settings.maxResultBytes,
      authenticate: settings.auth ? boltAuthenticate(settings.auth) : null,
      serverAgent: `QuiverDB/${VERSION}`,
      acquire: (signal) => this.acquireExecutionSlot({ signal }),
      tryInline: (text, params, accessMode, timeoutMs) =>
        this.#pool ? this.#pool.tryStatementInline(text, params, accessMode, timeoutMs) : undefined,
    });
    try {
      await bolt.listen();
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      throw new Error(
        `cannot bind the Bolt port ${host}:${port}: ${code ? `${code} ` : ''}(${errorMessage(error)})`,
        { cause: error },
      );
    }
    return bolt;
  }

  async #shutdown(): Promise<void> {
    this.#phase = 'stopping';
    this.#compaction.stop();
    const graceMs = this.#settings.stopTimeoutMs;
    const bolt = this.#bolt;
    this.#bolt = null;
    const boltStopped = bolt?.stop(graceMs);
    // Explicit transactions roll back (each after the request it is running).
    const rolledBack = this.#transactions.closeAll();
    const http = this.#http;
    this.#http = null;
    await http?.close(graceMs, () => this.#pool?.interruptAll());
    await boltStopped;
    await rolledBack;
    await this.#compaction.settled();
    this.#phase = this.#pool ? 'initialized' : 'closed';
    this.#url = null;
    const ended = this.#runEnded;
    this.#runEnded = null;
    ended?.resolve();
  }

  async #close(): Promise<void> {
    if (this.#startPromise) await this.#startPromise.catch(() => undefined);
    if (this.#phase === 'running') await this.stop();
    else if (this.#stopPromise) await this.#stopPromise;
    await this.#transactions.closeAll();
    const pool = this.#pool;
    this.#pool = null;
    this.#phase = 'closed';
    this.#compaction.stop();
    await pool?.close();
    const state = databaseInternals(this.#db);
    if (state.owner === this) state.owner = null;
  }
}
