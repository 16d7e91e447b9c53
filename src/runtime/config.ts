// The configuration of a GraphDBService: one table of fields (CONFIG_FIELDS) that checks each
// value, gives its default and documents it. The table's text is the `ServiceConfig` table of
// docs/http-api.md (test/runtime/config.test.ts keeps the two the same); an unknown field is
// refused because the table does not have it.

import { realpathSync, statSync } from 'node:fs';
import { createSecureContext } from 'node:tls';
import type { StatementLimits } from '../core/statement-control.js';
import { type AuthConfig, type Authenticator, isLoopbackHost, resolveAuth } from './auth.js';
import type { FileAccess } from './pool.js';

/** Configuration of a GraphDBService (all fields optional; docs/http-api.md, "ServiceConfig"). */
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
   * collect and DISTINCT keep), DISTINCT, collected lists, path sets and the lists, strings
   * and maps its expressions build may hold at once, in
   * bytes; past it: 400 RESOURCE_LIMIT. Default 1 GiB; 0: no limit.
   */
  maxStatementMemoryBytes?: number;
  /**
   * The most threads one statement may use for its own work (docs/execution.md): 0 (default)
   * = the database's queryThreads, else at most that.
   */
  queryThreads?: number;
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
  /**
   * Most connections open at once, per protocol. At the limit a new HTTP connection takes the
   * place of the oldest one that is idle (sent nothing yet, or waits between keep-alive
   * requests); when none is, it is closed. Default 1024.
   */
  maxConnections?: number;
  /**
   * Bolt connections kept for admin tokens past `maxConnections`: once that many are open, only
   * an admin may still log in (with `auth`). Default 8.
   */
  adminReservedConnections?: number;
  /**
   * Most Bolt connections one token may have logged in at once; one more is refused at
   * HELLO/LOGON. Default 64; 0: no limit.
   */
  boltMaxConnectionsPerToken?: number;
  /**
   * How long a logged-in Bolt connection may stay idle (no request running, no transaction or
   * result open) before the service closes it. Default 300000 (5 minutes); 0: no limit.
   */
  boltIdleTimeoutMs?: number;
  /**
   * Most PackStream values (nested ones and map keys included) one Bolt message of a logged-in
   * client may hold; a message over it is refused with a FAILURE before it is converted.
   * Default 100000. Before login the limits are fixed and much lower (docs/bolt.md).
   */
  boltMaxMessageValues?: number;
  /**
   * How long an explicit transaction (HTTP `POST /tx`, Bolt BEGIN) may stay idle (no request
   * running in it) before it is rolled back and forgotten. Default 30000 ms.
   */
  txIdleTimeoutMs?: number;
  /**
   * Most explicit transactions open at once (each holds an execution slot); more get 503.
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

const MAX_INT32 = 2 ** 31 - 1;

/** What a field's check may read: the database's thread count and the fields checked before. */
interface Checked {
  readonly maxThreadNum: number;
  /** The resolved value of a field that comes earlier in the table. */
  readonly get: <K extends keyof ConfigValues>(field: K) => ConfigValues[K];
}

/** One row of the table: its documentation and its check, which resolves the given value. */
interface Field<T> {
  /** The default, as docs/http-api.md writes it. */
  readonly shown: string;
  /** What the field means, as docs/http-api.md writes it. */
  readonly doc: string;
  /** Checks `value` (undefined when not given) and resolves it; throws naming the field. */
  readonly resolve: (value: unknown, field: string, config: Checked) => T;
}

function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') {
    return String(value);
  }
  return value === null ? 'null' : typeof value;
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

type Bound = number | ((config: Checked) => number);

