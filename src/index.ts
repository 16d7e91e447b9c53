export { Connection, type QueryOptions, type QueryParameters } from './core/connection.js';
export { Database, type DatabaseOptions } from './core/database.js';
export { type ErrorCode, GraphDBError } from './core/errors.js';
export { PreparedStatement } from './core/prepared.js';
export type { QueryProgress } from './core/progress.js';
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
export type { AppOptions } from './http/app.js';
export type { HttpErrorCode } from './http/errors.js';
export type { RawTextResult as TextQueryResult } from './native/addon.js';
export {
  type AcquireExecutionSlotOptions,
  ExecutionSlot,
  ExecutionSlotLease,
  TpExecutionSlotPool,
} from './runtime/pool.js';
export {
  GraphDBService,
  type RunOptions,
  type ServiceConfig,
  type ServiceStatus,
} from './service/service.js';
export { VERSION as version } from './version.js';

import type * as HttpApp from './http/app.js';
import type { GraphDBService as Service } from './service/service.js';

let httpApp: typeof HttpApp | undefined;

/**
 * The service's HTTP routes as a Hono app, to mount in an application's own Hono app (see
 * docs/http-api.md). The HTTP layer (Hono and the routes) is loaded on the first call, not when
 * the package is: an application that only embeds the database does not pay for it at start-up.
 */
export function createApp(
  service: Service,
  options?: HttpApp.AppOptions,
): ReturnType<typeof HttpApp.createApp> {
  // The package is CommonJS (see index.mts), so the module loads synchronously here.
  httpApp ??= require('./http/app.js') as typeof HttpApp;
  return httpApp.createApp(service, options);
}
