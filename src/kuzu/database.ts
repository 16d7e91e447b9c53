// Kùzu's Database over GraphDB's (src/core/database.ts): the constructor takes Kùzu's
// positional parameters, opening waits for init() (or the first connection's), close() closes
// the connections made on it first.

import { Database as CoreDatabase, databaseInternals } from '../core/database.js';
import { GraphDBError } from '../core/errors.js';
import type { NativeDatabase } from '../native/addon.js';
import { VERSION } from '../version.js';
import { asKuzuError, usageError } from './errors.js';
import { beginCloseSync, closeAfterInit } from './lifecycle.js';

/** @internal What a Database asks of the connections made on it. */
export interface DatabaseClient {
  /** Closes its native connection (the database is closing). */
  _release(): void;
}

/** The settings of a Database that GraphDB does not act on, as `current_setting` shows them. */
export interface SessionDefaults {
  autoCheckpoint: boolean;
  checkpointThreshold: number;
}

function checkSize(value: unknown, message: string, min = 0): number {
  if (typeof value !== 'number' || Number.isNaN(value) || value < min) throw usageError(message);
  return Math.floor(value);
}

/**
 * A database: a folder on disk (created if absent), or in memory for no path, '' or ':memory:'.
 *
 * Kùzu's parameters, in order. `bufferManagerSize` (bytes; 0: the default), `enableCompression`,
 * `maxDBSize` (bytes; 0: no limit), `throwOnWalReplayFailure` and `enableChecksums` are checked
 * and accepted: GraphDB has no buffer pool (its columns live in memory), always compresses
 * what it writes to disk, has no size cap, and always checksums its log records and files
 * (recovery drops a torn log tail and says so in `recoveryWarnings`). `readOnly` makes every
 * statement of its connections a read (a write fails with Kùzu's connection exception).
 * `autoCheckpoint` and `checkpointThreshold` (bytes; -1: the default) are what the
 * connections' `CALL current_setting(...)` report; GraphDB checkpoints when the database
 * closes and on `CHECKPOINT`, not by the log's size.
 */
export class Database {
  /** @internal GraphDB's database once initialized; absent before and after. */
  _database: CoreDatabase | undefined;
  /** @internal */
  _isInitialized = false;
  /** @internal */
  _initPromise: Promise<void> | null = null;
  /** @internal */
  _isClosed = false;
  /** @internal */
  readonly _readOnly: boolean;
  /** @internal */
  readonly _sessionDefaults: SessionDefaults | undefined;
  readonly #path: string;
  readonly #clients = new Set<DatabaseClient>();

  constructor(
    databasePath?: string,
    bufferManagerSize = 0,
    enableCompression = true,
    readOnly = false,
    maxDBSize = 0,
    autoCheckpoint = true,
    checkpointThreshold = -1,
    throwOnWalReplayFailure = true,
    enableChecksums = true,
  ) {
    if (!databasePath) databasePath = ':memory:';
    else if (typeof databasePath !== 'string') throw usageError('Database path must be a string.');
    checkSize(bufferManagerSize, 'Buffer manager size must be a positive integer.');
    checkSize(maxDBSize, 'Max DB size must be a positive integer.');
    const threshold = checkSize(checkpointThreshold, 'Checkpoint threshold must be a positive integer.', -1);
    for (const [name, value] of [
      ['enableCompression', enableCompression],
      ['readOnly', readOnly],
      ['autoCheckpoint', autoCheckpoint],
      ['throwOnWalReplayFailure', throwOnWalReplayFailure],
      ['enableChecksums', enableChecksums],
    ] as const) {
      if (typeof value !== 'boolean') throw usageError(`${name} must be a boolean.`);
    }
    this.#path = databasePath;
    this._readOnly = readOnly;
    this._sessionDefaults =
      autoCheckpoint && threshold === -1 ? undefined : { autoCheckpoint, checkpointThreshold: threshold };
  }

  /** GraphDB's version (the package's). */
  static getVersion(): string {
    return VERSION;
  }

  /** The version of GraphDB's on-disk table format. */
  static getStorageVersion(): number {
    return STORAGE_VERSION;
  }

  /** Opens the database (the first connection's use does it otherwise). */
  async init(): Promise<void> {
    if (this._isInitialized) return;
    if (this._initPromise === null) {
      // Opening runs on this thread: a promise settled on a later turn keeps Kùzu's order.
      this._initPromise = Promise.resolve().then(() => this.initSync());
    }
    try {
      await this._initPromise;
    } finally {
      this._initPromise = null;
    }
  }

  /** Opens the database on this thread (blocking the event loop while it recovers). */
  initSync(): void {
    if (this._isInitialized) return;
    if (this._isClosed) throw usageError('Database is closed.');
    try {
      this._database = new CoreDatabase(this.#path);
    } catch (error) {
      throw asKuzuError(error);
    }
    this._isInitialized = true;
  }

  /** @internal The open database, opened if need be. */
  async _getDatabase(): Promise<CoreDatabase> {
    if (this._isClosed) throw usageError('Database is closed.');
    await this.init();
    return this.#open();
  }

  /** @internal */
  _getDatabaseSync(): CoreDatabase {
    if (this._isClosed) throw usageError('Database is closed.');
    this.initSync();
    return this.#open();
  }

  /** @internal The native database, for a connection; registers it to be closed first. */
  _attach(client: DatabaseClient, db: CoreDatabase): NativeDatabase {
    this.#clients.add(client);
    return databaseInternals(db).native;
  }

  /** @internal */
  _detach(client: DatabaseClient): void {
    this.#clients.delete(client);
  }

  /** Closes the connections made on it, then the database (checkpointing it). Idempotent. */
  close(): Promise<void> {
    return closeAfterInit(this);
  }

  closeSync(): void {
    if (!beginCloseSync(this)) return;
    for (const client of [...this.#clients]) client._release();
    this.#clients.clear();
    const db = this._database;
    this._database = undefined;
    this._isInitialized = true;
    this._isClosed = true;
    db?.close();
  }

  #open(): CoreDatabase {
    if (this._database === undefined) throw new GraphDBError('the database is not open', 'CONNECTION_CLOSED');
    return this._database;
  }
}

/** The version of GraphDB's on-disk table format (native/storage/table_file.h). */
export const STORAGE_VERSION = 4;
