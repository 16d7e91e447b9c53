// `graphdb serve`: opens (or creates) a database, optionally loads the demo graph, serves it
// over HTTP until SIGINT/SIGTERM, then shuts down cleanly (exit code 0).

import { readFileSync } from 'node:fs';
import { Database } from '../core/database.js';
import { type AuthConfig, type AuthToken, readAuthFile, resolveAuth } from '../runtime/auth.js';
import { GraphDBService, type ServiceConfig } from '../service/service.js';
import { resolveDataDir } from './data-dir.js';
import { loadDemo } from './demo.js';

export interface ServeOptions {
  port: number;
  host: string;
  /** --bolt-port: serve Bolt too. */
  boltPort?: number;
  threads: number;
  maxThreads: number;
  autoCompaction: boolean;
  syncOnCommit: boolean;
  queryTimeout: number;
  stopTimeout: number;
  maxResultBytes: number;
  maxStatementMemory: number;
  demo?: boolean;
  /** false with --no-console. */
  console: boolean;
  allowedHost: string[];
  corsOrigin: string[];
  headersTimeout?: number;
  receiveTimeout?: number;
  keepAliveTimeout?: number;
  maxConnections?: number;
  adminReservedConnections?: number;
  boltMaxConnectionsPerToken?: number;
  boltIdleTimeout?: number;
  txTimeout?: number;
  maxTransactions?: number;
  authFile?: string;
  insecure?: boolean;
  importDir?: string;
  tlsCert?: string;
  tlsKey?: string;
}

/** The environment variable that holds a single admin token. */
export const TOKEN_VARIABLE = 'GRAPHDB_TOKEN';

/** The tokens of --auth-file and GRAPHDB_TOKEN (an admin), or undefined when neither is given. */
function authOf(options: ServeOptions, env: NodeJS.ProcessEnv): AuthConfig | undefined {
  const tokens: AuthToken[] = options.authFile ? [...readAuthFile(options.authFile).tokens] : [];
  const token = env[TOKEN_VARIABLE];
  if (token !== undefined && token !== '') tokens.push({ token, role: 'admin' });
  if (tokens.length === 0) return undefined;
  const config = { tokens };
  resolveAuth(
    config,
    options.authFile ? `--auth-file ${options.authFile} with ${TOKEN_VARIABLE}:` : `${TOKEN_VARIABLE}:`,
  );
  return config;
}

function readPem(path: string, flag: string): Buffer {
  try {
    return readFileSync(path);
  } catch (error) {
    throw new Error(`cannot read ${flag} ${path}: ${(error as Error).message}`);
  }
}

/** The ServiceConfig the options describe; options left out keep the config's defaults. */
export function serviceConfigOf(options: ServeOptions, env: NodeJS.ProcessEnv = process.env): ServiceConfig {
  const config: ServiceConfig = {
    queryPort: options.port,
    hostStr: options.host,
    threadNum: options.threads,
    autoCompaction: options.autoCompaction,
    queryTimeoutMs: options.queryTimeout,
    stopTimeoutMs: options.stopTimeout,
    maxResultBytes: options.maxResultBytes,
    maxStatementMemoryBytes: options.maxStatementMemory,
    allowedHosts: options.allowedHost,
    corsOrigins: options.corsOrigin,
    console: options.console,
  };
  if (options.headersTimeout !== undefined) config.headersTimeoutMs = options.headersTimeout;
  if (options.receiveTimeout !== undefined) config.receiveTimeoutMs = options.receiveTimeout;
  if (options.keepAliveTimeout !== undefined) config.keepAliveTimeoutMs = options.keepAliveTimeout;
  if (options.maxConnections !== undefined) config.maxConnections = options.maxConnections;
  if (options.adminReservedConnections !== undefined)
    config.adminReservedConnections = options.adminReservedConnections;
  if (options.boltMaxConnectionsPerToken !== undefined)
    config.boltMaxConnectionsPerToken = options.boltMaxConnectionsPerToken;
  if (options.boltIdleTimeout !== undefined) config.boltIdleTimeoutMs = options.boltIdleTimeout;
  if (options.boltPort !== undefined) config.boltPort = options.boltPort;
  const auth = authOf(options, env);
  if (auth) config.auth = auth;
  if (options.insecure) config.insecure = true;
  if (options.importDir !== undefined) config.importDir = options.importDir;
  if ((options.tlsCert === undefined) !== (options.tlsKey === undefined)) {
    throw new Error('--tls-cert and --tls-key go together: give both to serve HTTPS');
  }
  if (options.tlsCert !== undefined && options.tlsKey !== undefined) {
    config.tls = { cert: readPem(options.tlsCert, '--tls-cert'), key: readPem(options.tlsKey, '--tls-key') };
  }
  if (options.txTimeout !== undefined) config.txIdleTimeoutMs = options.txTimeout;
  if (options.maxTransactions !== undefined) config.maxOpenTransactions = options.maxTransactions;
  return config;
}

/**
 * Serves the database in `given` (undefined: the default folder; with --demo, a temporary one
 * removed at exit).
 */
export async function runServe(given: string | undefined, options: ServeOptions): Promise<void> {
  // Checked before the database opens: a bad flag changes nothing on disk.
  const config = serviceConfigOf(options);
  const { dir, announce, cleanup } = resolveDataDir(given, options.demo === true);
  try {
    announce();
    await serveDatabase(dir, config, options);
  } finally {
    cleanup();
  }
}

async function serveDatabase(dir: string, config: ServiceConfig, options: ServeOptions): Promise<void> {
  const db = new Database(dir, {
    syncOnCommit: options.syncOnCommit,
    ...(options.maxThreads === 0 ? {} : { maxThreadNum: options.maxThreads }),
  });
  try {
    if (options.demo) {
      const conn = db.connect();
      try {
        const loaded = await loadDemo(conn);
        process.stderr.write(
          loaded
            ? `demo: loaded ${loaded.persons} Person, ${loaded.cities} City, ${loaded.knows} Knows and ${loaded.livesIn} LivesIn\n`
            : 'demo: the database is not empty; nothing loaded\n',
        );
      } finally {
        conn.close();
      }
    }
    const service = new GraphDBService(db, config);
    try {
      await service.runAndWaitForExit({
        onListening: (url) => {
          const slots = service.pool?.size ?? 0;
          process.stdout.write(`QuiverDB service listening on ${url} (${slots} execution slots)\n`);
          process.stdout.write('POST /cypher, GET /schema, GET /status; Ctrl-C to stop\n');
          const auth = config.auth ? `${config.auth.tokens.length} token(s)` : 'none (loopback only)';
          process.stdout.write(
            `Authentication: ${config.insecure && !config.auth ? 'NONE (--insecure)' : auth}\n`,
          );
          if (options.console) process.stdout.write(`Web console: ${url}/\n`);
          if (service.boltUrl) process.stdout.write(`Bolt (Neo4j drivers): ${service.boltUrl}\n`);
        },
      });
    } finally {
      await service.close();
    }
    process.stderr.write('QuiverDB service stopped\n');
  } finally {
    db.close();
  }
}
