// `quiverdb/kuzu`: Kùzu's Node.js API (the `kuzu` package, 0.11) over GraphDB, so that an
// application written for Kùzu switches by changing its import (docs/migrating-from-kuzu.md).
// CommonJS like the package's main entry (index.mts re-exports it as an ES module).

import { Connection } from './connection.js';
import { Database, STORAGE_VERSION } from './database.js';
import { PreparedStatement } from './prepared-statement.js';
import { QueryResult } from './query-result.js';

export { Connection, type ProgressCallback, type QueryResults } from './connection.js';
export { Database, STORAGE_VERSION } from './database.js';
export { PreparedStatement } from './prepared-statement.js';
export {
  type Callback,
  type KuzuRow,
  type KuzuValue,
  type NodeID,
  type NodeValue,
  type Nullable,
  QueryResult,
  type QuerySummary,
  type RecursiveRelValue,
  type RelValue,
  type SystemConfig,
} from './query-result.js';

/** GraphDB's version (Kùzu's VERSION is Kùzu's). */
export const VERSION: string = Database.getVersion();

export default { Connection, Database, PreparedStatement, QueryResult, VERSION, STORAGE_VERSION };
