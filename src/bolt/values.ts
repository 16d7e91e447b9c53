// GraphDB values as Bolt values and back (docs/bolt.md, "Values").
//
// Results arrive in the engine's typed form (src/native/addon.ts, TypedParameter; a whole
// DOUBLE as a Number object), so every value knows its Bolt type without a schema: integers
// are JS numbers or bigints, floats non-whole numbers or Number objects. Nodes, relationships
// and paths are plain objects ({_id, _label, ...}), told apart from STRUCTs by the column's type
// (`NODE`, `REL[]`, `STRUCT(a NODE, ...)`), which `shapeOf` reads.

import { TypedParameter } from '../native/addon.js';
import { type Encoder, Structure } from './packstream.js';

/** Structure tags of Bolt's value types. */
export const TAG = {
  node: 0x4e,
  relationship: 0x52,
  unboundRelationship: 0x72,
  path: 0x50,
  date: 0x44,
  time: 0x54,
  localTime: 0x74,
  dateTime: 0x49,
  dateTimeZoneId: 0x69,
  legacyDateTime: 0x46,
  legacyDateTimeZoneId: 0x66,
  localDateTime: 0x64,
  duration: 0x45,
  point2d: 0x58,
  point3d: 0x59,
} as const;

/** A parameter the engine cannot take; answered with Neo.ClientError.Statement.TypeError. */
export class BoltValueError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BoltValueError';
  }
}

/** What the dialect of a connection changes in values (the negotiated version). */
export interface ValueDialect {
  /** Bolt 5: element ids on nodes and relationships. */
  elementIds: boolean;
  /** Bolt 5 (or 4.4 with the `utc` patch): DateTime in UTC seconds (tag 0x49). */
  utcDateTime: boolean;
}

// ---------------------------------------------------------------------------------------------
// Shapes: what the column type says a value is, where it matters (graph values).

/** The shape of a value as its type gives it; `any` where the type says nothing graph-like. */
export type Shape =
  | { kind: 'any' }
  | { kind: 'node' }
  | { kind: 'rel' }
  | { kind: 'path' }
  | { kind: 'list'; element: Shape }
  | { kind: 'struct'; fields: Map<string, Shape> }
  | { kind: 'map'; value: Shape }
  | { kind: 'unknown' };

const ANY: Shape = { kind: 'any' };
const UNKNOWN: Shape = { kind: 'unknown' };

/**
 * The shape of a value of the Kùzu type named `type` (LogicalType::ToString: `INT64[]`,
 * `DOUBLE[3]`, `STRUCT(a INT64, b NODE)`, `MAP(STRING, REL)`, `UNION(...)`). A text it cannot
 * read (a field name with a space, say) gives `unknown`: the value's own keys then decide.
 */
export function shapeOf(type: string): Shape {
  const reader = new TypeReader(type);
  try {
    const shape = reader.type();
    return reader.atEnd() ? shape : UNKNOWN;
  } catch {
    return UNKNOWN;
  }
}

class TypeReader {
  #at = 0;
  readonly #text: string;

  constructor(text: string) {
    this.#text = text;
  }

  atEnd(): boolean {
    return this.#at === this.#text.length;
  }

  #expect(token: string): void {
    if (!this.#text.startsWith(token, this.#at)) throw new Error(`expected ${token}`);
    this.#at += token.length;
  }

  #word(): string {
    const match = /^[A-Za-z0-9_]+/.exec(this.#text.slice(this.#at));
    if (!match) throw new Error('expected a name');
    this.#at += match[0].length;
    return match[0];
  }