/** An integer within [min, max]; `fallback` when not given. */
function integer(min: number, max: Bound, fallback: Bound, shown: string, doc: string): Field<number> {
  return {
    shown,
    doc,
    resolve(value, field, config) {
      if (value === undefined) return typeof fallback === 'number' ? fallback : fallback(config);
      if (typeof value !== 'number' || !Number.isInteger(value)) {
        throw new TypeError(`ServiceConfig.${field} must be an integer, got ${describe(value)}`);
      }
      const top = typeof max === 'number' ? max : max(config);
      if (value < min || value > top) {
        throw new RangeError(`ServiceConfig.${field} must be between ${min} and ${top}, got ${value}`);
      }
      return value;
    },
  };
}

/** An integer field with no default: undefined when not given. */
function optionalInteger(min: number, max: number, shown: string, doc: string): Field<number | undefined> {
  const check = integer(min, max, 0, shown, doc);
  return {
    ...check,
    resolve: (value, field, config) =>
      value === undefined ? undefined : check.resolve(value, field, config),
  };
}

function boolean(fallback: boolean, shown: string, doc: string): Field<boolean> {
  return {
    shown,
    doc,
    resolve(value, field) {
      if (value === undefined) return fallback;
      if (typeof value !== 'boolean') {
        throw new TypeError(`ServiceConfig.${field} must be a boolean, got ${describe(value)}`);
      }
      return value;
    },
  };
}

