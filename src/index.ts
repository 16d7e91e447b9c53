export { Connection, type QueryOptions, type QueryParameters } from './core/connection.js';
export { Database, type DatabaseOptions } from './core/database.js';
export { type ErrorCode, GraphDBError } from './core/errors.js';
export { PreparedStatement } from './core/prepared.js';
export { QueryResult, type QuerySummary } from './core/query-result.js';
export { RowStream, type StreamOptions } from './core/stream.js';
export type {
  CypherDate,
  CypherId,
  CypherInteger,
  CypherStruct,
  CypherTimestamp,
  CypherTypes,
  CypherValue,
  GraphNode,
  GraphPath,
  GraphRelationship,
  ResultRow,
} from './core/values.js';
export type { RawTextResult as TextQueryResult } from './native/addon.js';
export { type AppOptions, createApp } from './server/app.js';
export type { HttpErrorCode } from './server/errors.js';
export {
  type AcquireExecutionSlotOptions,
  ExecutionSlot,
  ExecutionSlotLease,
  TpExecutionSlotPool,
} from './service/pool.js';
export {
  GraphDBService,
  type RunOptions,
  type ServiceConfig,
  type ServiceStatus,
} from './service/service.js';
export { VERSION as version } from './version.js';