  type(): Shape {
    const name = this.#word().toUpperCase();
    let shape: Shape;
    if (name === 'STRUCT' || name === 'UNION') {
      this.#expect('(');
      const fields = new Map<string, Shape>();
      while (!this.#text.startsWith(')', this.#at)) {
        if (fields.size > 0) this.#expect(', ');
        const field = this.#word();
        this.#expect(' ');
        fields.set(field, this.type());
      }
      this.#expect(')');
      // A UNION value is its member's value, whichever member it is.
      shape = name === 'STRUCT' ? { kind: 'struct', fields } : UNKNOWN;
    } else if (name === 'MAP') {
      this.#expect('(');
      this.type();
      this.#expect(', ');
      const value = this.type();
      this.#expect(')');
      shape = { kind: 'map', value };
    } else if (name === 'NODE') {
      shape = { kind: 'node' };
    } else if (name === 'REL') {
      shape = { kind: 'rel' };
    } else if (name === 'RECURSIVE_REL') {
      shape = { kind: 'path' };
    } else {
      shape = ANY;
    }
    while (this.#text.startsWith('[', this.#at)) {
      this.#at++;
      while (/[0-9]/.test(this.#text[this.#at] ?? '')) this.#at++;
      this.#expect(']');
      shape = { kind: 'list', element: shape };
    }
    return shape;
  }
}

/** The shape of a value whose type is unknown, from its keys (UNION members, odd names). */
function guessShape(value: Record<string, unknown>): Shape {
  if ('_nodes' in value && '_rels' in value) return { kind: 'path' };
  if ('_id' in value && '_label' in value)
    return '_src' in value && '_dst' in value ? { kind: 'rel' } : { kind: 'node' };
  return ANY;
}

// ---------------------------------------------------------------------------------------------
// Results out.

/** The integer id of an internal id `table:offset`: table * 2^40 + offset. */
export function integerId(id: string): number | bigint {
  const colon = id.indexOf(':');
  const table = BigInt(id.slice(0, colon));
  const offset = BigInt(id.slice(colon + 1));
  const value = (table << 40n) + offset;
  return value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : value;
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const MICROS_PER_SECOND = 1_000_000n;

type GraphObject = Record<string, unknown>;

/** Writes result values as Bolt values. */
export class ValueWriter {
  readonly #dialect: ValueDialect;

  constructor(dialect: ValueDialect) {
    this.#dialect = dialect;
  }

  write(out: Encoder, value: unknown, shape: Shape): void {
    if (value === null || value === undefined) {
      out.null();
    } else if (typeof value === 'number') {
      if (Number.isInteger(value)) out.integer(value);
      else out.float(value);
    } else if (typeof value === 'bigint') {
      // INT128 and UINT64 beyond the 64-bit range have no Bolt integer: their decimal text.
      if (value < INT64_MIN || value > INT64_MAX) out.string(value.toString());
      else out.integer(value);
    } else if (typeof value === 'string') {
      out.string(value);
    } else if (typeof value === 'boolean') {
      out.boolean(value);
    } else if (value instanceof Number) {
      out.float(value.valueOf());
    } else if (value instanceof TypedParameter) {
      this.#temporal(out, value);
    } else if (value instanceof Uint8Array) {
      out.bytesValue(value);
    } else if (Array.isArray(value)) {
      const element = shape.kind === 'list' ? shape.element : shape.kind === 'any' ? ANY : UNKNOWN;
      out.listHeader(value.length);
      for (const item of value) this.write(out, item, element);
    } else if (value instanceof Map) {
      const inner = shape.kind === 'map' ? shape.value : shape.kind === 'any' ? ANY : UNKNOWN;
      out.mapHeader(value.size);
      for (const [key, item] of value) {
        out.string(typeof key === 'string' ? key : mapKeyText(key));
        this.write(out, item, inner);
      }
    } else if (typeof value === 'object') {
      this.#object(
        out,
        value as GraphObject,
        shape.kind === 'unknown' ? guessShape(value as GraphObject) : shape,
      );
    } else {
      throw new TypeError(`cannot send a ${typeof value} over Bolt`);
    }
  }

  #object(out: Encoder, value: GraphObject, shape: Shape): void {
    switch (shape.kind) {
      case 'node':
        this.#node(out, value);
        return;
      case 'rel':
        this.#relationship(out, value, false);
        return;
      case 'path':
        this.#path(out, value);
        return;
      default: {
        const fields = shape.kind === 'struct' ? shape.fields : undefined;
        const keys = Object.keys(value);
        out.mapHeader(keys.length);
        for (const key of keys) {
          out.string(key);
          this.write(out, value[key], fields?.get(key) ?? (shape.kind === 'any' ? ANY : UNKNOWN));
        }
      }
    }
  }

  /** The properties of a node or relationship: every key but the underscored ones it carries. */
  #properties(out: Encoder, value: GraphObject, own: readonly string[]): void {
    const keys = Object.keys(value).filter((key) => !own.includes(key));
    out.mapHeader(keys.length);
    for (const key of keys) {
      out.string(key);
      // A property holds no graph value: any STRUCT in it is a map.
      this.write(out, value[key], ANY);
    }
  }

