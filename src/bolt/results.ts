// The results a Bolt connection hands out with PULL and DISCARD. A RUN's result is a
// ResultSource: a cursor on the slot's result stream that fetches rows as they are pulled
// (CursorResult), or rows held in memory (MaterializedResult: what was left of a cursor that
// had to give the slot up).

import { GraphDBError } from '../core/errors.js';
import type { QuerySummary } from '../core/query-result.js';
import { type PackedResult, rowsOf, summaryOf } from '../native/addon.js';
import type { ExecutionSlot } from '../runtime/pool.js';

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

/** The most rows one fetch asks the engine for (the addon's own limit is 2^20). */
const MAX_FETCH_ROWS = 65_536;
/** Rows per fetch while the rest of a result is read into memory (CursorResult.materialize). */
const MATERIALIZE_BATCH = 10_000;

/**
 * A result read from the slot's open result stream (ExecutionSlot.openCursor): each `next(n)` fetches
 * at most n rows, so the server holds one batch of a result of any size (a read query runs
 * lazily; another statement ran to its end when the stream opened). The slot holds one stream
 * at a time and runs nothing else meanwhile: `release` (an auto-commit statement's lease) is
 * called once the result is done, fails or is closed.
 */
export class CursorResult implements ResultSource {
  readonly fields: readonly string[];
  readonly types: readonly string[];
  readonly firstMs: number;
  readonly #slot: ExecutionSlot;
  readonly #header: PackedResult;
  #release: (() => void) | null;
  #summary: QuerySummary | null = null;
  #rowCount = 0;
  #ended = false;
  #closing: Promise<void> | null = null;

  constructor(slot: ExecutionSlot, header: PackedResult, firstMs: number, release: (() => void) | null) {
    this.#slot = slot;
    this.#header = header;
    this.fields = header[0];
    this.types = header[1];
    this.firstMs = firstMs;
    this.#release = release;
  }

  /** Whether the stream is still open on the slot (rows are left and it was not closed). */
  get open(): boolean {
    return !this.#ended;
  }

  async next(n: number): Promise<{ rows: unknown[][]; done: boolean }> {
    if (this.#ended) return { rows: [], done: true };
    let packed: PackedResult;
    let done: boolean;
    try {
      [packed, done] = await this.#slot.fetchPacked(Math.min(n, MAX_FETCH_ROWS));
    } catch (error) {
      this.#end(); // a failed fetch closed the stream
      throw error;
    }
    const rows = rowsOf(packed);
    this.#rowCount += rows.length;
    if (done) {
      this.#summary = { ...summaryOf(packed, rows), rowCount: this.#rowCount };
      this.#end();
    }
    return { rows, done };
  }

  /**
   * The statement's counters: those of its last batch, or of its header for a result closed
   * before its end (a write ran whole when it opened and has them there; a read changes nothing).
   */
  summary(): QuerySummary {
    return (
      this.#summary ?? { ...summaryOf(this.#header, []), elapsedMs: this.firstMs, rowCount: this.#rowCount }
    );
  }

  close(): Promise<void> {
    if (this.#closing) return this.#closing;
    if (this.#ended) {
      this.#closing = Promise.resolve();
      return this.#closing;
    }
    this.#ended = true;
    this.#closing = this.#slot.closeStream().then(
      () => this.#end(),
      () => this.#end(), // the service is closing: the slot goes with it
    );
    return this.#closing;
  }

  /**
   * Reads what is left into memory and closes the stream, so the slot can run another
   * statement (a RUN in the same transaction while this result is still open). `maxBytes`
   * (0: none) bounds what is held, as estimated by heldBytes(): past it the stream is closed
   * and this rejects with RESOURCE_LIMIT, since the engine's own result limit does not see rows
   * that leave it a batch at a time.
   */
  async materialize(maxBytes = 0): Promise<ResultSource> {
    const cells: unknown[] = [];
    let held = 0;
    for (;;) {
      let packed: PackedResult;
      let done: boolean;
      try {
        [packed, done] = await this.#slot.fetchPacked(MATERIALIZE_BATCH);
      } catch (error) {
        this.#end();
        throw error;
      }
      const batch = packed[2];
      for (let i = 0; i < batch.length; i++) cells.push(batch[i]);
      if (maxBytes > 0) {
        held += heldBytes(batch);
        if (held > maxBytes) {
          if (!done) await this.close();
          else this.#end();
          throw new GraphDBError(
            `an open result of this transaction must be read into memory before the next RUN, ` +
              `and it holds more than maxResultBytes (${maxBytes} bytes): PULL or DISCARD it first`,
            'RESOURCE_LIMIT',
          );
        }
      }
      if (done) {
        this.#end();
        const whole = [...packed];
        whole[2] = cells;
        return new MaterializedResult(whole as unknown as PackedResult, this.firstMs);
      }
    }
  }

  #end(): void {
    this.#ended = true;
    const release = this.#release;
    this.#release = null;
    release?.();
  }
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

  constructor(packed: PackedResult, firstMs?: number) {
    this.fields = packed[0];
    this.types = packed[1];
    this.#cells = packed[2];
    this.#width = packed[0].length;
    // Without columns the cells are the (empty) rows themselves.
    this.#rowCount = this.#width === 0 ? this.#cells.length : this.#cells.length / this.#width;
    this.#summary = { ...summaryOf(packed, []), rowCount: this.#rowCount };
    this.firstMs = firstMs ?? Math.round(this.#summary.elapsedMs);
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

/**
 * An estimate of the memory `cells` hold, in bytes: 8 per number, bigint, boolean, NULL and
 * reference, a string's UTF-16 length twice, a byte array's length, and the members and keys
 * of lists and maps (nodes, relationships and paths are maps and lists here). Iterative, so a
 * deeply nested value cannot exhaust the stack.
 */
export function heldBytes(cells: readonly unknown[]): number {
  let bytes = 0;
  const pending: unknown[] = [...cells];
  while (pending.length > 0) {
    const value = pending.pop();
    bytes += 8;
    if (typeof value === 'string') {
      bytes += 2 * value.length;
    } else if (value instanceof Uint8Array) {
      bytes += value.byteLength;
    } else if (Array.isArray(value)) {
      for (const member of value) pending.push(member);
    } else if (value !== null && typeof value === 'object' && !(value instanceof Date)) {
      for (const [key, member] of Object.entries(value)) {
        bytes += 2 * key.length;
        pending.push(member);
      }
    }
  }
  return bytes;
}
