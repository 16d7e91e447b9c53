import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { Database, GraphDBError } from '../../src/index.js';

const distIndex = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../dist/index.js');

// Runs `body` in a child process that opens the database at `dir` and then exits without
// closing it (so nothing is checkpointed): what survives is what the write-ahead log holds.
// `exitExplicitly`: end with process.exit(0), else let the event loop run dry.
function writeAndExit(dir: string, options: string, body: string, exitExplicitly = true): void {
  const script = `
    import { Database } from ${JSON.stringify(distIndex)};
    const db = new Database(${JSON.stringify(dir)}, ${options});
    const conn = db.connect();
    ${body}
    ${exitExplicitly ? 'process.exit(0);' : ''}
  `;
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    encoding: 'utf8',
  });
  expect(result.stderr).toBe('');
  expect(result.status).toBe(0);
}

describe('durability', () => {
  const dirs: string[] = [];
  const tempDir = () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'graphdb-durability-'));
    dirs.push(dir);
    return dir;
  };
  afterEach(() => {
    for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('validates syncOnCommit', () => {
    expect(() => new Database(':memory:', { syncOnCommit: 'yes' as never })).toThrow(
      /syncOnCommit must be a boolean/,
    );
    const db = new Database(':memory:', { syncOnCommit: false });
    expect(db.syncOnCommit).toBe(false);
    db.close();
    const defaulted = new Database();
    expect(defaulted.syncOnCommit).toBe(true);
    defaulted.close();
  });

  for (const syncOnCommit of [true, false]) {
    it(`keeps commits of a process that exits without closing (syncOnCommit ${syncOnCommit})`, async () => {
      const dir = tempDir();
      writeAndExit(
        dir,
        JSON.stringify({ syncOnCommit }),
        `
        conn.querySync('CREATE NODE TABLE P(id INT64, name STRING, PRIMARY KEY(id))');
        for (let i = 0; i < 20; i++) await conn.query('CREATE (:P {id: $i, name: $n})', { i, n: 'p' + i });
        await conn.query('MATCH (p:P) WHERE p.id < 5 SET p.name = "low"');
        await conn.query('MATCH (p:P {id: 19}) DELETE p');
        conn.querySync('BEGIN TRANSACTION');
        conn.querySync('CREATE (:P {id: 100, name: "uncommitted"})');
        `,
      );
      const db = new Database(dir);
      try {
        expect(db.recoveredCommits).toBe(22);
        // A process that exits mid-way leaves a clean log end: nothing torn, nothing dropped.
        expect(db.recoveryWarnings).toEqual([]);
        const conn = db.connect();
        const rows = conn.querySync('MATCH (p:P) RETURN p.name AS name, count(*) AS n ORDER BY name');
        expect(rows.toObjects().find((r) => r.name === 'low')?.n).toBe(5);
        expect(conn.querySync('MATCH (p:P) RETURN count(*)').rows[0][0]).toBe(19);
        expect(conn.querySync('MATCH (p:P {id: 100}) RETURN count(*)').rows[0][0]).toBe(0);
      } finally {
        db.close();
      }
      // Closing checkpointed: the next open has nothing to replay.
      const again = new Database(dir);
      expect(again.recoveredCommits).toBe(0);
      again.close();
    });
  }

  it('lets a process exit cleanly with connections still open', () => {
    const dir = tempDir();
    // Several connections that ran queries, left open: the exit must not crash (it once
    // aborted in the connections' finalizers) and the commits must be there afterwards.
    writeAndExit(
      dir,
      '{}',
      `
      conn.querySync('CREATE NODE TABLE P(id INT64, PRIMARY KEY(id))');
      const others = [db.connect(), db.connect()];
      await Promise.all(others.map((c, i) => c.query('CREATE (:P {id: $i})', { i })));
      `,
      false,
    );
    const db = new Database(dir);
    expect(db.connect().querySync('MATCH (p:P) RETURN count(*)').rows[0][0]).toBe(2);
    db.close();
  });

  it('refuses a second open of a folder that is in use, until it is closed', () => {
    const dir = tempDir();
    const db = new Database(dir);
    expect(() => new Database(dir)).toThrow(GraphDBError);
    expect(() => new Database(dir)).toThrow(
      expect.objectContaining({
        code: 'IO_ERROR',
        message: expect.stringMatching(/in use by another process or another open Database/),
      }),
    );
    db.close();
    const again = new Database(dir);
    again.close();
  });

  it('checkpoints beside an open read-write transaction, after its writes end', async () => {
    const dir = tempDir();
    const db = new Database(dir);
    try {
      const conn = db.connect();
      conn.querySync('CREATE NODE TABLE P(id INT64, PRIMARY KEY(id))');
      conn.querySync('CREATE (:P {id: 0})');
      // A read-write transaction that has only read holds nothing a checkpoint waits for.
      conn.querySync('BEGIN TRANSACTION');
      conn.querySync('MATCH (p:P) RETURN count(*)');
      await db.checkpoint();
      // Once it has written, the checkpoint waits its turn (its uncommitted writes are in the
      // tables) and runs when it commits: never refused, never with those writes.
      conn.querySync('CREATE (:P {id: 1})');
      let settled = false;
      const waiting = db.checkpoint().then(() => {
        settled = true;
      });
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(settled).toBe(false);
      conn.querySync('COMMIT');
      await waiting;
      expect(settled).toBe(true);
    } finally {
      db.close();
    }
    const again = new Database(dir);
    try {
      expect(again.recoveredCommits).toBe(0); // the checkpoint held the commit
      expect(again.connect().querySync('MATCH (p:P) RETURN count(*)').rows).toEqual([[2]]);
    } finally {
      again.close();
    }
  });
});