  #node(out: Encoder, node: GraphObject): void {
    const id = String(node._id);
    out.structHeader(TAG.node, this.#dialect.elementIds ? 4 : 3);
    out.integer(integerId(id));
    out.listHeader(1);
    out.string(String(node._label));
    this.#properties(out, node, NODE_KEYS);
    if (this.#dialect.elementIds) out.string(id);
  }

  #relationship(out: Encoder, rel: GraphObject, unbound: boolean): void {
    const id = String(rel._id);
    const ids = this.#dialect.elementIds;
    if (unbound) {
      out.structHeader(TAG.unboundRelationship, ids ? 4 : 3);
      out.integer(integerId(id));
    } else {
      out.structHeader(TAG.relationship, ids ? 8 : 5);
      out.integer(integerId(id));
      out.integer(integerId(String(rel._src)));
      out.integer(integerId(String(rel._dst)));
    }
    out.string(String(rel._label));
    this.#properties(out, rel, REL_KEYS);
    if (ids) {
      out.string(id);
      if (!unbound) {
        out.string(String(rel._src));
        out.string(String(rel._dst));
      }
    }
  }

  /**
   * A RECURSIVE_REL: a named path (`p = (a)-[*]->(b)`, all its nodes) as a Bolt Path; a
   * variable-length relationship (`[e*1..3]`, its inner nodes only) as the list of its
   * relationships, as Neo4j gives it.
   */
  #path(out: Encoder, path: GraphObject): void {
    const nodes = (path._nodes ?? []) as GraphObject[];
    const rels = (path._rels ?? []) as GraphObject[];
    if (nodes.length !== rels.length + 1) {
      out.listHeader(rels.length);
      for (const rel of rels) this.#relationship(out, rel, false);
      return;
    }
    // Nodes and relationships in path order, a repeated one again: drivers take the last node
    // of the list for the path's end.
    const indices: number[] = [];
    rels.forEach((rel, i) => {
      indices.push(String(rel._src) === String(nodes[i]?._id) ? i + 1 : -(i + 1));
      indices.push(i + 1);
    });
    out.structHeader(TAG.path, 3);
    out.listHeader(nodes.length);
    for (const node of nodes) this.#node(out, node);
    out.listHeader(rels.length);
    for (const rel of rels) this.#relationship(out, rel, true);
    out.listHeader(indices.length);
    for (const index of indices) out.integer(index);
  }

  #temporal(out: Encoder, value: TypedParameter): void {
    switch (value.type) {
      case 'DOUBLE':
        out.float(value.value);
        return;
      case 'DATE':
        out.structHeader(TAG.date, 1);
        out.integer(value.days);
        return;
      case 'TIMESTAMP': {
        const [seconds, nanos] = splitMicros(value.micros);
        out.structHeader(TAG.localDateTime, 2);
        out.integer(seconds);
        out.integer(nanos);
        return;
      }
      case 'TIMESTAMP_TZ': {
        // An instant, in UTC: offset 0 (the same seconds in the legacy local form).
        const [seconds, nanos] = splitMicros(value.micros);
        out.structHeader(this.#dialect.utcDateTime ? TAG.dateTime : TAG.legacyDateTime, 3);
        out.integer(seconds);
        out.integer(nanos);
        out.integer(0);
        return;
      }
      case 'INTERVAL': {
        const [seconds, nanos] = splitMicros(value.micros);
        out.structHeader(TAG.duration, 4);
        out.integer(value.months);
        out.integer(value.days);
        out.integer(seconds);
        out.integer(nanos);
        return;
      }
    }
  }
}

