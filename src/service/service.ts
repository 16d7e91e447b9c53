// GraphDBService: the TypeScript counterpart of graphdb::GraphDBService (CONTRACT section 3).
// It takes a Database over (closing its embedded connections), owns a fixed pool of execution
// slots, serves them over HTTP (src/server/app.ts) and runs background auto-compaction.

import { X509Certificate } from 'node:crypto';
import { realpathSync, statSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { createSecureContext } from 'node:tls';
import type { BoltAuthenticate } from '../bolt/connection.js';
import type { BoltServer } from '../bolt/server.js';
import { Database, databaseInternals } from '../core/database.js';
import { GraphDBError } from '../core/errors.js';
import type { StatementLimits } from '../core/statement-control.js';
import { type AccessPolicy, resolveAccessPolicy } from '../server/access.js';
import { VERSION } from '../version.js';
import { type AuthConfig, type Authenticator, isLoopbackHost, resolveAuth } from './auth.js';
import { listenOn } from './listen.js';
import {
  type AcquireExecutionSlotOptions,
  compactOnSlot,
  type ExecutionSlotLease,
  type FileAccess,
  TpExecutionSlotPool,
} from './pool.js';
import { TransactionRegistry } from './transactions.js';

/** Configuration of a GraphDBService (all fields optional). */
export interface ServiceConfig {
  /** Port the HTTP server binds to; 0 picks a free port. Default 10000. */
  queryPort?: number;
  /** Address the HTTP server binds to ('0.0.0.0' or '::' for every interface). Default '127.0.0.1'. */
  hostStr?: string;
  /** Execution slots; 0 (default) = the database's maxThreadNum, else at most that. */
  threadNum?: number;
  /** Run background compaction while serving. Default true. */
  autoCompaction?: boolean;
  /** Largest accepted `POST /cypher` body in bytes (413 above). Default 1 MiB. */
  maxBodyBytes?: number;
  /** HTTP requests allowed to wait for a slot before new ones get 503. Default 64 per slot. */
  maxWaiting?: number;
  /** Longest an HTTP request waits for a free slot before it gets 503. Default: no limit. */
  requestTimeoutMs?: number;
  /**
   * Time limit of each statement in ms, from the moment it is submitted to its slot; past it
   * the statement stops, its writes are undone, and the request gets 408 QUERY_TIMEOUT.
   * Default 60000; 0: no limit.
   */
  queryTimeoutMs?: number;
  /**
   * Largest result of one statement in bytes (as the engine holds it); past it the statement
   * stops and the request gets 400 RESOURCE_LIMIT. Default 256 MiB; 0: no limit.
   */
  maxResultBytes?: number;
  /**
   * Most memory one statement's sorts, hash aggregations (with the values their min/max,
   * collect and DISTINCT keep), DISTINCT, collected lists and path sets may hold at once, in
   * bytes; past it: 400 RESOURCE_LIMIT. Default 1 GiB; 0: no limit.
   */
  maxStatementMemoryBytes?: number;
  /** Grace `stop()` gives requests in flight before it closes their connections. Default 10 s. */
  stopTimeoutMs?: number;
  /** Serve the web console at `/` (docs/console.md). Default true. */
  console?: boolean;
  /** How often the auto-compaction loop checks whether to compact. Default 1000 ms. */
  autoCompactionIntervalMs?: number;
  /** Writes since the last compaction that make auto-compaction worthwhile. Default 1000. */
  autoCompactionMinWrites?: number;
  /**
   * Host names (no port) requests may name in their Host header, besides IP addresses,
   * localhost and `hostStr`; `'*'` allows any. Others get 403 (DNS rebinding). Default none.
   */
  allowedHosts?: string[];
  /**
   * Origins (`'https://app.example.com'`) whose pages may call the service from a browser
   * (CORS); `'*'` allows any. Requests from other origins get 403. Default none.
   */
  corsOrigins?: string[];
  /**
   * Longest a client may take to send a request's headers, counted from the connection's
   * start for its first request (a connection that sends nothing is closed then). Default 10 s.
   */
  headersTimeoutMs?: number;
  /** Longest a client may take to send a whole request, headers and body. Default 30 s. */
  receiveTimeoutMs?: number;
  /** How long an idle keep-alive connection stays open after a response. Default 5 s. */
  keepAliveTimeoutMs?: number;
  /** Most connections open at once; more are closed as they arrive. Default 1024. */
  maxConnections?: number;
  /**
   * How long an explicit HTTP transaction (`POST /tx`) may stay idle (no request running in
   * it) before it is rolled back and its id forgotten. Default 30000 ms.
   */
  txIdleTimeoutMs?: number;
  /**
   * Most explicit HTTP transactions open at once (each holds an execution slot); more get 503.
   * From 0 to the slot count minus one, so that transactions never hold every slot. Default:
   * half the slots (rounded down).
   */
  maxOpenTransactions?: number;
  /**
   * Bearer tokens with roles (docs/security.md): every request but `GET /status` then needs
   * `Authorization: Bearer <token>` (401 without, 403 when the role does not allow it).
   * Without it any client that reaches the port may do anything, which the service allows on a
   * loopback address only, unless `insecure`.
   */
  auth?: AuthConfig;
  /** Serve without `auth` on an address other machines can reach. Default false. */
  insecure?: boolean;
  /**
   * The folder whose files statements may read and write (COPY FROM, COPY TO, LOAD FROM), for
   * the admin role in `schema` access mode; paths are resolved (relative ones from this
   * folder, symlinks followed) and must stay inside it. Without it such statements get 403
   * FORBIDDEN. It must exist.
   */
  importDir?: string;
  /** Serve HTTPS: the PEM certificate (chain) and private key, as for `https.createServer`. */
  tls?: TlsConfig;
  /**
   * Port of the Bolt server (docs/bolt.md), on `hostStr`; 0 picks a free port. Default: no
   * Bolt server. Its clients log in with the tokens of `auth`; its transactions count against
   * `maxOpenTransactions` and roll back after `txIdleTimeoutMs` idle; its messages are bounded
   * by `maxBodyBytes`, its connections by `maxConnections`, the handshake by `headersTimeoutMs`;
   * with `tls` it speaks TLS.
   */
  boltPort?: number;
}

/** The HTTPS settings of a service. */
export interface TlsConfig {
  cert: string | Buffer;
  key: string | Buffer;
  /** The key's passphrase, when it is encrypted. */
  passphrase?: string;
}

export interface RunOptions {
  /** Called with the URL once the server listens. */
  onListening?: (url: string) => void;
}

export interface ServiceStatus {
  code: 'OK';
  message: string;
}

export const STATUS_NOT_INITED = 'GraphDB service has not been inited!';
export const STATUS_NOT_STARTED = 'GraphDB service has not been started!';
export const STATUS_RUNNING = 'GraphDB service is running ...';

const DEFAULT_PORT = 10000;
const DEFAULT_HOST = '127.0.0.1';
const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;
const DEFAULT_WAITING_PER_SLOT = 64;
const DEFAULT_STOP_TIMEOUT_MS = 10_000;
const DEFAULT_QUERY_TIMEOUT_MS = 60_000;
const DEFAULT_MAX_RESULT_BYTES = 256 * 2 ** 20;
const DEFAULT_MAX_STATEMENT_MEMORY_BYTES = 2 ** 30;
const DEFAULT_COMPACTION_INTERVAL_MS = 1000;
const DEFAULT_COMPACTION_MIN_WRITES = 1000;
const DEFAULT_HEADERS_TIMEOUT_MS = 10_000;
const DEFAULT_RECEIVE_TIMEOUT_MS = 30_000;
const DEFAULT_KEEP_ALIVE_TIMEOUT_MS = 5000;
const DEFAULT_MAX_CONNECTIONS = 1024;
const DEFAULT_TX_IDLE_TIMEOUT_MS = 30_000;
const MAX_INT32 = 2 ** 31 - 1;
/** The service counts as idle once no slot was leased or released for this long. */
const COMPACTION_IDLE_MS = 250;

/** @internal Resolved limits the HTTP layer applies. */
export interface ServiceLimits {
  maxBodyBytes: number;
  maxWaiting: number;
  requestTimeoutMs: number | undefined;
}

type Phase = 'closed' | 'initialized' | 'starting' | 'running' | 'stopping';

/** @internal What the HTTP layer needs from the service. */
export interface ServiceRuntime {
  readonly pool: TpExecutionSlotPool | null;
  readonly limits: ServiceLimits;
  /** Which Host names and Origins requests may carry. */
  readonly access: AccessPolicy;
  /** The tokens requests must carry; null: none needed. */
  readonly auth: Authenticator | null;
  /** The explicit transactions open over HTTP. */
  readonly transactions: TransactionRegistry;
  /** False once the service is stopping or closed: new requests get 503. */
  readonly accepting: boolean;
  readonly stopping: boolean;
  /** Registers a waiting request's cancel function until the returned function is called. */
  trackWaiter(cancel: (reason: unknown) => void): () => void;
  readonly startedAt: number;
  readonly executedQueries: number;
  requestStarted(): void;
  requestFinished(): void;
}

const FIELDS = new Set([
  'queryPort',
  'hostStr',
  'threadNum',
  'autoCompaction',
  'maxBodyBytes',
  'maxWaiting',
  'requestTimeoutMs',
  'queryTimeoutMs',
  'maxResultBytes',
  'maxStatementMemoryBytes',
  'stopTimeoutMs',
  'autoCompactionIntervalMs',
  'autoCompactionMinWrites',
  'console',
  'allowedHosts',
  'corsOrigins',
  'headersTimeoutMs',
  'receiveTimeoutMs',
  'keepAliveTimeoutMs',
  'maxConnections',
  'auth',
  'insecure',
  'importDir',
  'tls',
  'txIdleTimeoutMs',
  'maxOpenTransactions',
  'boltPort',
]);

function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') {
    return String(value);
  }
  return value === null ? 'null' : typeof value;
}

