// GraphDB's error codes as Neo4j status codes (docs/bolt.md, "Errors"): the one place that maps
// them, as src/http/errors.ts does for HTTP statuses. Drivers decide from the code's class
// whether to retry: Neo.TransientError.* is retried by managed transactions (executeRead,
// executeWrite), Neo.ClientError.* is the caller's to fix.

import { type ErrorCode, GraphDBError } from '../core/errors.js';
import { PackStreamError } from './packstream.js';
import { BoltValueError } from './values.js';

/** A failure as Bolt's FAILURE message carries it. */
export interface BoltFailure {
  code: string;
  message: string;
  /** GraphDB's own code, sent beside Neo4j's (drivers ignore unknown fields). */
  graphdbCode?: ErrorCode | 'PROTOCOL';
}

export const NEO4J_CODE: Readonly<Record<ErrorCode, string>> = {
  INVALID_REQUEST: 'Neo.ClientError.Statement.ArgumentError',
  QUERY_SYNTAX: 'Neo.ClientError.Statement.SyntaxError',
  QUERY_BINDING: 'Neo.ClientError.Statement.SemanticError',
  ACCESS_MODE_VIOLATION: 'Neo.ClientError.Statement.AccessMode',
  QUERY_RUNTIME: 'Neo.ClientError.Statement.ExecutionFailed',
  CONSTRAINT_VIOLATION: 'Neo.ClientError.Schema.ConstraintValidationFailed',
  // A write-write conflict: retrying the transaction succeeds once the other one is done.
  TX_CONFLICT: 'Neo.TransientError.Transaction.Outdated',
  QUERY_TIMEOUT: 'Neo.ClientError.Transaction.TransactionTimedOut',
  // The client's role does not allow it (a write of a reader, files without importDir...).
  FORBIDDEN: 'Neo.ClientError.Security.Forbidden',
  // Over Bolt a statement is cancelled when the service stops (a RESET's is answered IGNORED).
  QUERY_CANCELLED: 'Neo.TransientError.General.DatabaseUnavailable',
  RESOURCE_LIMIT: 'Neo.ClientError.Statement.ExecutionFailed',
  NOT_SUPPORTED: 'Neo.ClientError.Statement.ExecutionFailed',
  SERVICE_UNAVAILABLE: 'Neo.TransientError.General.DatabaseUnavailable',
  CONNECTION_CLOSED: 'Neo.TransientError.General.DatabaseUnavailable',
  SLOT_BUSY: 'Neo.DatabaseError.General.UnknownError',
  IO_ERROR: 'Neo.DatabaseError.General.UnknownError',
  CORRUPTION: 'Neo.DatabaseError.General.UnknownError',
  INTERNAL: 'Neo.DatabaseError.General.UnknownError',
};

/** Binder errors about types (a mismatch, a cast it cannot do) are TypeErrors in Neo4j's terms. */
const TYPE_PROBLEM =
  /data type|implicit cast|cannot (be )?cast|type mismatch|expected type|conversion exception|could not convert/i;
const ARITHMETIC_PROBLEM = /overflow|division by zero|divide by zero|out of range/i;
const MISSING_PARAMETER = /parameter .*(missing|not found|not given)|missing parameter/i;
/** A RUN parameter the engine cannot take, found where the slot converts it (bolt_parameters.h). */
const PARAMETER_VALUE = /^parameter \$[^:]*: /;

/** The Neo4j code of a GraphDBError: by its code, refined by what its message names. */
export function neo4jCode(error: GraphDBError): string {
  switch (error.code) {
    case 'QUERY_BINDING':
      return TYPE_PROBLEM.test(error.message)
        ? 'Neo.ClientError.Statement.TypeError'
        : NEO4J_CODE.QUERY_BINDING;
    case 'QUERY_RUNTIME':
      if (ARITHMETIC_PROBLEM.test(error.message)) return 'Neo.ClientError.Statement.ArithmeticError';
      return TYPE_PROBLEM.test(error.message)
        ? 'Neo.ClientError.Statement.TypeError'
        : NEO4J_CODE.QUERY_RUNTIME;
    case 'INVALID_REQUEST':
      if (PARAMETER_VALUE.test(error.message)) return 'Neo.ClientError.Statement.TypeError';
      return MISSING_PARAMETER.test(error.message)
        ? 'Neo.ClientError.Statement.ParameterMissing'
        : NEO4J_CODE.INVALID_REQUEST;
    default:
      return NEO4J_CODE[error.code] ?? NEO4J_CODE.INTERNAL;
  }
}

/** A failure the Bolt layer itself raises (a bad message, a refused login...). */
export function failure(code: string, message: string): BoltFailure {
  return { code, message };
}

/** Any error thrown while serving a message, as a FAILURE. */
export function failureOf(error: unknown): BoltFailure {
  if (error instanceof GraphDBError) {
    const where = error.line !== undefined ? ` (line ${error.line}, column ${error.column})` : '';
    return { code: neo4jCode(error), message: `${error.message}${where}`, graphdbCode: error.code };
  }
  if (error instanceof BoltValueError)
    return { code: 'Neo.ClientError.Statement.TypeError', message: error.message };
  if (error instanceof PackStreamError) {
    return { code: 'Neo.ClientError.Request.InvalidFormat', message: error.message, graphdbCode: 'PROTOCOL' };
  }
  // The engine's parameter conversion throws TypeError/RangeError for values it cannot take.
  if (error instanceof TypeError || error instanceof RangeError) {
    return { code: 'Neo.ClientError.Statement.TypeError', message: error.message };
  }
  process.stderr.write(
    `graphdb: internal error while serving Bolt: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  return {
    code: 'Neo.DatabaseError.General.UnknownError',
    message: `internal error: ${error instanceof Error ? error.message : String(error)}`,
    graphdbCode: 'INTERNAL',
  };
}
