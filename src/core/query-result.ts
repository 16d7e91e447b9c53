import { type PackedResult, type RawSummary, rowsOf, summaryOf } from '../native/addon.js';

export type QuerySummary = RawSummary;

/** The rows of one statement, with column names and Kùzu-style type names. */
export class QueryResult {
  /** Frozen: the same array may be shared by later results with the same columns. */
  readonly columns: readonly string[];
  /** Frozen, like `columns`. */
  readonly types: readonly string[];
  readonly rows: unknown[][];
  readonly summary: QuerySummary;

  /** @internal Built by connections and slots from the native result. */
  constructor(packed: PackedResult) {
    this.columns = packed[0];
    this.types = packed[1];
    this.rows = rowsOf(packed);
    this.summary = summaryOf(packed, this.rows);
  }

  get rowCount(): number {
    return this.rows.length;
  }

  /** Rows as objects keyed by column name. */
  toObjects(): Record<string, unknown>[] {
    return this.rows.map((row) => {
      const object: Record<string, unknown> = {};
      this.columns.forEach((name, i) => {
        object[name] = row[i];
      });
      return object;
    });
  }
}
