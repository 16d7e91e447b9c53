// Shared harness of the transaction tests: temporary databases (in memory or in a temp folder),
// explicit transactions that tolerate conflicts, and a bounded concurrent workload runner.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type Connection, Database, GraphDBError, type QueryParameters } from '../../src/index.js';

export type Backend = 'in-memory' | 'on-disk';

/** Error codes a transaction may fail with under concurrency without anything being wrong. */
export const RETRYABLE_CODES: ReadonlySet<string> = new Set(['TX_CONFLICT']);

export function isRetryable(error: unknown): boolean {
  return error instanceof GraphDBError && RETRYABLE_CODES.has(error.code);
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Gives other connections a chance to run inside a transaction: half the time a macrotask
 * turn, half the time about a millisecond. Widens the windows in which an anomaly could show.
 */
export function pause(): Promise<void> {
  return Math.random() < 0.5 ? new Promise((resolve) => setImmediate(resolve)) : sleep(1);
}

/** A database under test with `connections` connections; reopenable when on disk. */
export class TestDatabase {
  readonly backend: Backend;
  readonly dir: string | null;
  db: Database;
  conns: Connection[] = [];
  readonly #connections: number;

  constructor(backend: Backend, connections = 4) {
    this.backend = backend;
    this.#connections = connections;
    this.dir = backend === 'on-disk' ? mkdtempSync(path.join(os.tmpdir(), 'graphdb-acid-')) : null;
    this.db = this.#open();
  }

  get path(): string {
    return this.dir ? path.join(this.dir, 'db') : ':memory:';
  }

  /** The first connection, for set-up and checks. */
  get conn(): Connection {
    return this.conns[0]!;
  }

  /** Runs `text` on the first connection and returns the rows. */
  async rows(text: string, params?: QueryParameters): Promise<unknown[][]> {
    return (await this.conn.query(text, params)).rows;
  }

  /** Runs `text` on the first connection and returns the single value of its single row. */
  async value(text: string, params?: QueryParameters): Promise<unknown> {
    const rows = await this.rows(text, params);
    if (rows.length !== 1 || rows[0]!.length !== 1) {
      throw new Error(`expected one value from ${text}, got ${JSON.stringify(rows)}`);
    }
    return rows[0]![0];
  }

  /** Closes and reopens an on-disk database (a no-op in memory): checks what was persisted. */
  reopen(): void {
    if (!this.dir) return;
    this.db.close();
    this.db = this.#open();
  }

  /** Closes the database and removes its folder. Idempotent. */
  close(): void {
    this.db.close();
    if (this.dir) rmSync(this.dir, { recursive: true, force: true });
  }

  #open(): Database {
    const db = new Database(this.path, { maxThreadNum: Math.max(4, this.#connections) });
    this.conns = Array.from({ length: this.#connections }, () => db.connect());
    return db;
  }
}

/**
 * Ends any transaction open on `conn`. ROLLBACK refused as an invalid request (the database
 * already ended the transaction, e.g. after a failed statement) is not an error here.
 */
export async function rollbackQuietly(conn: Connection): Promise<void> {
  try {
    await conn.query('ROLLBACK');
  } catch (error) {
    if (!(error instanceof GraphDBError && error.code === 'INVALID_REQUEST')) throw error;
  }
}

export interface TxOptions {
  readOnly?: boolean;
  /** End with ROLLBACK instead of COMMIT. */
  rollback?: boolean;
}

export type TxOutcome<T> = { status: 'committed' | 'rolled-back'; value: T } | { status: 'aborted' };

/**
 * Runs `body` between BEGIN TRANSACTION and COMMIT (or ROLLBACK) on `conn`. A transaction the
 * database refuses with a retryable code (a conflict) comes back as `aborted`; any other error
 * is rethrown, after the transaction is rolled back so that no connection is left blocked.
 */
export async function transaction<T>(
  conn: Connection,
  body: (conn: Connection) => Promise<T>,
  options: TxOptions = {},
): Promise<TxOutcome<T>> {
  try {
    await conn.query(options.readOnly ? 'BEGIN TRANSACTION READ ONLY' : 'BEGIN TRANSACTION');
    const value = await body(conn);
    if (options.rollback) await rollbackQuietly(conn);
    else await conn.query('COMMIT');
    return { status: options.rollback ? 'rolled-back' : 'committed', value };
  } catch (error) {
    await rollbackQuietly(conn).catch(() => undefined); // the first error is the one to report
    if (isRetryable(error)) return { status: 'aborted' };
    throw error;
  }
}

/** Reads one value inside a transaction body. */
export async function readValue(conn: Connection, text: string, params?: QueryParameters): Promise<unknown> {
  const rows = (await conn.query(text, params)).rows;
  if (rows.length !== 1) throw new Error(`expected one row from ${text}, got ${JSON.stringify(rows)}`);
  return rows[0]![0];
}

export interface WorkloadLimits {
  /** Stop starting transactions after this long. */
  durationMs: number;
  /** Stop starting transactions after this many (all workers together). */
  maxTransactions: number;
  /**
   * Each worker runs at least this many iterations even past `durationMs` (a slow disk or a
   * busy machine must not leave a test with too little work to prove anything), until
   * `hardLimitMs` at the latest.
   */
  minPerWorker?: number;
  hardLimitMs?: number;
}

export interface WorkloadStats {
  started: number;
  committed: number;
  rolledBack: number;
  aborted: number;
  /** The most transactions submitted and not yet finished at one moment. */
  maxInFlight: number;
}

/**
 * Runs one loop per worker until the limits are reached; each iteration runs one transaction
 * and returns its status. The first error stops every loop and is rethrown once all have
 * finished, so no transaction is left open behind a failing test.
 */
export async function runWorkload(
  limits: WorkloadLimits,
  workers: Array<(iteration: number) => Promise<TxOutcome<unknown>['status']>>,
): Promise<WorkloadStats> {
  const deadline = Date.now() + limits.durationMs;
  const hardDeadline = Date.now() + (limits.hardLimitMs ?? limits.durationMs * 10);
  const minPerWorker = limits.minPerWorker ?? 0;
  const stats: WorkloadStats = { started: 0, committed: 0, rolledBack: 0, aborted: 0, maxInFlight: 0 };
  let inFlight = 0;
  let failed = false;
  const loop = async (worker: (iteration: number) => Promise<TxOutcome<unknown>['status']>) => {
    const more = (i: number) =>
      i < minPerWorker
        ? Date.now() < hardDeadline
        : Date.now() < deadline && stats.started < limits.maxTransactions;
    for (let i = 0; !failed && more(i); i++) {
      stats.started++;
      inFlight++;
      stats.maxInFlight = Math.max(stats.maxInFlight, inFlight);
      try {
        const status = await worker(i);
        if (status === 'committed') stats.committed++;
        else if (status === 'rolled-back') stats.rolledBack++;
        else stats.aborted++;
      } catch (error) {
        failed = true;
        throw error;
      } finally {
        inFlight--;
      }
    }
  };
  const settled = await Promise.allSettled(workers.map(loop));
  const rejected = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (rejected) throw rejected.reason;
  return stats;
}

/** A unique id source shared by the workers of one test. */
export function idSequence(start = 1): () => number {
  let next = start;
  return () => next++;
}
