// The benchmark's SQL peers (benchmarks/lib/systems.mjs): SQLite and DuckDB load the generated
// social graph and answer each operation's SQL form with the rows GraphDB gives to its Cypher
// form, on a small graph. A peer whose package does not load here is skipped, with the reason
// in the test name.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ensureSocialCsv } from '../../benchmarks/lib/social.mjs';
import { openSystem, peerUnavailable } from '../../benchmarks/lib/systems.mjs';
import { Q, TASKS } from '../../benchmarks/lib/workloads.mjs';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'graphdb-bench-peers-'));
const data = ensureSocialCsv(tmp, 0.001); // 100 persons, 1,000 knows edges

interface Entry {
  query: string;
  params: { id: number };
  result?: { rows: unknown[][] };
  error?: { message: string };
}

/** Loads the graph into `name`, then its answers to the social_differential reads. */
async function answers(name: string): Promise<Entry[]> {
  const system = await openSystem(name, path.join(tmp, `db-${name}`), {});
  try {
    const ctx = { system, data, dataset: 'social', quick: true, out: path.join(tmp, `${name}.json`) };
    await TASKS.prepare(ctx);
    await TASKS.social_differential(ctx);
    return JSON.parse(fs.readFileSync(ctx.out, 'utf8'));
  } finally {
    await system.close();
  }
}

/** A write through each form: the edge appears once, only between existing persons. */
async function edgeInsertCounts(name: string): Promise<number[]> {
  const system = await openSystem(name, path.join(tmp, `db-${name}`), {});
  try {
    const conn = system.connect();
    const count = async () => Number((await conn.query(Q.countKnows)).rows[0][0]);
    const counts = [await count()];
    await conn.exec(Q.insertEdge, { a: 1, b: 2, since: '2001-02-03' }, { write: true });
    counts.push(await count());
    await conn.exec(Q.insertEdge, { a: 1, b: 100_000, since: '2001-02-03' }, { write: true });
    counts.push(await count());
    const { rows } = await conn.query(Q.twoHopCount, { id: 1 });
    counts.push(Number(rows[0][0]));
    return counts;
  } finally {
    await system.close();
  }
}

afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('benchmark peers', async () => {
  const reference = await answers('graphdb');
  const referenceWrites = await edgeInsertCounts('graphdb');

  it('GraphDB answers every read of the check', () => {
    expect(reference).toHaveLength(150);
    expect(reference.every((e) => e.result && !e.error)).toBe(true);
    expect(reference.some((e) => e.query === 'twoHopCount' && Number(e.result?.rows[0][0]) > 0)).toBe(true);
    expect(referenceWrites.slice(0, 3)).toEqual([1000, 1001, 1001]);
  });

  for (const peer of ['sqlite', 'duckdb']) {
    const why = await peerUnavailable(peer);
    it.skipIf(why !== null)(`${peer} gives GraphDB's answers${why ? ` (SKIPPED: ${why})` : ''}`, async () => {
      const got = await answers(peer);
      expect(got.map((e) => e.error ?? null).filter(Boolean)).toEqual([]);
      expect(got.map((e) => e.result)).toEqual(reference.map((e) => e.result));
      expect(await edgeInsertCounts(peer)).toEqual(referenceWrites);
    });
  }
});