function integerField(
  config: ServiceConfig,
  field: keyof ServiceConfig,
  min: number,
  max: number,
  fallback: number,
): number {
  const value = config[field];
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value)) {
    throw new TypeError(`ServiceConfig.${field} must be an integer, got ${describe(value)}`);
  }
  if (value < min || value > max) {
    throw new RangeError(`ServiceConfig.${field} must be between ${min} and ${max}, got ${value}`);
  }
  return value;
}

interface ResolvedConfig {
  port: number;
  host: string;
  poolSize: number;
  autoCompaction: boolean;
  stopTimeoutMs: number;
  queryTimeoutMs: number;
  statementLimits: StatementLimits;
  compactionIntervalMs: number;
  compactionMinWrites: number;
  limits: ServiceLimits;
  access: AccessPolicy;
  connections: ConnectionLimits;
  auth: Authenticator | null;
  files: FileAccess;
  tls: TlsConfig | null;
  txIdleTimeoutMs: number;
  maxOpenTransactions: number;
  /** The Bolt server's port (ServiceConfig.boltPort), when it has one. */
  boltPort: number | null;
}

/** How long clients may take and how many connections they may hold (ServiceConfig). */
interface ConnectionLimits {
  headersTimeoutMs: number;
  receiveTimeoutMs: number;
  keepAliveTimeoutMs: number;
  maxConnections: number;
}

