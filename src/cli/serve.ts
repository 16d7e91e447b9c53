// `graphdb serve`: opens (or creates) a database, optionally loads the demo graph, serves it
// over HTTP until SIGINT/SIGTERM, then shuts down cleanly (exit code 0).

import { Database } from '../core/database.js';
import { GraphDBService, type ServiceConfig } from '../service/service.js';
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
}

/** The ServiceConfig the options describe; options left out keep the config's defaults. */
export function serviceConfigOf(options: ServeOptions): ServiceConfig {
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
  if (options.boltPort !== undefined) config.boltPort = options.boltPort;
  return config;
}

export async function runServe(dir: string, options: ServeOptions): Promise<void> {
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
    const service = new GraphDBService(db, serviceConfigOf(options));
    try {
      await service.runAndWaitForExit({
        onListening: (url) => {
          const slots = service.pool?.size ?? 0;
          process.stdout.write(`GraphDB service listening on ${url} (${slots} execution slots)\n`);
          process.stdout.write('POST /cypher, GET /schema, GET /status; Ctrl-C to stop\n');
          if (options.console) process.stdout.write(`Web console: ${url}/\n`);
          if (service.boltUrl) process.stdout.write(`Bolt (Neo4j drivers): ${service.boltUrl}\n`);
        },
      });
    } finally {
      await service.close();
    }
    process.stderr.write('GraphDB service stopped\n');
  } finally {
    db.close();
  }
}
