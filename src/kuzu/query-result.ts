// Kùzu's QueryResult over a packed result of the native API (src/native/addon.ts) whose
// values are in Kùzu's form (run's output 'kuzu', native/napi/kuzu_values.h): rows become
// objects keyed by column name only as they are read.

import type { PackedResult } from '../native/addon.js';
import { kuzuColumnNames } from './column-names.js';
import { NO_MORE_TUPLES, PARENT_CLOSED, usageError } from './errors.js';

/** A row: each column's value by the column's name. */
export type KuzuRow = Record<string, KuzuValue>;

/**
 * A value as Kùzu's Node.js package gives it: INT8 to INT64, UINT8 to UINT64, SERIAL, FLOAT,
 * DOUBLE and DECIMAL as numbers, INT128 as a bigint, DATE and TIMESTAMP* as Dates, INTERVAL
 * as milliseconds, STRING and UUID as strings, BLOB as a Buffer, LIST and ARRAY as arrays,
 * STRUCT and MAP as objects, internal ids as `{offset, table}`, nodes as `{...properties,
 * _label, _id}`, relationships as `{...properties, _src, _dst, _label, _id}`, paths as
 * `{_nodes, _rels}`; NULL as null.
 */
export type KuzuValue =
  | null
  | boolean
  | number
  | bigint
  | string
  | Date
  | Uint8Array
  | KuzuValue[]
  | { [key: string]: KuzuValue };

/** An internal id: the offset in its table, and the table's number (as Kùzu numbers them). */
export interface NodeID {
  offset: number;
  table: number;
}

/** A node: its properties, `_label` and `_id`. */
export interface NodeValue {
  _label: string | null;
  _id: NodeID | null;
  // biome-ignore lint/suspicious/noExplicitAny: Kùzu's declaration, kept for code written against it
  [key: string]: any;
}

/** A relationship: its properties, its ends, `_label` and `_id`. */
export interface RelValue {
  _src: NodeID | null;
  _dst: NodeID | null;
  _label: string | null;
  _id: NodeID | null;
  // biome-ignore lint/suspicious/noExplicitAny: Kùzu's declaration, kept for code written against it
  [key: string]: any;
}

/** A variable-length relationship: the nodes between its ends, and its relationships. */
export interface RecursiveRelValue {
  _nodes: NodeValue[];
  _rels: RelValue[];
}

/** Kùzu's SystemConfig type: the Database constructor's settings by name. */
export interface SystemConfig {
  bufferPoolSize?: number;
  enableCompression?: boolean;
  readOnly?: boolean;
  maxDBSize?: number;
  autoCheckpoint?: boolean;
  checkpointThreshold?: number;
}

/** Kùzu's callback type: an error, or the result. */
export type Callback<T = void> = (error: Error | null, result?: T) => void;

/** Kùzu's nullable type. */
export type Nullable<T> = T | null;

/** Times of a statement, in milliseconds. */
export interface QuerySummary {
  /**
   * Always 0: GraphDB times a statement as a whole (parsing and planning included), in
   * executionTime.
   */
  compilingTime: number;
  /** The statement's time, from parsing to its last row. */
  executionTime: number;
}

/** @internal What a result asks of the connection it came from. */
export interface ResultOwner {
  readonly databaseClosed: boolean;
}

export class QueryResult {
  /** @internal */
  _isClosed = false;
  readonly #owner: ResultOwner;
  #packed: PackedResult | null;
  /** The columns' names as Kùzu gives them (column-names.ts). */
  readonly #names: readonly string[];
  #next = 0;

  /** @internal Made by Connection from a native result. */
  constructor(owner: ResultOwner, packed: PackedResult) {
    this.#owner = owner;
    this.#packed = packed;
    this.#names = kuzuColumnNames(packed[0]);
  }

  /** Starts reading the rows again from the first. */
  resetIterator(): void {
    this.#open();
    this.#next = 0;
  }

  /** Whether a row is left to read. */
  hasNext(): boolean {
    return this.#next < this.#count(this.#open());
  }

  /** The number of rows. */
  getNumTuples(): number {
    return this.#count(this.#open());
  }

  /** The next row; rejects when none is left. */
  getNext(): Promise<KuzuRow> {
    try {
      return Promise.resolve(this.getNextSync());
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** The next row; throws when none is left. */
  getNextSync(): KuzuRow {
    const packed = this.#open();
    if (this.#next >= this.#count(packed)) throw usageError(NO_MORE_TUPLES);
    return rowAt(packed, this.#names, this.#next++);
  }

  /**
   * Calls `resultCallback` with each row left, in order, then `doneCallback` (at once when no
   * row is left, else after the rows, from a microtask as Kùzu does); `errorCallback` with the
   * error if one occurs.
   */
  each(
    resultCallback: (row: KuzuRow) => void,
    doneCallback: () => void,
    errorCallback: (error: unknown) => void,
  ): void {
    if (!this.hasNext()) {
      doneCallback();
      return;
    }
    queueMicrotask(() => {
      try {
        while (this.hasNext()) resultCallback(this.getNextSync());
      } catch (error) {
        errorCallback(error);
        return;
      }
      doneCallback();
    });
  }

  /** Every row, from the first (the iterator is reset first). */
  getAll(): Promise<KuzuRow[]> {
    try {
      return Promise.resolve(this.getAllSync());
    } catch (error) {
      return Promise.reject(error);
    }
  }

  getAllSync(): KuzuRow[] {
    const packed = this.#open();
    const count = this.#count(packed);
    const rows: KuzuRow[] = new Array(count);
    for (let i = 0; i < count; i++) rows[i] = rowAt(packed, this.#names, i);
    this.#next = count;
    return rows;
  }

  /** Calls `resultCallback` with every row (as getAll), or `errorCallback` with the error. */
  all(resultCallback: (rows: KuzuRow[]) => void, errorCallback: (error: unknown) => void): void {
    this.getAll().then(resultCallback, errorCallback);
  }

  /** The columns' types by Kùzu's names (`INT64`, `STRING[]`, `STRUCT(a INT64)`...). */
  getColumnDataTypes(): Promise<string[]> {
    return settle(() => this.getColumnDataTypesSync());
  }

  getColumnDataTypesSync(): string[] {
    return [...this.#open()[1]];
  }

  getColumnNames(): Promise<string[]> {
    return settle(() => this.getColumnNamesSync());
  }

  getColumnNamesSync(): string[] {
    this.#open();
    return [...this.#names];
  }

  getQuerySummary(): Promise<QuerySummary> {
    return settle(() => this.getQuerySummarySync());
  }

  getQuerySummarySync(): QuerySummary {
    return { compilingTime: 0, executionTime: this.#open()[3] };
  }

  /** Releases the rows. Idempotent. */
  close(): void {
    this._isClosed = true;
    this.#packed = null;
  }

  #open(): PackedResult {
    if (this.#packed === null) throw usageError('Query result is closed.');
    if (this.#owner.databaseClosed) throw usageError(PARENT_CLOSED);
    return this.#packed;
  }

  #count(packed: PackedResult): number {
    const width = packed[0].length;
    return width === 0 ? packed[2].length : packed[2].length / width;
  }
}

function rowAt(packed: PackedResult, names: readonly string[], index: number): KuzuRow {
  const cells = packed[2];
  const width = names.length;
  const row: KuzuRow = {};
  const start = index * width;
  for (let i = 0; i < width; i++) row[names[i] as string] = cells[start + i] as KuzuValue;
  return row;
}

function settle<T>(read: () => T): Promise<T> {
  try {
    return Promise.resolve(read());
  } catch (error) {
    return Promise.reject(error);
  }
}
