// The nodes and relationships a result holds, wherever they sit in it: as cells, inside lists
// and maps, or along paths. No DOM here: test/console/model.test.ts runs it in Node.

import { isNode, isPath, isRel, propertiesOf, type Value } from './values.js';

export interface GraphNode {
  id: string;
  label: string;
  properties: Record<string, Value>;
}

export interface GraphRel {
  id: string;
  type: string;
  source: string;
  target: string;
  properties: Record<string, Value>;
}

export interface ExtractedGraph {
  nodes: GraphNode[];
  /** Relationships whose two ends are among `nodes`. */
  rels: GraphRel[];
  /** Distinct nodes the result held beyond `maxNodes` (not in `nodes`). */
  nodesLeftOut: number;
  /** Relationships left out because an end is not in `nodes` (not returned, or left out). */
  relsLeftOut: number;
}

/** Walks every value of `rows` (lists, maps, paths) and calls `visit` on nodes and rels. */
function walk(value: Value, visit: (value: Value) => void, depth = 0): void {
  if (value === null || typeof value !== 'object' || depth > 64) return;
  if (Array.isArray(value)) {
    for (const item of value) walk(item, visit, depth + 1);
    return;
  }
  if (isNode(value) || isRel(value)) {
    visit(value);
    return;
  }
  if (isPath(value)) {
    // Interleaved, so that a path's nodes come before the nodes of later rows.
    const n = Math.max(value._nodes.length, value._rels.length);
    for (let i = 0; i < n; i++) {
      if (i < value._nodes.length) walk(value._nodes[i] ?? null, visit, depth + 1);
      if (i < value._rels.length) walk(value._rels[i] ?? null, visit, depth + 1);
    }
    return;
  }
  for (const item of Object.values(value)) walk(item, visit, depth + 1);
}

/** True when some value of `rows` is a node, a relationship or a path. */
export function hasGraphValues(rows: Value[][]): boolean {
  let found = false;
  for (const row of rows) {
    walk(row, () => {
      found = true;
    });
    if (found) return true;
  }
  return false;
}

/**
 * The distinct nodes (at most `maxNodes`, first seen first) and the relationships between
 * them. A relationship whose ends were not returned is counted in `relsLeftOut`.
 */
export function extractGraph(rows: Value[][], maxNodes = Number.POSITIVE_INFINITY): ExtractedGraph {
  const nodes = new Map<string, GraphNode>();
  const rels = new Map<string, GraphRel>();
  const over = new Set<string>();
  for (const row of rows) {
    walk(row, (value) => {
      if (isRel(value)) {
        if (!rels.has(value._id)) {
          rels.set(value._id, {
            id: value._id,
            type: value._label,
            source: value._src,
            target: value._dst,
            properties: propertiesOf(value),
          });
        }
      } else if (isNode(value) && !nodes.has(value._id)) {
        if (nodes.size >= maxNodes) over.add(value._id);
        else nodes.set(value._id, { id: value._id, label: value._label, properties: propertiesOf(value) });
      }
    });
  }
  const kept: GraphRel[] = [];
  let relsLeftOut = 0;
  for (const rel of rels.values()) {
    if (nodes.has(rel.source) && nodes.has(rel.target)) kept.push(rel);
    else relsLeftOut++;
  }
  return { nodes: [...nodes.values()], rels: kept, nodesLeftOut: over.size, relsLeftOut };
}