function resolveConfig(config: ServiceConfig, maxThreadNum: number): ResolvedConfig {
  if (config === null || typeof config !== 'object' || Array.isArray(config)) {
    throw new TypeError(`ServiceConfig must be an object, got ${describe(config)}`);
  }
  for (const key of Object.keys(config)) {
    if (!FIELDS.has(key)) throw new TypeError(`unknown ServiceConfig field '${key}'`);
  }
  const port = integerField(config, 'queryPort', 0, 65535, DEFAULT_PORT);
  const host = config.hostStr ?? DEFAULT_HOST;
  if (typeof host !== 'string' || host.length === 0) {
    throw new TypeError(`ServiceConfig.hostStr must be a non-empty string, got ${describe(host)}`);
  }
  const auth = resolveAuth(config.auth);
  if (config.insecure !== undefined && typeof config.insecure !== 'boolean') {
    throw new TypeError(`ServiceConfig.insecure must be a boolean, got ${describe(config.insecure)}`);
  }
  if (!auth && !config.insecure && !isLoopbackHost(host)) {
    throw new RangeError(
      `ServiceConfig.hostStr ${JSON.stringify(host)} can be reached from other machines, and the service has no authentication: give it tokens (ServiceConfig.auth, --auth-file or GRAPHDB_TOKEN), or set insecure: true (--insecure) to serve it open anyway`,
    );
  }
  const files = resolveImportDir(config.importDir);
  const tls = resolveTls(config.tls);
  const threadNum = integerField(config, 'threadNum', 0, maxThreadNum, 0);
  const autoCompaction = config.autoCompaction ?? true;
  if (typeof autoCompaction !== 'boolean') {
    throw new TypeError(`ServiceConfig.autoCompaction must be a boolean, got ${describe(autoCompaction)}`);
  }
  if (config.console !== undefined && typeof config.console !== 'boolean') {
    throw new TypeError(`ServiceConfig.console must be a boolean, got ${describe(config.console)}`);
  }
  const poolSize = threadNum === 0 ? maxThreadNum : threadNum;
  const maxBodyBytes = integerField(config, 'maxBodyBytes', 1, 2 ** 31 - 1, DEFAULT_MAX_BODY_BYTES);
  const maxWaiting = integerField(config, 'maxWaiting', 0, 2 ** 31 - 1, DEFAULT_WAITING_PER_SLOT * poolSize);
  const requestTimeoutMs =
    config.requestTimeoutMs === undefined
      ? undefined
      : integerField(config, 'requestTimeoutMs', 1, 2 ** 31 - 1, 0);
  const stopTimeoutMs = integerField(config, 'stopTimeoutMs', 0, 2 ** 31 - 1, DEFAULT_STOP_TIMEOUT_MS);
  const queryTimeoutMs = integerField(config, 'queryTimeoutMs', 0, 2 ** 31 - 1, DEFAULT_QUERY_TIMEOUT_MS);
  const maxResultBytes = integerField(
    config,
    'maxResultBytes',
    0,
    Number.MAX_SAFE_INTEGER,
    DEFAULT_MAX_RESULT_BYTES,
  );
  const maxMemoryBytes = integerField(
    config,
    'maxStatementMemoryBytes',
    0,
    Number.MAX_SAFE_INTEGER,
    DEFAULT_MAX_STATEMENT_MEMORY_BYTES,
  );
  const compactionIntervalMs = integerField(
    config,
    'autoCompactionIntervalMs',
    1,
    2 ** 31 - 1,
    DEFAULT_COMPACTION_INTERVAL_MS,
  );
  const compactionMinWrites = integerField(
    config,
    'autoCompactionMinWrites',
    1,
    Number.MAX_SAFE_INTEGER,
    DEFAULT_COMPACTION_MIN_WRITES,
  );
  const headersTimeoutMs = integerField(config, 'headersTimeoutMs', 1, MAX_INT32, DEFAULT_HEADERS_TIMEOUT_MS);
  const receiveTimeoutMs = integerField(
    config,
    'receiveTimeoutMs',
    1,
    MAX_INT32,
    Math.max(DEFAULT_RECEIVE_TIMEOUT_MS, headersTimeoutMs),
  );
  if (headersTimeoutMs > receiveTimeoutMs) {
    throw new RangeError(
      `ServiceConfig.headersTimeoutMs (${headersTimeoutMs}) must not exceed receiveTimeoutMs (${receiveTimeoutMs}): the headers are part of the request`,
    );
  }
  const connections: ConnectionLimits = {
    headersTimeoutMs,
    receiveTimeoutMs,
    keepAliveTimeoutMs: integerField(
      config,
      'keepAliveTimeoutMs',
      1,
      MAX_INT32,
      DEFAULT_KEEP_ALIVE_TIMEOUT_MS,
    ),
    maxConnections: integerField(config, 'maxConnections', 1, MAX_INT32, DEFAULT_MAX_CONNECTIONS),
  };
  const boltPort = config.boltPort === undefined ? null : integerField(config, 'boltPort', 0, 65535, 0);
  const txIdleTimeoutMs = integerField(config, 'txIdleTimeoutMs', 1, MAX_INT32, DEFAULT_TX_IDLE_TIMEOUT_MS);
  const maxOpenTransactions = integerField(
    config,
    'maxOpenTransactions',
    0,
    poolSize - 1,
    Math.floor(poolSize / 2),
  );
  return {
    boltPort,
    port,
    host,
    poolSize,
    txIdleTimeoutMs,
    maxOpenTransactions,
    autoCompaction,
    stopTimeoutMs,
    queryTimeoutMs,
    statementLimits: { maxResultBytes, maxMemoryBytes },
    compactionIntervalMs,
    compactionMinWrites,
    limits: { maxBodyBytes, maxWaiting, requestTimeoutMs },
    access: resolveAccessPolicy(host, config.allowedHosts, config.corsOrigins, tls ? 'https' : 'http'),
    connections,
    auth,
    files,
    tls,
  };
}