const NODE_KEYS = ['_id', '_label'] as const;
const REL_KEYS = ['_id', '_label', '_src', '_dst'] as const;

/** Microseconds as whole seconds (floored) and the nanoseconds after them (0..999,999,999). */
function splitMicros(micros: bigint): [bigint, number] {
  let seconds = micros / MICROS_PER_SECOND;
  let rest = micros % MICROS_PER_SECOND;
  if (rest < 0n) {
    seconds -= 1n;
    rest += MICROS_PER_SECOND;
  }
  return [seconds, Number(rest) * 1000];
}

/** A MAP key that is not a string, as Bolt map keys must be: its text. */
function mapKeyText(key: unknown): string {
  if (key instanceof TypedParameter) return `${key.type}(${key.months},${key.days},${key.micros})`;
  if (key instanceof Uint8Array) return Buffer.from(key).toString('hex');
  if (typeof key === 'object' && key !== null)
    return JSON.stringify(key, (_k, v) => (typeof v === 'bigint' ? v.toString() : v));
  return String(key);
}

// ---------------------------------------------------------------------------------------------
// Parameters in.

function integerField(value: unknown, what: string): bigint {
  if (typeof value === 'number' && Number.isInteger(value)) return BigInt(value);
  if (typeof value === 'bigint') return value;
  throw new BoltValueError(`${what} must be an integer`);
}

function int32Field(value: unknown, what: string): number {
  const v = integerField(value, what);
  if (v < -(2n ** 31n) || v >= 2n ** 31n)
    throw new BoltValueError(`${what} is out of QuiverDB's range (32 bits)`);
  return Number(v);
}

/** Seconds and nanoseconds as whole microseconds; sub-microsecond precision is refused. */
function micros(seconds: unknown, nanos: unknown, what: string): bigint {
  const s = integerField(seconds, `the seconds of a ${what}`);
  const n = integerField(nanos, `the nanoseconds of a ${what}`);
  if (n % 1000n !== 0n) {
    throw new BoltValueError(
      `a ${what} parameter has nanoseconds (${n}) that are not whole microseconds: QuiverDB keeps microseconds`,
    );
  }
  const total = s * MICROS_PER_SECOND + n / 1000n;
  if (total < INT64_MIN || total > INT64_MAX) throw new BoltValueError(`a ${what} parameter is out of range`);
  return total;
}

function fieldCount(value: Structure, count: number, what: string): void {
  if (value.fields.length !== count) {
    throw new BoltValueError(`a ${what} structure has ${value.fields.length} fields, not ${count}`);
  }
}

function pad(n: number, width = 2): string {
  return String(n).padStart(width, '0');
}

/** A time of day in nanoseconds as ISO text: `HH:MM:SS[.fraction]`. */
function timeText(nanosOfDay: bigint): string {
  if (nanosOfDay < 0n || nanosOfDay >= 86_400n * 1_000_000_000n) {
    throw new BoltValueError('a time parameter is outside the day');
  }
  const totalSeconds = Number(nanosOfDay / 1_000_000_000n);
  const fraction = Number(nanosOfDay % 1_000_000_000n);
  const base = `${pad(Math.floor(totalSeconds / 3600))}:${pad(Math.floor(totalSeconds / 60) % 60)}:${pad(totalSeconds % 60)}`;
  return fraction === 0 ? base : `${base}.${pad(fraction, 9).replace(/0+$/, '')}`;
}

function offsetText(seconds: number): string {
  if (seconds === 0) return 'Z';
  const sign = seconds < 0 ? '-' : '+';
  const abs = Math.abs(seconds);
  const text = `${sign}${pad(Math.floor(abs / 3600))}:${pad(Math.floor(abs / 60) % 60)}`;
  return abs % 60 === 0 ? text : `${text}:${pad(abs % 60)}`;
}

