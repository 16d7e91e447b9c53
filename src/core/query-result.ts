import { type PackedResult, type RawSummary, unpackResult } from '../native/addon.js';

export type QuerySummary = RawSummary;

/** The rows of one statement, with column names and Kùzu-style type names. */
export class QueryResult {
  readonly columns: string[];
  readonly types: string[];
  readonly rows: unknown[][];
  readonly summary: QuerySummary;

  /** @internal Built by connections and slots from the native result. */
  constructor(packed: PackedResult) {
    const raw = unpackResult(packed);
    this.columns = raw.columns;
    this.types = raw.types;
    this.rows = raw.rows;
    this.summary = raw.summary;
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
