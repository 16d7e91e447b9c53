import { type PackedResult, type RawSummary, summaryOf } from '../native/addon.js';

export type QuerySummary = RawSummary;

/** The rows of one statement, with column names and Kùzu-style type names. */
export class QueryResult {
  readonly columns: string[];
  readonly types: string[];
  readonly rows: unknown[][];
  readonly summary: QuerySummary;

  /** @internal Built by connections and slots from the native result. */
  constructor(packed: PackedResult) {
    this.columns = packed[0];
    this.types = packed[1];
    this.rows = packed[2];
    this.summary = summaryOf(packed);
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
