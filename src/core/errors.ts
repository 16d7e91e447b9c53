/** Stable error codes (docs/http-api.md, "Errors"; IO_ERROR and CORRUPTION for storage faults). */
export type ErrorCode =
  | 'INVALID_REQUEST'
  | 'QUERY_SYNTAX'
  | 'QUERY_BINDING'
  | 'ACCESS_MODE_VIOLATION'
  | 'CONSTRAINT_VIOLATION'
  | 'TX_CONFLICT'
  | 'QUERY_RUNTIME'
  | 'QUERY_TIMEOUT'
  | 'QUERY_CANCELLED'
  | 'RESOURCE_LIMIT'
  | 'FORBIDDEN'
  | 'NOT_SUPPORTED'
  | 'SERVICE_UNAVAILABLE'
  | 'CONNECTION_CLOSED'
  | 'SLOT_BUSY'
  | 'IO_ERROR'
  | 'CORRUPTION'
  | 'INTERNAL';

/**
 * The error every database operation throws or rejects with. `code` is stable; `message`
 * names the cause; syntax errors also carry 1-based `line` and `column`.
 */
export class GraphDBError extends Error {
  readonly code: ErrorCode;
  line?: number;
  column?: number;

  constructor(message: string, code: ErrorCode = 'INTERNAL') {
    super(message);
    this.name = 'GraphDBError';
    this.code = code;
  }
}
