// The graph algorithms (docs/algorithms.md) against networkx, on seeded random and skewed
// graphs: PageRank, WCC, SCC, k-core, clustering coefficients, triangles, and the modularity of
// Louvain and Leiden against networkx's Louvain. Opt-in: `npm run test:algo-networkx` (needs
// python3 with networkx, Debian's python3-networkx) sets GRAPHDB_NETWORKX=1; without it every
// test here is skipped, visibly.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Connection, Database } from '../../src/index.js';

const enabled = process.env.GRAPHDB_NETWORKX === '1';

/** A seeded PRNG (an LCG is enough for graph shapes). */
function createRng(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 4294967296;
  };
  return { next, int: (n: number) => Math.floor(next() * n) };
}

type Edge = [number, number];

/**
 * `n` nodes with `m` distinct edges, no self-loops; every node has an outgoing edge (networkx's
 * PageRank spreads the rank of dangling nodes over all nodes, Kùzu's and ours do not).
 * `skewed`: half of the targets among the first 5% of the nodes.
 */
function makeGraph(seed: number, n: number, m: number, skewed: boolean): Edge[] {
  const rng = createRng(seed);
  const seen = new Set<string>();
  const edges: Edge[] = [];
  const add = (a: number, b: number) => {
    const key = `${a},${b}`;
    if (a === b || seen.has(key)) return;
    seen.add(key);
    edges.push([a, b]);
  };
  const target = () => (skewed && rng.next() < 0.5 ? rng.int(Math.max(1, Math.floor(n / 20))) : rng.int(n));
  for (let v = 0; v < n; v++) add(v, (v + 1 + rng.int(n - 1)) % n);
  while (edges.length < m) add(rng.int(n), target());
  return edges;
}

const PYTHON = `
import json, sys
import networkx as nx
data = json.load(sys.stdin)
G = nx.DiGraph()
G.add_nodes_from(range(data["n"]))
G.add_edges_from(data["edges"])
U = nx.Graph(G.to_undirected())
part = lambda comps: sorted(sorted(c) for c in comps)
out = {
  "pagerank": nx.pagerank(G, alpha=0.85, max_iter=1000, tol=1e-13),
  "wcc": part(nx.weakly_connected_components(G)),
  "scc": part(nx.strongly_connected_components(G)),
  "core": nx.core_number(G),
  "clustering": nx.clustering(U),
  "triangles": nx.triangles(U),
  "louvain": nx.community.modularity(U, nx.community.louvain_communities(U, seed=7)),
  "ours": {name: nx.community.modularity(U, [set(c) for c in comms]) for name, comms in data["partitions"].items()},
}
json.dump(out, sys.stdout)
`;

function networkx(input: unknown) {
  const result = spawnSync('python3', ['-c', PYTHON], { input: JSON.stringify(input), encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`python3 failed: ${result.stderr}`);
  return JSON.parse(result.stdout);
}

/** Groups node ids by the value the query gives them. */
function groups(rows: unknown[][]): number[][] {
  const byGroup = new Map<unknown, number[]>();
  for (const [id, group] of rows) {
    const list = byGroup.get(group) ?? [];
    list.push(Number(id));
    byGroup.set(group, list);
  }
  const parts = [...byGroup.values()].map((list) => list.sort((a, b) => a - b));
  return parts.sort((a, b) => (a.join(',') < b.join(',') ? -1 : 1));
}

const sortParts = (parts: number[][]) =>
  parts.map((p) => [...p].sort((a, b) => a - b)).sort((a, b) => (a.join(',') < b.join(',') ? -1 : 1));

const CASES = [
  { name: 'random', seed: 11, n: 400, m: 2400, skewed: false },
  { name: 'skewed', seed: 23, n: 500, m: 3000, skewed: true },
  { name: 'sparse', seed: 5, n: 600, m: 900, skewed: false },
];

describe.skipIf(!enabled)('graph algorithms against networkx', () => {
  let dir: string;
  let db: Database;
  let conn: Connection;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'graphdb-networkx-'));
    db = new Database(':memory:');
    conn = db.connect();
  });
  afterAll(() => {
    db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  for (const c of CASES) {
    it(`${c.name} graph (${c.n} nodes, ${c.m} edges)`, async () => {
      const edges = makeGraph(c.seed, c.n, c.m, c.skewed);
      const node = `N_${c.name}`;
      const rel = `E_${c.name}`;
      const nodesFile = path.join(dir, `${c.name}-nodes.csv`);
      const edgesFile = path.join(dir, `${c.name}-edges.csv`);
      fs.writeFileSync(nodesFile, Array.from({ length: c.n }, (_, i) => `${i}\n`).join(''));
      fs.writeFileSync(edgesFile, edges.map(([a, b]) => `${a},${b}\n`).join(''));
      await conn.query(`CREATE NODE TABLE ${node}(id INT64 PRIMARY KEY)`);
      await conn.query(`CREATE REL TABLE ${rel}(FROM ${node} TO ${node})`);
      await conn.query(`COPY ${node} FROM '${nodesFile}'`);
      await conn.query(`COPY ${rel} FROM '${edgesFile}'`);
      await conn.query(`CALL project_graph('${c.name}', ['${node}'], ['${rel}'])`);
      const rows = async (q: string) => (await conn.query(q)).rows as unknown[][];
      const g = `'${c.name}'`;
      const louvain = groups(await rows(`CALL louvain(${g}) RETURN node.id, louvain_id`));
      const leiden = groups(await rows(`CALL leiden(${g}, seed := 3) RETURN node.id, leiden_id`));
      const nx = networkx({ n: c.n, edges, partitions: { louvain, leiden } });

      const ranks = await rows(
        `CALL page_rank(${g}, maxIterations := 1000, tolerance := 1e-13) RETURN node.id, rank`,
      );
      for (const [id, rank] of ranks) expect(rank as number).toBeCloseTo(nx.pagerank[String(id)], 8);
      expect(groups(await rows(`CALL wcc(${g}) RETURN node.id, group_id`))).toEqual(sortParts(nx.wcc));
      expect(groups(await rows(`CALL scc(${g}) RETURN node.id, group_id`))).toEqual(sortParts(nx.scc));
      expect(groups(await rows(`CALL scc_ko(${g}) RETURN node.id, group_id`))).toEqual(sortParts(nx.scc));
      for (const [id, k] of await rows(`CALL kcore(${g}) RETURN node.id, k_degree`)) {
        expect(k).toBe(nx.core[String(id)]);
      }
      for (const [id, lcc] of await rows(`CALL lcc(${g}) RETURN node.id, lcc`)) {
        expect(lcc as number).toBeCloseTo(nx.clustering[String(id)], 10);
      }
      for (const [id, t] of await rows(`CALL triangle_count(${g}) RETURN node.id, triangles`)) {
        expect(t).toBe(nx.triangles[String(id)]);
      }
      expect(nx.ours.louvain).toBeGreaterThan(nx.louvain - 0.02);
      expect(nx.ours.leiden).toBeGreaterThan(nx.louvain - 0.02);
    });
  }
});