function resolveImportDir(value: unknown): FileAccess {
  if (value === undefined) return { mode: 'none' };
  if (typeof value !== 'string' || value.length === 0 || value.includes('\0')) {
    throw new TypeError(`ServiceConfig.importDir must be a folder's path, got ${describe(value)}`);
  }
  let root: string;
  try {
    root = realpathSync(value);
  } catch (error) {
    throw new RangeError(
      `ServiceConfig.importDir ${JSON.stringify(value)} cannot be resolved: ${errorMessage(error)}`,
    );
  }
  if (!statSync(root).isDirectory()) {
    throw new RangeError(`ServiceConfig.importDir ${JSON.stringify(value)} is not a folder`);
  }
  return { mode: 'within', root };
}

/** Whether the first certificate of a PEM chain is self-signed (its own issuer). */
function selfSigned(pem: string | Buffer): boolean {
  try {
    const certificate = new X509Certificate(pem);
    return certificate.checkIssued(certificate);
  } catch {
    return false;
  }
}

function resolveTls(value: unknown): TlsConfig | null {
  if (value === undefined) return null;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new TypeError('ServiceConfig.tls must be an object { cert, key, passphrase? }');
  }
  const { cert, key, passphrase } = value as TlsConfig;
  for (const name of Object.keys(value)) {
    if (name !== 'cert' && name !== 'key' && name !== 'passphrase') {
      throw new TypeError(`ServiceConfig.tls has an unknown field '${name}'`);
    }
  }
  const pem = (field: string, v: unknown) => {
    if (!(typeof v === 'string' || Buffer.isBuffer(v)) || v.length === 0) {
      throw new TypeError(`ServiceConfig.tls.${field} must be a PEM string or Buffer`);
    }
  };
  pem('cert', cert);
  pem('key', key);
  if (passphrase !== undefined && typeof passphrase !== 'string') {
    throw new TypeError('ServiceConfig.tls.passphrase must be a string');
  }
  // A wrong certificate or key fails now, not at the first connection.
  try {
    createSecureContext({ cert, key, passphrase });
  } catch (error) {
    throw new TypeError(`ServiceConfig.tls: the certificate or key is not usable: ${errorMessage(error)}`);
  }
  return { cert, key, passphrase };
}

