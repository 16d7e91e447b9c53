// The results a Bolt connection hands out with PULL and DISCARD. A RUN's result is a
// ResultSource: today a materialised QueryResult (MaterializedResult); a streaming cursor that
// produces rows as they are pulled can implement the same interface.

import type { QuerySummary } from '../core/query-result.js';
import { type PackedResult, summaryOf } from '../native/addon.js';

/** The rows of one statement, handed out a batch at a time. */
export interface ResultSource {
  readonly fields: readonly string[];
  /** Kùzu type names of the columns (they tell nodes, relationships and paths apart). */
  readonly types: readonly string[];
  /** Milliseconds until the first row was available (Bolt's t_first). */
  readonly firstMs: number;
  /**
   * Up to `n` more rows (all that are left when n is Infinity) and whether the result is done
   * after them.
   */
  next(n: number): Promise<{ rows: unknown[][]; done: boolean }>;
  /** The statement's counters, once done. */
  summary(): QuerySummary;
  /** Drops what is left (DISCARD, RESET, a connection that closes). Idempotent. */
  close(): Promise<void>;
}

/**
 * A result held whole in memory: the engine ran the statement to its end. It keeps the packed
 * cells as the engine handed them over and makes the rows of each batch only when it is pulled,
 * so a large result costs its cells, not an array per row on top.
 */
export class MaterializedResult implements ResultSource {
  readonly fields: readonly string[];
  readonly types: readonly string[];
  readonly firstMs: number;
  #cells: unknown[];
  readonly #width: number;
  readonly #rowCount: number;
  #at = 0;
  readonly #summary: QuerySummary;

  constructor(packed: PackedResult) {
    this.fields = packed[0];
    this.types = packed[1];
    this.#cells = packed[2];
    this.#width = packed[0].length;
    // Without columns the cells are the (empty) rows themselves.
    this.#rowCount = this.#width === 0 ? this.#cells.length : this.#cells.length / this.#width;
    this.#summary = { ...summaryOf(packed, []), rowCount: this.#rowCount };
    this.firstMs = Math.round(this.#summary.elapsedMs);
  }

  next(n: number): Promise<{ rows: unknown[][]; done: boolean }> {
    const end = Math.min(this.#rowCount, this.#at + n);
    const rows: unknown[][] = [];
    const width = this.#width;
    for (let r = this.#at; r < end; r++) {
      rows.push(width === 0 ? [] : this.#cells.slice(r * width, (r + 1) * width));
    }
    this.#at = end;
    const done = end >= this.#rowCount;
    if (done) this.#cells = [];
    return Promise.resolve({ rows, done });
  }

  summary(): QuerySummary {
    return this.#summary;
  }

  close(): Promise<void> {
    this.#cells = [];
    this.#at = this.#rowCount;
    return Promise.resolve();
  }
}

/** Bolt's `stats` of a summary: the counters that are not zero, by Neo4j's names. */
export function boltStats(summary: QuerySummary): Record<string, number> {
  const c = summary.counters;
  const stats: Record<string, number> = {};
  if (c.nodesCreated) stats['nodes-created'] = c.nodesCreated;
  if (c.nodesDeleted) stats['nodes-deleted'] = c.nodesDeleted;
  if (c.relationshipsCreated) stats['relationships-created'] = c.relationshipsCreated;
  if (c.relationshipsDeleted) stats['relationships-deleted'] = c.relationshipsDeleted;
  if (c.propertiesSet) stats['properties-set'] = c.propertiesSet;
  return stats;
}

/** Bolt's statement `type`: r (read), w (write), rw (wrote and returned rows). */
export function statementType(summary: QuerySummary, fields: readonly string[]): 'r' | 'w' | 'rw' {
  const c = summary.counters;
  const wrote =
    c.nodesCreated + c.nodesDeleted + c.relationshipsCreated + c.relationshipsDeleted + c.propertiesSet > 0;
  if (!wrote) return 'r';
  return fields.length > 0 ? 'rw' : 'w';
}
