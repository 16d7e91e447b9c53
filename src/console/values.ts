// Values of a POST /cypher answer (docs/http-api.md): how they are parsed, recognised and
// written out as text. No DOM here: test/console/model.test.ts runs it in Node.

export type Value = null | boolean | number | bigint | string | Value[] | { [key: string]: Value };

export interface NodeValue {
  _id: string;
  _label: string;
  [key: string]: Value;
}

export interface RelValue {
  _id: string;
  _label: string;
  _src: string;
  _dst: string;
  [key: string]: Value;
}

export interface PathValue {
  _nodes: Value[];
  _rels: Value[];
}

export interface Counters {
  nodesCreated: number;
  nodesDeleted: number;
  relationshipsCreated: number;
  relationshipsDeleted: number;
  propertiesSet: number;
}

export interface QueryAnswer {
  columns: string[];
  types: string[];
  rows: Value[][];
  summary: { rowCount: number; elapsedMs: number; counters: Partial<Counters> };
}

/** The keys the service adds to nodes and relationships; the rest are properties. */
const RESERVED = new Set(['_id', '_label', '_src', '_dst']);

function isObject(value: unknown): value is { [key: string]: Value } {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function isRel(value: unknown): value is RelValue {
  return (
    isObject(value) &&
    typeof value._id === 'string' &&
    typeof value._label === 'string' &&
    typeof value._src === 'string' &&
    typeof value._dst === 'string'
  );
}

export function isNode(value: unknown): value is NodeValue {
  return (
    isObject(value) &&
    typeof value._id === 'string' &&
    typeof value._label === 'string' &&
    value._src === undefined &&
    value._dst === undefined
  );
}

export function isPath(value: unknown): value is PathValue {
  return isObject(value) && Array.isArray(value._nodes) && Array.isArray(value._rels);
}

/** A node's or relationship's own properties (without `_id`, `_label`, `_src`, `_dst`). */
export function propertiesOf(value: NodeValue | RelValue): Record<string, Value> {
  const out: Record<string, Value> = {};
  for (const [key, v] of Object.entries(value)) if (!RESERVED.has(key)) out[key] = v;
  return out;
}

/**
 * JSON.parse that keeps integers past 2^53 exact as BigInt (the service writes INT64 values
 * exactly). Uses the reviver's source text where the browser gives it; elsewhere such
 * integers are rounded as JSON.parse always did.
 */
export function parseJson(text: string): unknown {
  return JSON.parse(text, function revive(
    this: unknown,
    _key: string,
    value: unknown,
    context?: { source?: string },
  ) {
    if (typeof value === 'number' && Number.isInteger(value) && !Number.isSafeInteger(value)) {
      const source = context?.source;
      if (source !== undefined && /^-?\d+$/.test(source)) return BigInt(source);
    }
    return value;
  } as (key: string, value: unknown) => unknown);
}

/** JSON text of a value, BigInts as their exact digits (as the service writes them). */
export function toJson(value: Value, indent = 0): string {
  const step = ' '.repeat(indent);
  const write = (v: Value, pad: string): string => {
    if (v === null) return 'null';
    if (typeof v === 'bigint') return v.toString();
    if (typeof v === 'number') return Number.isFinite(v) ? String(v) : 'null';
    if (typeof v !== 'object') return JSON.stringify(v);
    const inner = pad + step;
    const open = indent ? `\n${inner}` : '';
    const sep = indent ? `,\n${inner}` : ',';
    const close = indent ? `\n${pad}` : '';
    if (Array.isArray(v)) {
      if (v.length === 0) return '[]';
      return `[${open}${v.map((item) => write(item, inner)).join(sep)}${close}]`;
    }
    const entries = Object.entries(v);
    if (entries.length === 0) return '{}';
    const colon = indent ? ': ' : ':';
    return `{${open}${entries.map(([k, item]) => `${JSON.stringify(k)}${colon}${write(item, inner)}`).join(sep)}${close}}`;
  };
  return write(value, '');
}

function scalarText(value: Value, quoteStrings: boolean): string {
  if (value === null) return 'null';
  if (typeof value === 'string') return quoteStrings ? JSON.stringify(value) : value;
  return String(value);
}

function mapText(entries: [string, Value][]): string {
  return `{${entries.map(([k, v]) => `${k}: ${valueText(v, true)}`).join(', ')}}`;
}

function nodeText(node: NodeValue): string {
  const props = Object.entries(propertiesOf(node));
  return `(:${node._label}${props.length ? ` ${mapText(props)}` : ''})`;
}

function relText(rel: RelValue): string {
  const props = Object.entries(propertiesOf(rel));
  return `[:${rel._label}${props.length ? ` ${mapText(props)}` : ''}]`;
}

function pathText(path: PathValue): string {
  const nodes = path._nodes;
  const rels = path._rels;
  if (nodes.length === 0) return '<>';
  let out = valueText(nodes[0] ?? null, true);
  for (let i = 0; i < rels.length; i++) {
    const rel = rels[i] ?? null;
    const prev = nodes[i];
    const forward = !(isRel(rel) && isNode(prev)) || rel._src === prev._id;
    const text = valueText(rel, true);
    out += forward ? `-${text}->` : `<-${text}-`;
    out += valueText(nodes[i + 1] ?? null, true);
  }
  return out;
}

/** A value as one line of text: strings bare at the top level, quoted inside lists and maps. */
export function valueText(value: Value, nested = false): string {
  if (value === null || typeof value !== 'object') return scalarText(value, nested);
  if (Array.isArray(value)) return `[${value.map((v) => valueText(v, true)).join(', ')}]`;
  if (isRel(value)) return relText(value);
  if (isNode(value)) return nodeText(value);
  if (isPath(value)) return pathText(value);
  return mapText(Object.entries(value));
}

/** valueText cut to `max` characters (with an ellipsis). */
export function shortText(value: Value, max = 200): string {
  const text = valueText(value);
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