/**
 * Makes `server` close connections that hold it up (ServiceConfig): Node's own checks bound
 * the time to send headers and a whole request; a connection that sends nothing at all gets
 * the headers' time from its start (socket timeout, cleared when its first request arrives;
 * Node then runs the keep-alive timeout between requests).
 */
function limitConnections(server: Server, limits: ConnectionLimits, secure: boolean): void {
  server.keepAliveTimeout = limits.keepAliveTimeoutMs;
  server.maxConnections = limits.maxConnections;
  // Over TLS the HTTP layer sees the TLS socket once the handshake is done (bounded by
  // handshakeTimeout); the timeout goes on that socket, whose 'timeout' the server handles.
  server.on(secure ? 'secureConnection' : 'connection', (socket: Socket) =>
    socket.setTimeout(limits.headersTimeoutMs),
  );
  // Once per connection: a keep-alive connection's later requests find it cleared already.
  server.on('request', (request: IncomingMessage) => {
    if (request.socket.timeout) request.socket.setTimeout(0);
  });
}

/** How often Node looks for connections past the headers or receive timeout. */
function connectionsCheckingInterval(limits: ConnectionLimits): number {
  return Math.min(1000, Math.max(10, Math.floor(limits.headersTimeoutMs / 4)));
}

function formatUrl(host: string, port: number, scheme = 'http'): string {
  return host.includes(':') ? `${scheme}://[${host}]:${port}` : `${scheme}://${host}:${port}`;
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Bolt's login by the service's tokens: the credentials are the token; none is refused. */
function boltAuthenticate(auth: Authenticator): BoltAuthenticate {
  return (token) => {
    if (token === undefined) return null;
    const verdict = auth.authenticateToken(token);
    return 'role' in verdict ? { role: verdict.role } : null;
  };
}

let runtimeOf: (service: GraphDBService) => ServiceRuntime;

/** @internal The HTTP layer's view of a service. */
export function serviceRuntime(service: GraphDBService): ServiceRuntime {
  return runtimeOf(service);
}

/**
 * The HTTP layer (Hono, its Node adapter, the app and the `/cypher` fast path), loaded when a
 * service first starts listening rather than when the package is imported: an application that
 * only embeds the database (`new Database(dir)`) does not pay for it at start-up (~40 ms, most
 * of it the adapter pulling in Node's fetch implementation).
 */
async function loadHttpModules() {
  const [app, adapter, errors, fast] = await Promise.all([
    import('../server/app.js'),
    import('@hono/node-server'),
    import('../server/errors.js'),
    import('../server/fast-cypher.js'),
  ]);
  return {
    createApp: app.createApp,
    getRequestListener: adapter.getRequestListener,
    adapterErrorResponse: errors.adapterErrorResponse,
    withCypherFastPath: fast.withCypherFastPath,
  };
}

/**
 * Serves a Database over HTTP through a fixed pool of execution slots. See CONTRACT section 3
 * and docs/http-api.md.
 */
export class GraphDBService implements AsyncDisposable {
  readonly #db: Database;
  readonly #config: ServiceConfig;
  readonly #resolved: ResolvedConfig;
  #pool: TpExecutionSlotPool | null;
  #phase: Phase = 'initialized';
  #server: Server | null = null;
  #bolt: BoltServer | null = null;
  #url: string | null = null;
  #startedAt = Date.now();
  #startPromise: Promise<string> | null = null;
  #stopPromise: Promise<void> | null = null;
  #closePromise: Promise<void> | null = null;
  /** Settles when the current run ends (stop or close); what runAndWaitForExit waits on. */
  #runEnded: { promise: Promise<void>; resolve: () => void } | null = null;
  /** Cancels HTTP requests waiting for a slot (called when stop's grace runs out). */
  readonly #httpWaiters = new Set<(reason: unknown) => void>();
  #inFlight = 0;
  #drained: (() => void) | null = null;
  #compactionTimer: NodeJS.Timeout | null = null;
  #compacting: Promise<void> | null = null;
  #compactionFailures = 0;
  #compactionRetryAt = 0;
  readonly #runtime: ServiceRuntime;
  readonly #transactions: TransactionRegistry;

  static {
    runtimeOf = (service) => service.#runtime;
  }

  /**
   * Takes `db` over: validates `config`, closes every embedded connection of `db` (later use
   * throws CONNECTION_CLOSED) and opens the slot pool. Throws (and changes nothing) when `db`
   * is closed, another service holds it, or one of its connections has a statement in flight.
   */
  constructor(db: Database, config?: ServiceConfig) {
    if (!(db instanceof Database)) throw new TypeError('GraphDBService needs a Database');
    const given = config === undefined ? {} : config;
    const resolved = resolveConfig(given, db.maxThreadNum);
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
      resolved.queryTimeoutMs,
      resolved.statementLimits,
      resolved.files,
    );
    for (const connection of [...state.connections]) connection.close();
    state.owner = this;
    this.#db = db;
    this.#config = given;
    this.#resolved = resolved;

    const service = this;
    this.#transactions = new TransactionRegistry(resolved.txIdleTimeoutMs, resolved.maxOpenTransactions);
    this.#runtime = {
      transactions: this.#transactions,
      get pool() {
        return service.#pool;
      },
      limits: resolved.limits,
      access: resolved.access,
      auth: resolved.auth,
      get accepting() {
        return service.#pool !== null && service.#phase !== 'stopping';
      },
      get stopping() {
        return service.#phase === 'stopping';
      },
      trackWaiter(cancel) {
        service.#httpWaiters.add(cancel);
        return () => service.#httpWaiters.delete(cancel);
      },
      get startedAt() {
        return service.#startedAt;
      },
      get executedQueries() {
        return service.#pool?.getExecutedQueryNum() ?? 0;
      },
      requestStarted() {
        service.#inFlight++;
      },
      requestFinished() {
        if (--service.#inFlight === 0 && service.#drained) service.#drained();
      },
    };
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
    const { host, tls } = this.#resolved;
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
    const { host, port, connections, tls } = this.#resolved;
    let http: Awaited<ReturnType<typeof loadHttpModules>>;
    try {
      http = await loadHttpModules();
    } catch (error) {
      this.#phase = this.#pool ? 'initialized' : 'closed';
      throw error;
    }
    const { createApp, getRequestListener, adapterErrorResponse, withCypherFastPath } = http;
    const app = createApp(this);
    const serverOptions = {
      headersTimeout: connections.headersTimeoutMs,
      requestTimeout: connections.receiveTimeoutMs,
      connectionsCheckingInterval: connectionsCheckingInterval(connections),
    };
    // The adapter's listener with an error handler (createAdaptorServer passes none on): a
    // request it cannot build (a Host that names no host, a backslash in the path) gets the
    // contract's JSON error, not an empty 400.
    // `POST /cypher` takes a fast path in front of it (src/server/fast-cypher.ts).
    const listener = withCypherFastPath(
      this.#runtime,
      getRequestListener(app.fetch, { hostname: host, errorHandler: adapterErrorResponse }),
    );
    const server: Server = tls
      ? createHttpsServer(
          {
            ...serverOptions,
            ...tls,
            // The handshake counts against the time to send the headers.
            handshakeTimeout: connections.headersTimeoutMs,
          },
          listener,
        )
      : createHttpServer(serverOptions, listener);
    limitConnections(server, connections, tls !== null);
    try {
      await listenOn(server, port, host);
    } catch (error) {
      this.#phase = this.#pool ? 'initialized' : 'closed';
      const code = (error as NodeJS.ErrnoException).code;
      throw new Error(
        `cannot bind ${formatUrl(host, port)}: ${code ? `${code} ` : ''}(${errorMessage(error)})`,
        { cause: error },
      );
    }
    server.on('error', (error) => {
      process.stderr.write(`graphdb: HTTP server error: ${errorMessage(error)}\n`);
    });
    if (this.#resolved.boltPort !== null) {
      try {
        this.#bolt = await this.#listenBolt(this.#resolved.boltPort);
      } catch (error) {
        await new Promise<void>((resolve) => server.close(() => resolve()));
        this.#phase = this.#pool ? 'initialized' : 'closed';
        throw error;
      }
    }
    const address = server.address() as AddressInfo;
    this.#server = server;
    this.#url = formatUrl(host, address.port, tls ? 'https' : 'http');
    this.#startedAt = Date.now();
    let resolveEnded!: () => void;
    const promise = new Promise<void>((resolve) => {
      resolveEnded = resolve;
    });
    this.#runEnded = { promise, resolve: resolveEnded };
    this.#phase = 'running';
    this.#transactions.reopen();
    if (this.#resolved.autoCompaction) this.#startCompaction();
    return this.#url;
  }

  /**
   * Starts the Bolt server (src/bolt/server.ts) on the service's host, with TLS when the
   * service has it. Its clients log in with the tokens of `auth`, and its explicit transactions
   * count against `maxOpenTransactions` with the HTTP ones.
   */
  async #listenBolt(port: number): Promise<BoltServer> {
    const { host, connections, limits, queryTimeoutMs, statementLimits, auth, tls, txIdleTimeoutMs } =
      this.#resolved;
    const transactions = this.#transactions;
    const { BoltServer } = await import('../bolt/server.js');
    const bolt = new BoltServer({
      host,
      port,
      tls,
      maxConnections: connections.maxConnections,
      handshakeTimeoutMs: connections.headersTimeoutMs,
      maxMessageBytes: limits.maxBodyBytes,
      idleTransactionTimeoutMs: txIdleTimeoutMs,
      openTransaction: () => transactions.reserve(),
      closeTransaction: () => transactions.unreserve(),
      slotWaitMs: limits.requestTimeoutMs,
      queryTimeoutMs,
      maxResultBytes: statementLimits.maxResultBytes,
      authenticate: auth ? boltAuthenticate(auth) : null,
      serverAgent: `QuiverDB/${VERSION}`,
      acquire: (signal) => this.acquireExecutionSlot({ signal }),
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
    this.#stopCompaction();
    const bolt = this.#bolt;
    this.#bolt = null;
    const boltStopped = bolt?.stop(this.#resolved.stopTimeoutMs);
    // Explicit transactions roll back (each after the request it is running).
    const rolledBack = this.#transactions.closeAll();
    const server = this.#server;
    this.#server = null;
    if (server) {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const graceOver = await this.#drain(this.#resolved.stopTimeoutMs);
      if (graceOver) {
        // Requests still waiting for a slot give up; connections still open are cut.
        const reason = new GraphDBError('the GraphDB service is stopping', 'SERVICE_UNAVAILABLE');
        for (const cancel of [...this.#httpWaiters]) cancel(reason);
        // Statements still running stop (their requests get QUERY_CANCELLED), so the slots
        // come free and the process can exit instead of waiting for them.
        this.#pool?.interruptAll();
        server.closeAllConnections();
      } else {
        server.closeIdleConnections();
      }
      // Connections whose last response is being written close on their own (the responses
      // sent while stopping carry `Connection: close`); cut any that linger.
      const lingering = setTimeout(() => server.closeAllConnections(), 1000);
      await closed;
      clearTimeout(lingering);
    }
    await boltStopped;
    await rolledBack;
    await this.#compacting;
    this.#phase = this.#pool ? 'initialized' : 'closed';
    this.#url = null;
    const ended = this.#runEnded;
    this.#runEnded = null;
    ended?.resolve();
  }

  /** Waits until no HTTP request is in flight; true when the grace ran out first. */
  #drain(graceMs: number): Promise<boolean> {
    if (this.#inFlight === 0) return Promise.resolve(false);
    return new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => {
        this.#drained = null;
        resolve(true);
      }, graceMs);
      this.#drained = () => {
        this.#drained = null;
        clearTimeout(timer);
        resolve(false);
      };
    });
  }

  async #close(): Promise<void> {
    if (this.#startPromise) await this.#startPromise.catch(() => undefined);
    if (this.#phase === 'running') await this.stop();
    else if (this.#stopPromise) await this.#stopPromise;
    await this.#transactions.closeAll();
    const pool = this.#pool;
    this.#pool = null;
    this.#phase = 'closed';
    this.#stopCompaction();
    await pool?.close();
    const state = databaseInternals(this.#db);
    if (state.owner === this) state.owner = null;
  }

  #startCompaction(): void {
    const timer = setInterval(() => this.#compactionTick(), this.#resolved.compactionIntervalMs);
    timer.unref();
    this.#compactionTimer = timer;
  }

  #stopCompaction(): void {
    if (this.#compactionTimer) clearInterval(this.#compactionTimer);
    this.#compactionTimer = null;
  }

  #compactionTick(): void {
    const pool = this.#pool;
    if (this.#phase !== 'running' || !pool || this.#compacting) return;
    if (this.#inFlight > 0 || pool.inUse > 0 || pool.waiting > 0) return;
    const now = Date.now();
    if (now - pool.lastActivity < COMPACTION_IDLE_MS || now < this.#compactionRetryAt) return;
    let writes: number;
    try {
      writes = databaseInternals(this.#db).native.writesSinceCompaction;
    } catch {
      return;
    }
    if (writes < this.#resolved.compactionMinWrites) return;
    const lease = pool.tryAcquireExecutionSlot();
    if (!lease) return;
    this.#compacting = compactOnSlot(lease.slot)
      .then(
        () => {
          this.#compactionFailures = 0;
        },
        (error: unknown) => {
          // Back off (up to a minute) so that a persistent failure does not flood the log.
          this.#compactionFailures++;
          const delay = Math.min(60_000, this.#resolved.compactionIntervalMs * 2 ** this.#compactionFailures);
          this.#compactionRetryAt = Date.now() + delay;
          process.stderr.write(`graphdb: auto-compaction failed: ${errorMessage(error)}\n`);
        },
      )
      .finally(() => {
        lease.release();
        this.#compacting = null;
      });
  }
}
