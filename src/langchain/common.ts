// Shared by the LangChain classes: how they reach a database, and safe identifiers.

import type { Connection, QueryParameters } from '../core/connection.js';
import type { Database } from '../core/database.js';
import { GraphDBError } from '../core/errors.js';
import type { CypherValue } from '../core/values.js';

/** Where a LangChain class runs its statements: a connection, or a database to connect to. */
export interface QuiverConnectionOptions {
  /** A connection to use (not closed by `close()`). */
  connection?: Connection;
  /** A database to open a connection on (the connection is closed by `close()`). */
  database?: Database;
}

/** A connection and whether the caller owns it. */
export class ConnectionHolder {
  readonly connection: Connection;
  readonly #owned: boolean;

  constructor(options: QuiverConnectionOptions, who: string) {
    if (options.connection) {
      this.connection = options.connection;
      this.#owned = false;
    } else if (options.database) {
      this.connection = options.database.connect();
      this.#owned = true;
    } else {
      throw new GraphDBError(`${who}: pass { database } or { connection }`, 'INVALID_REQUEST');
    }
  }

  /** Runs `text` and returns its rows as objects keyed by column name. */
  async rows(text: string, params?: QueryParameters): Promise<Record<string, CypherValue>[]> {
    const result = await this.connection.query(text, params);
    return result.toObjects() as Record<string, CypherValue>[];
  }

  close(): void {
    if (this.#owned && !this.connection.closed) this.connection.close();
  }
}

/** `name` as a backquoted Cypher identifier; names holding a backquote or nothing are refused. */
export function identifier(name: string, what: string): string {
  if (typeof name !== 'string' || name.length === 0 || name.includes('`')) {
    throw new GraphDBError(
      `${what} must be a non-empty name without backquotes, got ${JSON.stringify(name)}`,
      'INVALID_REQUEST',
    );
  }
  return `\`${name}\``;
}

/** `text` as a single-quoted Cypher string literal. */
export function literal(text: string): string {
  return `'${text.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;
}
