// conn.query's onProgress: the progress of COPY FROM, EXPORT and IMPORT DATABASE while they
// run, never after the promise settled (src/core/progress.ts, native/common/progress.h).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Database, type QueryProgress } from '../../src/index.js';

let dir: string;
let csv: string;

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'graphdb-progress-'));
  csv = path.join(dir, 'people.csv');
  const lines = ['id,name,score'];
  for (let i = 0; i < 200_000; i++) lines.push(`${i},person number ${i} of the generated file,${i * 0.5}`);
  fs.writeFileSync(csv, `${lines.join('\n')}\n`);
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** Runs `run` with an onProgress that records its calls, and whether each came after settling. */
async function watched(run: (onProgress: (p: QueryProgress) => void) => Promise<unknown>) {
  const calls: QueryProgress[] = [];
  let settled = false;
  let late = 0;
  const outcome = run((p) => {
    if (settled) late++;
    calls.push(p);
  }).finally(() => {
    settled = true;
  });
  const result = await outcome.then(
    (value) => ({ value, error: undefined }),
    (error: unknown) => ({ value: undefined, error }),
  );
  const countAtSettle = calls.length;
  await new Promise((resolve) => setTimeout(resolve, 350)); // past three polling intervals
  return { calls, late: late + calls.length - countAtSettle, ...result };
}

describe('onProgress', () => {
  it('reports a COPY FROM of a few MB with increasing bytes, the last at the file size', async () => {
    const size = fs.statSync(csv).size;
    expect(size).toBeGreaterThan(4 * 2 ** 20);
    using db = new Database(path.join(dir, 'copy'));
    using conn = db.connect();
    await conn.query('CREATE NODE TABLE P(id INT64, name STRING, score DOUBLE, PRIMARY KEY(id))');
    const { calls, late, value, error } = await watched((onProgress) =>
      conn.query(`COPY P FROM '${csv}' (header=true)`, undefined, { onProgress }),
    );
    expect(error).toBeUndefined();
    expect((value as { summary: { counters: { nodesCreated: number } } }).summary.counters.nodesCreated).toBe(
      200_000,
    );
    expect(late).toBe(0);
    expect(calls.length).toBeGreaterThan(0);
    for (const [i, p] of calls.entries()) {
      expect(p.bytesTotal).toBe(size);
      expect(p.bytesRead).toBeLessThanOrEqual(size);
      expect(p.fraction).toBeGreaterThanOrEqual(0);
      expect(p.fraction).toBeLessThanOrEqual(1);
      if (i > 0) expect(p.bytesRead).toBeGreaterThan(calls[i - 1]!.bytesRead);
    }
    expect(calls.at(-1)).toMatchObject({ bytesRead: size, bytesTotal: size, fraction: 1 });
  });

  it('counts the files of EXPORT DATABASE and the statements of IMPORT DATABASE as steps', async () => {
    const exported = path.join(dir, 'exported');
    {
      using db = new Database(path.join(dir, 'source'));
      using conn = db.connect();
      await conn.query('CREATE NODE TABLE P(id INT64, PRIMARY KEY(id))');
      await conn.query('CREATE NODE TABLE Q(id INT64, PRIMARY KEY(id))');
      await conn.query('CREATE REL TABLE R(FROM P TO Q)');
      await conn.query('UNWIND range(1, 1000) AS i CREATE (:P {id: i}), (:Q {id: i})');
      const { calls, late } = await watched((onProgress) =>
        conn.query(`EXPORT DATABASE '${exported}'`, undefined, { onProgress }),
      );
      expect(late).toBe(0);
      expect(calls.at(-1)).toMatchObject({ stepsDone: 3, stepsTotal: 3, fraction: 1 });
    }
    using db = new Database(path.join(dir, 'target'));
    using conn = db.connect();
    const { calls, late } = await watched((onProgress) =>
      conn.query(`IMPORT DATABASE '${exported}'`, undefined, { onProgress }),
    );
    expect(late).toBe(0);
    const last = calls.at(-1)!;
    expect(last.stepsTotal).toBeGreaterThanOrEqual(6); // three CREATE and three COPY
    expect(last).toMatchObject({ stepsDone: last.stepsTotal, fraction: 1 });
    expect((await conn.query('MATCH (p:P) RETURN count(p)')).rows).toEqual([[1000]]);
  });

  it('says nothing after a statement failed, and refuses a callback that is not a function', async () => {
    using db = new Database(':memory:');
    using conn = db.connect();
    await conn.query('CREATE NODE TABLE P(id INT64, PRIMARY KEY(id))');
    const { late, error } = await watched((onProgress) =>
      conn.query(`COPY P FROM '${csv}' (header=true)`, undefined, { onProgress }),
    );
    expect(error).toBeDefined(); // three columns for one
    expect(late).toBe(0);
    await expect(conn.query('RETURN 1', undefined, { onProgress: 1 as never })).rejects.toThrow(
      new TypeError('query option onProgress must be a function'),
    );
  });
});
