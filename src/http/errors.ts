// The one place that maps error codes to HTTP statuses and builds error responses
// (docs/http-api.md, "Errors").

import { type ErrorCode, GraphDBError } from '../core/errors.js';

/**
 * The engine's codes plus the HTTP layer's own: unknown path, wrong method, oversize body, a
 * body that is not JSON by its Content-Type, a Host or an Origin the service does not answer,
 * an explicit transaction that is not (or no longer) open.
 */
export type HttpErrorCode =
  | ErrorCode
  | 'NOT_FOUND'
  | 'METHOD_NOT_ALLOWED'
  | 'PAYLOAD_TOO_LARGE'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'HOST_NOT_ALLOWED'
  | 'ORIGIN_NOT_ALLOWED'
  | 'UNAUTHORIZED'
  | 'TX_NOT_FOUND';

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
  // The client's role does not allow what it asked (docs/security.md), or the statement names a
  // file the service does not let it touch.
  FORBIDDEN: 403,
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
  UNSUPPORTED_MEDIA_TYPE: 415,
  HOST_NOT_ALLOWED: 403,
  ORIGIN_NOT_ALLOWED: 403,
  UNAUTHORIZED: 401,
  TX_NOT_FOUND: 404,
};

/**
 * Sent with every response: the answers are data for programs, never a page to render, frame,
 * sniff, cache or follow links from.
 */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
};

/** The headers of a JSON response: Content-Type and the security headers. */
export function jsonHeaders(extra?: Record<string, string>): Record<string, string> {
  // A fresh object each time: the node adapter adds Content-Length to it.
  return { 'content-type': 'application/json', ...SECURITY_HEADERS, ...extra };
}

/** Seconds a client should wait before retrying a 503. */
export const RETRY_AFTER_SECONDS = 1;

export interface ErrorDetails {
  line?: number;
  column?: number;
  /** Extra response headers (e.g. Allow, Connection). */
  headers?: Record<string, string>;
}

/**
 * A response as its parts: what the Hono app wraps in a Response and the `POST /cypher` fast
 * path (fast-cypher.ts) writes to Node's response as it is.
 */
export interface Reply {
  status: number;
  /** A fresh object, which the writer may add Content-Length to. */
  headers: Record<string, string>;
  body: string;
}

/** A reply as a web Response. */
export function toResponse(reply: Reply): Response {
  return new Response(reply.body, { status: reply.status, headers: reply.headers });
}

/** `{"error": {"code", "message", "line"?, "column"?}}` with the code's status. */
export function errorReply(code: HttpErrorCode, message: string, details: ErrorDetails = {}): Reply {
  const status = HTTP_STATUS[code] ?? 500;
  const error: { code: string; message: string; line?: number; column?: number } = { code, message };
  if (details.line !== undefined) error.line = details.line;
  if (details.column !== undefined) error.column = details.column;
  const headers = jsonHeaders(details.headers);
  if (status === 503) headers['retry-after'] = String(RETRY_AFTER_SECONDS);
  return { status, headers, body: JSON.stringify({ error }) };
}

/** errorReply as a Response. */
export function errorResponse(code: HttpErrorCode, message: string, details: ErrorDetails = {}): Response {
  return toResponse(errorReply(code, message, details));
}

/** Any thrown value as an error reply: GraphDBError by its code, anything else INTERNAL. */
export function replyForError(error: unknown): Reply {
  if (error instanceof GraphDBError) {
    const code: HttpErrorCode = error.code in HTTP_STATUS ? error.code : 'INTERNAL';
    return errorReply(code, error.message, { line: error.line, column: error.column });
  }
  process.stderr.write(
    `graphdb: internal error while serving a request: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  const message = error instanceof Error ? error.message : String(error);
  return errorReply('INTERNAL', `internal error: ${message}`);
}

/** replyForError as a Response. */
export function responseForError(error: unknown): Response {
  return toResponse(replyForError(error));
}

/**
 * The answer when the Node adapter cannot make a request out of what arrived (a Host header
 * that names no valid host or port, a backslash in the path): the contract's 400
 * INVALID_REQUEST instead of the adapter's empty 400. Anything else it catches is a bug
 * (INTERNAL, logged).
 */
export function adapterErrorResponse(error: unknown): Response {
  if (error instanceof Error && error.name === 'RequestError') {
    return errorResponse('INVALID_REQUEST', `the request could not be read: ${error.message}`, {
      headers: { connection: 'close' },
    });
  }
  return responseForError(error);
}
