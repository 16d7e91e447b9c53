// Errors as Kùzu's Node.js package gives them: plain Errors (`Error: Binder exception: ...`),
// with Kùzu's messages for what the `quiverdb/kuzu` API checks itself and for the GraphDB
// errors whose message differs from Kùzu's. GraphDB's messages for Cypher errors are already
// Kùzu's ("Binder exception: Table dog does not exist."), so most pass unchanged. Each error
// from the engine keeps GraphDB's stable `code` (docs/http-api.md, "Errors") and `cause`.

import { type ErrorCode, GraphDBError } from '../core/errors.js';

/** Kùzu's message when a statement exceeded its time limit or was interrupted. */
export const INTERRUPTED = 'Interrupted.';
export const READ_ONLY_WRITE =
  'Connection exception: Cannot execute write operations in a read-only database!';
export const PARENT_CLOSED =
  'Runtime exception: The current operation is not allowed because the parent database is closed.';
export const NO_MORE_TUPLES =
  'Runtime exception: No more tuples in QueryResult, Please check hasNext() before calling getNext().';

/** An Error of the API itself, or of the engine with GraphDB's `code`. */
export interface KuzuError extends Error {
  code?: ErrorCode;
}

/** An error of the API's own argument checks (a plain Error, as Kùzu's are). */
export function usageError(message: string): Error {
  return new Error(message);
}

/** Kùzu's wording of GraphDB's error `error`, or undefined when GraphDB's is Kùzu's. */
function kuzuMessage(error: GraphDBError): string | undefined {
  switch (error.code) {
    case 'QUERY_TIMEOUT':
    case 'QUERY_CANCELLED':
      return INTERRUPTED;
    case 'ACCESS_MODE_VIOLATION':
      return READ_ONLY_WRITE;
    case 'IO_ERROR': {
      // The lock of a database folder another process (or Database) holds.
      const locked = /^the database folder (.*) is in use by another process/.exec(error.message);
      return locked ? `IO exception: Could not set lock on file : ${locked[1]}` : undefined;
    }
    default:
      return undefined;
  }
}

/** `error` as Kùzu would give it: a plain Error with Kùzu's message, keeping `code`. */
export function asKuzuError(error: unknown): unknown {
  if (!(error instanceof GraphDBError)) return error;
  const translated: KuzuError = new Error(kuzuMessage(error) ?? error.message, { cause: error });
  translated.code = error.code;
  return translated;
}