/**
 * A Bolt parameter as a GraphDB parameter: integers as numbers (bigints beyond 2^53), floats
 * as numbers (a whole one as a Number object, so it stays a DOUBLE), maps as STRUCTs, Date,
 * LocalDateTime, DateTime and Duration as DATE, TIMESTAMP, TIMESTAMP_TZ and INTERVAL; LocalTime
 * and Time as their ISO text (GraphDB has no time-of-day type). Throws BoltValueError for what
 * GraphDB cannot take (points, graph values, sub-microsecond times).
 */
export function toParameter(value: unknown, dialect: ValueDialect): unknown {
  if (
    value === null ||
    typeof value === 'boolean' ||
    typeof value === 'string' ||
    typeof value === 'bigint'
  ) {
    return value;
  }
  if (typeof value === 'number') return value;
  // A whole Float decodes as a Number object (packstream.ts): a DOUBLE, not an INT64.
  if (value instanceof Number) return TypedParameter.double(value.valueOf());
  if (value instanceof Uint8Array) return value;
  if (Array.isArray(value)) return value.map((item) => toParameter(item, dialect));
  if (value instanceof Structure) return structureParameter(value, dialect);
  if (typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value)) {
      out[key] = toParameter((value as Record<string, unknown>)[key], dialect);
    }
    return out;
  }
  throw new BoltValueError(`a ${typeof value} cannot be a parameter`);
}

function structureParameter(value: Structure, dialect: ValueDialect): unknown {
  const f = value.fields;
  switch (value.tag) {
    case TAG.date: {
      fieldCount(value, 1, 'Date');
      return TypedParameter.date(int32Field(f[0], 'the days of a Date'));
    }
    case TAG.localDateTime:
      fieldCount(value, 2, 'LocalDateTime');
      return TypedParameter.timestamp(micros(f[0], f[1], 'LocalDateTime'), false);
    case TAG.dateTime:
    case TAG.legacyDateTime: {
      fieldCount(value, 3, 'DateTime');
      const utc = value.tag === TAG.dateTime;
      if (utc && !dialect.utcDateTime)
        throw new BoltValueError('this connection sends DateTime in its legacy form (tag 0x46)');
      const offset = int32Field(f[2], 'the offset of a DateTime');
      // The legacy form counts seconds of the local time: the offset takes it back to UTC.
      const seconds = integerField(f[0], 'the seconds of a DateTime') - (utc ? 0n : BigInt(offset));
      return TypedParameter.timestamp(micros(seconds, f[1], 'DateTime'), true);
    }
    case TAG.dateTimeZoneId: {
      fieldCount(value, 3, 'DateTime');
      if (typeof f[2] !== 'string') throw new BoltValueError('the zone of a DateTime must be a string');
      return TypedParameter.timestamp(micros(f[0], f[1], 'DateTime'), true);
    }
    case TAG.legacyDateTimeZoneId:
      throw new BoltValueError(
        'a DateTime with a zone name in the legacy form (Bolt 4.4 without the utc patch) cannot be taken: its UTC time depends on a zone database',
      );
    case TAG.duration: {
      fieldCount(value, 4, 'Duration');
      return TypedParameter.interval(
        int32Field(f[0], 'the months of a Duration'),
        int32Field(f[1], 'the days of a Duration'),
        micros(f[2], f[3], 'Duration'),
      );
    }
    case TAG.localTime:
      fieldCount(value, 1, 'LocalTime');
      return timeText(integerField(f[0], 'the nanoseconds of a LocalTime'));
    case TAG.time:
      fieldCount(value, 2, 'Time');
      return (
        timeText(integerField(f[0], 'the nanoseconds of a Time')) +
        offsetText(int32Field(f[1], 'the offset of a Time'))
      );
    case TAG.point2d:
    case TAG.point3d:
      throw new BoltValueError('QuiverDB has no spatial types: a Point cannot be a parameter');
    case TAG.node:
    case TAG.relationship:
    case TAG.unboundRelationship:
    case TAG.path:
      throw new BoltValueError('nodes, relationships and paths cannot be parameters');
    default:
      throw new BoltValueError(`unknown structure 0x${value.tag.toString(16)} among the parameters`);
  }
}
