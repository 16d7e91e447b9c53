// What a Bolt connection writes: response messages and records, gathered into chunks
// (framing.ts) and written to the socket in slices, waiting while its buffer is full.

import type { Socket } from 'node:net';
import type { BoltFailure } from './errors.js';
import { MessageWriter } from './framing.js';
import { RESPONSE } from './messages.js';
import type { Shape, ValueWriter } from './values.js';

export class BoltOutput {
  readonly #socket: Socket;
  readonly #out = new MessageWriter();
  readonly #values: ValueWriter;
  /** FAILURE carries `neo4j_code` too (Bolt 5.7 and later). */
  readonly #neo4jCode: boolean;

  constructor(socket: Socket, values: ValueWriter, neo4jCode: boolean) {
    this.#socket = socket;
    this.#values = values;
    this.#neo4jCode = neo4jCode;
  }

  /** Bytes ready and not yet written. */
  get length(): number {
    return this.#out.length;
  }

  /** A response message: `tag` with its metadata map (none for null). */
  message(tag: number, metadata: Record<string, unknown> | null): void {
    const out = this.#out.begin();
    if (metadata === null) {
      out.structHeader(tag, 0);
    } else {
      out.structHeader(tag, 1);
      out.value(metadata);
    }
    this.#out.end();
  }

  failure(f: BoltFailure): void {
    const metadata: Record<string, unknown> = { code: f.code, message: f.message };
    if (this.#neo4jCode) metadata.neo4j_code = f.code;
    if (f.graphdbCode) metadata.graphdb_code = f.graphdbCode;
    this.message(RESPONSE.failure, metadata);
  }

  /** A RECORD of `row`, each value written as its column's shape; nothing when it fails. */
  record(row: readonly unknown[], shapes: readonly Shape[]): void {
    const out = this.#out.begin();
    try {
      out.structHeader(RESPONSE.record, 1);
      out.listHeader(row.length);
      for (let i = 0; i < row.length; i++) this.#values.write(out, row[i], shapes[i] ?? { kind: 'unknown' });
    } catch (error) {
      this.#out.abort();
      throw error;
    }
    this.#out.end();
  }

  /** Writes what is ready; false when the socket's buffer is full. */
  flush(): boolean {
    if (this.#out.length === 0 || this.#socket.destroyed) return true;
    return this.#socket.write(this.#out.take());
  }

  /** Writes what is ready and waits while the socket's buffer is full. */
  async flushAndDrain(): Promise<void> {
    if (this.flush() || this.#socket.destroyed) return;
    const socket = this.#socket;
    await new Promise<void>((resolve) => {
      const done = () => {
        socket.off('drain', done);
        socket.off('close', done);
        resolve();
      };
      socket.on('drain', done);
      socket.on('close', done);
    });
  }
}
