// The only module that touches the compiled addon. It loads build/Release/graphdb.node and
// describes its surface with types; everything else imports from here.

import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * A result as the native side hands it over: an array, which it fills much faster than an
 * object with named properties. `summaryOf` and QueryResult (src/core) read it.
 */
export type PackedResult = [
  columns: string[],
  types: string[],
  rows: unknown[][],
  elapsedMs: number,
  nodesCreated: number,
  nodesDeleted: number,
  relationshipsCreated: number,
  relationshipsDeleted: number,
  propertiesSet: number,
];

/** A result whose cells are Kùzu's text form of each value (NULL as ''). */
export interface RawTextResult {
  columns: string[];
  types: string[];
  rows: string[][];
  summary: RawSummary;
}

export interface RawSummary {
  rowCount: number;
  elapsedMs: number;
  counters: {
    nodesCreated: number;
    nodesDeleted: number;
    relationshipsCreated: number;
    relationshipsDeleted: number;
    propertiesSet: number;
  };
}

/** The summary of a packed result. */
export function summaryOf(packed: PackedResult): RawSummary {
  return {
    rowCount: packed[2].length,
    elapsedMs: packed[3],
    counters: {
      nodesCreated: packed[4],
      nodesDeleted: packed[5],
      relationshipsCreated: packed[6],
      relationshipsDeleted: packed[7],
      propertiesSet: packed[8],
    },
  };
}

export interface NativeDatabase {
  readonly maxThreadNum: number;
  /** Statements executing right now, on any slot or connection (a native counter). */
  readonly activeStatements: number;
  /** The most statements seen executing at once since the last reset. */
  readonly peakActiveStatements: number;
  resetPeakActiveStatements(): void;
  /** Write statements committed since the last compaction. */
  readonly writesSinceCompaction: number;
  /** Commits replayed from the write-ahead logs when the database was opened. */
  readonly recoveredCommits: number;
  /** Writes a checkpoint (on-disk databases); waits for running statements. */
  checkpoint(): void;
  /** Checkpoints an on-disk database and closes it. */
  close(): void;
}

export interface NativeConnection {
  readonly pending: number;
  readonly closed: boolean;
  /** The result itself when a short read ran at once on this thread, else a promise. */
  query(text: string, params?: Record<string, unknown>): Promise<PackedResult> | PackedResult;
  queryText(text: string, params?: Record<string, unknown>): Promise<RawTextResult> | RawTextResult;
  /** Runs a JSON query request; resolves to the HTTP JSON body when asJson is true. */
  executeTransactionalRequest(json: string, asJson: true): Promise<string>;
  executeTransactionalRequest(json: string, asJson?: false): Promise<PackedResult>;
  /** The schema document of GET /schema as JSON text, read on this connection's thread. */
  schema(): Promise<string>;
  /** Compacts the database's adjacency on this connection's native thread. */
  compact(): Promise<PackedResult>;
  querySync(text: string, params?: Record<string, unknown>): PackedResult;
  close(): void;
}

interface Addon {
  setErrorClass(cls: new (message: string, code: never) => Error): void;
  NativeDatabase: new (path: string, maxThreadNum: number, syncOnCommit?: boolean) => NativeDatabase;
  NativeConnection: new (db: NativeDatabase) => NativeConnection;
}

const packageRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

function findAddon(): string {
  const candidates = [
    path.join(packageRoot, 'build', 'Release', 'graphdb.node'),
    path.join(packageRoot, 'build', 'Debug', 'graphdb.node'),
  ];
  for (const candidate of candidates) {
    if (fs.existsSync(candidate)) return candidate;
  }
  throw new Error(
    `GraphDB native addon not found (looked for ${candidates.join(', ')}); ` +
      'run `npm install` or `npm run build:native` in the package folder',
  );
}

const require = createRequire(import.meta.url);
export const addon: Addon = require(findAddon()) as Addon;
