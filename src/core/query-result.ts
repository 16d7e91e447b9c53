import { type PackedBatch, type PackedResult, type RawSummary, rowsOf, summaryOf } from '../native/addon.js';
import type { CypherValue, ResultRow } from './values.js';

export type QuerySummary = RawSummary;

/**
 * The rows of one statement, with column names and Kùzu-style type names. `Row` is what
 * `toObjects()` claims each row to be (`conn.query<Row>(...)`): the caller's word, not checked,
 * since a query's columns are only known once it ran; by default an object of `CypherValue`s.
 */
export class QueryResult<Row extends object = ResultRow> {
  /** Frozen: the same array may be shared by later results with the same columns. */
  readonly columns: readonly string[];
  /** Frozen, like `columns`. */
  readonly types: readonly string[];
  /** The cells of each row, in column order (see `CypherValue` for their types). */
  readonly rows: CypherValue[][];
  readonly summary: QuerySummary;
  /** The results of a query of several statements (see `results`); undefined for one. */
  #results: readonly QueryResult[] | undefined;

  /** @internal Built by connections and slots from the native result. */
  constructor(packed: PackedResult) {
    this.columns = packed[0];
    this.types = packed[1];
    this.rows = rowsOf(packed) as CypherValue[][];
    this.summary = summaryOf(packed, this.rows);
  }

  /**
   * @internal The result of a native call: for a query of several statements, the last
   * statement's, holding all of theirs in `results`.
   */
  static of<Row extends object>(packed: PackedResult | PackedBatch): QueryResult<Row> {
    if (!('results' in packed)) return new QueryResult<Row>(packed);
    const all: QueryResult[] = packed.results.map((one) => new QueryResult(one));
    const last = all[all.length - 1] as QueryResult<Row>;
    last.#results = Object.freeze(all);
    return last;
  }

  /**
   * The result of every statement of the query text, in order: `[this]` for one statement; for
   * several (`'A; B; C'`, which run as one transaction), each one's, this (the last one's) at
   * the end.
   */
  get results(): readonly QueryResult[] {
    return this.#results ?? [this as QueryResult];
  }

  get rowCount(): number {
    return this.rows.length;
  }

  /** Rows as objects keyed by column name. */
  toObjects(): Row[] {
    return this.rows.map((row) => {
      const object: Record<string, CypherValue> = {};
      this.columns.forEach((name, i) => {
        object[name] = row[i] as CypherValue;
      });
      return object as Row;
    });
  }
}
