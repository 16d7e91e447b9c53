export { Connection, type QueryParameters } from './core/connection.js';
export { Database, type DatabaseOptions } from './core/database.js';
export { type ErrorCode, GraphDBError } from './core/errors.js';
export { QueryResult, type QuerySummary } from './core/query-result.js';
export type { RawTextResult as TextQueryResult } from './native/addon.js';