/** A field the HTTP layer checks as it reads it (the Host and Origin lists: src/http/access.ts). */
function passedOn(shown: string, doc: string): Field<unknown> {
  return { shown, doc, resolve: (value) => value };
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

/** The slot count: threadNum, or the database's maxThreadNum for 0. */
function poolSizeOf(config: Checked): number {
  const threadNum = config.get('threadNum');
  return threadNum === 0 ? config.maxThreadNum : threadNum;
}

/**
 * Every field of ServiceConfig, in the order they are checked (a field's check may read the
 * fields above it), with its default and meaning as docs/http-api.md lists them.
 */
export const CONFIG_FIELDS = {
  queryPort: integer(
    0,
    65535,
    10000,
    '`10000`',
    'port to bind; `0` picks a free one (see the URL `start()` returns)',
  ),
  hostStr: {
    shown: "`'127.0.0.1'`",
    doc: "address to bind (`'0.0.0.0'` / `'::'` for every interface)",
    resolve(value: unknown): string {
      const host = value ?? '127.0.0.1';
      if (typeof host !== 'string' || host.length === 0) {
        throw new TypeError(`ServiceConfig.hostStr must be a non-empty string, got ${describe(host)}`);
      }
      return host;
    },
  },
  threadNum: integer(
    0,
    (config) => config.maxThreadNum,
    0,
    '`0`',
    'slots; `0` = `db.maxThreadNum`, else an integer `1..db.maxThreadNum`',
  ),
  autoCompaction: boolean(true, '`true`', 'background compaction while running'),
  maxBodyBytes: integer(1, MAX_INT32, 1024 * 1024, '`1048576`', 'largest `/cypher` body'),
  maxWaiting: integer(
    0,
    MAX_INT32,
    (config) => 64 * poolSizeOf(config),
    '`64 × slots`',
    'HTTP requests allowed to wait for a slot',
  ),
  requestTimeoutMs: optionalInteger(1, MAX_INT32, 'none', 'longest an HTTP request waits for a slot'),
  queryTimeoutMs: integer(
    0,
    MAX_INT32,
    60_000,
    '`60000`',
    'time limit of each statement (408 past it); `0`: none',
  ),
  maxResultBytes: integer(
    0,
    Number.MAX_SAFE_INTEGER,
    256 * 2 ** 20,
    '`268435456`',
    'largest result of one statement, as the engine holds it (400 `RESOURCE_LIMIT` past it); `0`: none',
  ),
  maxStatementMemoryBytes: integer(
    0,
    Number.MAX_SAFE_INTEGER,
    2 ** 30,
    '`1073741824`',
    "most memory one statement's sorts, hash aggregations, DISTINCT, `collect()` lists, variable-length path sets and the lists, strings and maps its expressions build may hold at once (400 `RESOURCE_LIMIT`); `0`: none",
  ),
  queryThreads: integer(
    0,
    256,
    0,
    '`0`',
    'most threads one statement may use (docs/execution.md); `0` = `db.queryThreads`, else at most that',
  ),
  stopTimeoutMs: integer(
    0,
    MAX_INT32,
    10_000,
    '`10000`',
    'grace `stop()` gives requests in flight; then their statements are cancelled',
  ),
  autoCompactionIntervalMs: integer(1, MAX_INT32, 1000, '`1000`', 'how often the compaction loop looks'),
  autoCompactionMinWrites: integer(
    1,
    Number.MAX_SAFE_INTEGER,
    1000,
    '`1000`',
    'writes since the last compaction that make one worthwhile',
  ),
  console: boolean(true, '`true`', 'serve the web console at `/`'),
  allowedHosts: passedOn(
    '`[]`',
    "host names (no port) requests may name besides IP addresses, `localhost` and `hostStr`; `['*']` allows any",
  ),
  corsOrigins: passedOn(
    '`[]`',
    "origins (`'https://app.example.com'`) whose pages may call the service; `['*']` allows any",
  ),
  headersTimeoutMs: integer(
    1,
    MAX_INT32,
    10_000,
    '`10000`',
    "time a client has to send a request's headers (from the connection's start for its first request)",
  ),
  receiveTimeoutMs: {
    shown: '`max(30000, headersTimeoutMs)`',
    doc: 'time a client has to send a whole request; at least `headersTimeoutMs`',
    resolve(value: unknown, field: string, config: Checked): number {
      const headersTimeoutMs = config.get('headersTimeoutMs');
      const receive = integer(1, MAX_INT32, Math.max(30_000, headersTimeoutMs), '', '').resolve(
        value,
        field,
        config,
      );
      if (headersTimeoutMs > receive) {
        throw new RangeError(
          `ServiceConfig.headersTimeoutMs (${headersTimeoutMs}) must not exceed receiveTimeoutMs (${receive}): the headers are part of the request`,
        );
      }
      return receive;
    },
  },
  keepAliveTimeoutMs: integer(
    1,
    MAX_INT32,
    5000,
    '`5000`',
    'how long an idle keep-alive connection stays open',
  ),
  maxConnections: integer(
    1,
    MAX_INT32,
    1024,
    '`1024`',
    'most connections open at once, per protocol; at the limit a new HTTP connection replaces the oldest idle one',
  ),
  adminReservedConnections: integer(
    0,
    65535,
    8,
    '`8`',
    'Bolt connections past `maxConnections` that only admin tokens may log in on',
  ),
  boltMaxConnectionsPerToken: integer(
    0,
    MAX_INT32,
    64,
    '`64`',
    'most Bolt connections one token may have logged in at once (`0`: no limit)',
  ),
  boltIdleTimeoutMs: integer(
    0,
    MAX_INT32,
    300_000,
    '`300000`',
    'how long a logged-in Bolt connection may stay idle (no request, transaction or result open) before it is closed (`0`: never)',
  ),
  boltMaxMessageValues: integer(
    1,
    MAX_INT32,
    100_000,
    '`100000`',
    'most PackStream values (nested ones and map keys included) one Bolt message may hold once the client has logged in; a larger one is refused with a FAILURE (before login: 16 KiB, 256 values, 8 levels, and the connection closes)',
  ),
  auth: {
    shown: 'none',
    doc: "`{ tokens: [{ token \\| sha256, role }] }`, roles `reader`, `writer`, `admin`; every route but `GET /status` and the web console's static files then needs `Authorization: Bearer <token>` ([docs/security.md](security.md))",
    resolve: (value: unknown): Authenticator | null => resolveAuth(value),
  },
  insecure: {
    shown: '`false`',
    doc: 'allow a `hostStr` other machines reach without `auth` (refused otherwise)',
    resolve(value: unknown, field: string, config: Checked): boolean {
      const insecure = boolean(false, '', '').resolve(value, field, config);
      const host = config.get('hostStr');
      if (!config.get('auth') && !insecure && !isLoopbackHost(host)) {
        throw new RangeError(
          `ServiceConfig.hostStr ${JSON.stringify(host)} can be reached from other machines, and the service has no authentication: give it tokens (ServiceConfig.auth, --auth-file or GRAPHDB_TOKEN), or set insecure: true (--insecure) to serve it open anyway`,
        );
      }
      return insecure;
    },
  },
  importDir: {
    shown: 'none',
    doc: 'the folder `COPY`/`LOAD FROM` of admins in `schema` mode may use (paths resolved inside it); without it such statements get 403',
    resolve: resolveImportDir,
  },
  tls: { shown: 'none', doc: '`{ cert, key, passphrase? }` (PEM): serve HTTPS', resolve: resolveTls },
  txIdleTimeoutMs: integer(
    1,
    MAX_INT32,
    30_000,
    '`30000`',
    'how long an [explicit transaction](#explicit-transactions) may stay idle before it rolls back',
  ),
  maxOpenTransactions: integer(
    0,
    (config) => poolSizeOf(config) - 1,
    (config) => Math.floor(poolSizeOf(config) / 2),
    '`floor(slots / 2)`',
    'most explicit transactions open at once, `0..slots-1` (each holds a slot)',
  ),
  boltPort: {
    shown: 'none',
    doc: 'also serve Bolt on this port (`0`: a free one); see [bolt.md](bolt.md)',
    resolve: (value: unknown, field: string, config: Checked): number | null =>
      value === undefined ? null : integer(0, 65535, 0, '', '').resolve(value, field, config),
  },
} satisfies { readonly [K in keyof ServiceConfig]-?: Field<unknown> };

/** The resolved value of every field. */
export type ConfigValues = {
  readonly [K in keyof typeof CONFIG_FIELDS]: ReturnType<(typeof CONFIG_FIELDS)[K]['resolve']>;
};

/** A ServiceConfig checked and completed with defaults, grouped as its users need it. */
export interface ResolvedConfig {
  readonly values: ConfigValues;
  /** The slot count. */
  readonly poolSize: number;
  readonly statementLimits: StatementLimits;
}

/**
 * Checks `config` against the table and resolves every field (`maxThreadNum`: the database's).
 * Throws TypeError for a wrong type or an unknown field, RangeError for a value out of range.
 */
export function resolveConfig(config: ServiceConfig, maxThreadNum: number): ResolvedConfig {
  if (config === null || typeof config !== 'object' || Array.isArray(config)) {
    throw new TypeError(`ServiceConfig must be an object, got ${describe(config)}`);
  }
  for (const key of Object.keys(config)) {
    if (!Object.hasOwn(CONFIG_FIELDS, key)) throw new TypeError(`unknown ServiceConfig field '${key}'`);
  }
  const values: Record<string, unknown> = {};
  const checked: Checked = {
    maxThreadNum,
    get: (field) => values[field] as never,
  };
  for (const [field, spec] of Object.entries(CONFIG_FIELDS) as [string, Field<unknown>][]) {
    values[field] = spec.resolve((config as Record<string, unknown>)[field], field, checked);
  }
  const resolved = values as ConfigValues;
  return {
    values: resolved,
    poolSize: poolSizeOf(checked),
    statementLimits: {
      maxResultBytes: resolved.maxResultBytes,
      maxMemoryBytes: resolved.maxStatementMemoryBytes,
      queryThreads: resolved.queryThreads,
    },
  };
}

/** The fields as the Markdown table of docs/http-api.md ("ServiceConfig") lists them. */
export function configTable(): string {
  const rows = Object.entries(CONFIG_FIELDS).map(
    ([field, spec]: [string, Field<unknown>]) => `| \`${field}\` | ${spec.shown} | ${spec.doc} |`,
  );
  return ['| Field | Default | Meaning |', '|---|---|---|', ...rows].join('\n');
}
