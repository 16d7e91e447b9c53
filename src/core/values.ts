// The JavaScript values of query results as TypeScript types: the value table of the README
// ("Values"), which native/napi/convert.cc (FromValue) implements.

/**
 * INT64, UINT64, INT128 and SERIAL: a `number` when within ±2^53 (Number.MAX_SAFE_INTEGER),
 * else an exact `bigint`. INT8..INT32 and UINT8..UINT32 are always numbers.
 */
export type CypherInteger = number | bigint;

/** DATE: `'YYYY-MM-DD'`. */
export type CypherDate = string;

/** TIMESTAMP of every unit: ISO 8601 in UTC, e.g. `'2011-08-20T11:25:30Z'`. */
export type CypherTimestamp = string;

/** The id of a node or relationship: `'table:offset'`. */
export type CypherId = string;

/** A node: its id, its table's name and its properties. */
export interface GraphNode {
  _id: CypherId;
  _label: string;
  [property: string]: CypherValue;
}

/** A relationship: its id, its table's name, the ids of its ends and its properties. */
export interface GraphRelationship {
  _id: CypherId;
  _label: string;
  _src: CypherId;
  _dst: CypherId;
  [property: string]: CypherValue;
}

/** A path (a variable-length relationship): its nodes and relationships in order. */
export interface GraphPath {
  _nodes: GraphNode[];
  _rels: GraphRelationship[];
}

/** STRUCT: a plain object of its fields. */
export interface CypherStruct {
  [field: string]: CypherValue;
}

/** Any value a result cell can hold; NULL is `null`. A UNION value is its member's value. */
export type CypherValue =
  | null
  | boolean
  | number
  | bigint
  | string
  | Buffer
  | CypherValue[]
  | CypherStruct
  | Map<CypherValue, CypherValue>
  | GraphNode
  | GraphRelationship
  | GraphPath;

/**
 * The JavaScript type of a (non-NULL) value of each Cypher type, by the name `result.types`
 * gives it: `CypherTypes['INT64']` is `number | bigint`. Lists (`INT64[]`), arrays
 * (`DOUBLE[3]`), structs (`STRUCT(a INT64, ...)`) and maps (`MAP(STRING, INT64)`) are named
 * with their element types; LIST, ARRAY, STRUCT and MAP give their general shape.
 */
export interface CypherTypes {
  BOOL: boolean;
  INT8: number;
  INT16: number;
  INT32: number;
  INT64: CypherInteger;
  INT128: CypherInteger;
  UINT8: number;
  UINT16: number;
  UINT32: number;
  UINT64: CypherInteger;
  SERIAL: CypherInteger;
  FLOAT: number;
  DOUBLE: number;
  STRING: string;
  UUID: string;
  INTERVAL: string;
  DATE: CypherDate;
  TIMESTAMP: CypherTimestamp;
  TIMESTAMP_TZ: CypherTimestamp;
  TIMESTAMP_NS: CypherTimestamp;
  TIMESTAMP_MS: CypherTimestamp;
  TIMESTAMP_SEC: CypherTimestamp;
  BLOB: Buffer;
  INTERNAL_ID: CypherId;
  LIST: CypherValue[];
  ARRAY: CypherValue[];
  STRUCT: CypherStruct;
  MAP: Map<CypherValue, CypherValue>;
  NODE: GraphNode;
  REL: GraphRelationship;
  RECURSIVE_REL: GraphPath;
}

/** The rows of a result as objects keyed by column name, when nothing more is known of them. */
export type ResultRow = Record<string, CypherValue>;
