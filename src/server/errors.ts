// The one place that maps error codes to HTTP statuses and builds error responses
// (CONTRACT section 5, docs/http-api.md).

import { type ErrorCode, GraphDBError } from '../core/errors.js';

/** The engine's codes plus the HTTP layer's own (unknown path, wrong method, oversize body). */
export type HttpErrorCode = ErrorCode | 'NOT_FOUND' | 'METHOD_NOT_ALLOWED' | 'PAYLOAD_TOO_LARGE';

export const HTTP_STATUS: Readonly<Record<HttpErrorCode, number>> = {
  INVALID_REQUEST: 400,
  QUERY_SYNTAX: 400,
  QUERY_BINDING: 400,
  ACCESS_MODE_VIOLATION: 400,
  QUERY_RUNTIME: 400,
  CONSTRAINT_VIOLATION: 409,
  TX_CONFLICT: 409,
  QUERY_TIMEOUT: 408,
  // Over HTTP a statement is cancelled when its client went away (no one reads the answer) or
  // the service stops.
  QUERY_CANCELLED: 503,
  RESOURCE_LIMIT: 400,
  NOT_SUPPORTED: 501,
  SERVICE_UNAVAILABLE: 503,
  // Programmatic codes: over HTTP a closed slot means the service is closing.
  CONNECTION_CLOSED: 503,
  SLOT_BUSY: 500,
  IO_ERROR: 500,
  CORRUPTION: 500,
  INTERNAL: 500,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  PAYLOAD_TOO_LARGE: 413,
};

/** Seconds a client should wait before retrying a 503. */
export const RETRY_AFTER_SECONDS = 1;

export interface ErrorDetails {
  line?: number;
  column?: number;
  /** Extra response headers (e.g. Allow, Connection). */
  headers?: Record<string, string>;
}

/** `{"error": {"code", "message", "line"?, "column"?}}` with the code's status. */
export function errorResponse(code: HttpErrorCode, message: string, details: ErrorDetails = {}): Response {
  const status = HTTP_STATUS[code] ?? 500;
  const error: { code: string; message: string; line?: number; column?: number } = { code, message };
  if (details.line !== undefined) error.line = details.line;
  if (details.column !== undefined) error.column = details.column;
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    ...details.headers,
  };
  if (status === 503) headers['retry-after'] = String(RETRY_AFTER_SECONDS);
  return new Response(JSON.stringify({ error }), { status, headers });
}

/** Any thrown value as an error response: GraphDBError by its code, anything else INTERNAL. */
export function responseForError(error: unknown): Response {
  if (error instanceof GraphDBError) {
    const code: HttpErrorCode = error.code in HTTP_STATUS ? error.code : 'INTERNAL';
    return errorResponse(code, error.message, { line: error.line, column: error.column });
  }
  process.stderr.write(
    `graphdb: internal error while serving a request: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  const message = error instanceof Error ? error.message : String(error);
  return errorResponse('INTERNAL', `internal error: ${message}`);
}
