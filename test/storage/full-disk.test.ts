// A database on a disk that fills up (issue 39), on a real file system: a 24 MiB tmpfs mounted
// for the test (Linux, as root). Where mounting is not allowed the test is skipped with a
// message; the same cycle runs everywhere on the fault-injection file system in
// native/main/durability_test.cc (FullDiskTest).
//
// The cycle: one connection inserts ~2 kB rows with syncOnCommit until the disk is full; the
// failing commit answers IO_ERROR; later writes and CHECKPOINT are refused, reads work, close()
// works; the database opens on the full disk (read-only, replaying its log in memory); after
// the file system is enlarged it reopens writable with every acknowledged row and no failed one.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { Database, GraphDBError } from '../../src/index.js';

const mountPoint = mkdtempSync(path.join(os.tmpdir(), 'graphdb-full-disk-'));

function tryMount(): string | undefined {
  if (process.platform !== 'linux') return 'not Linux';
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=24m', 'tmpfs', mountPoint], { stdio: 'pipe' });
    return undefined;
  } catch (error) {
    return `mount -t tmpfs failed: ${String((error as { stderr?: Buffer }).stderr ?? error).trim()}`;
  }
}

const mountRefused = tryMount();
if (mountRefused !== undefined) {
  console.log(
    `full-disk test on a 24 MiB tmpfs: SKIPPED (${mountRefused}); the fault-injection test covers it`,
  );
}

afterAll(() => {
  if (mountRefused === undefined) execFileSync('umount', ['--lazy', mountPoint]); // mapped files may outlive close()
  rmSync(mountPoint, { recursive: true, force: true });
});

async function ioErrorOf(promise: Promise<unknown>): Promise<GraphDBError> {
  const caught = await promise.then(
    () => undefined,
    (error: unknown) => error,
  );
  expect(caught).toBeInstanceOf(GraphDBError);
  expect((caught as GraphDBError).code).toBe('IO_ERROR');
  return caught as GraphDBError;
}

function ioError(run: () => unknown): GraphDBError {
  let caught: unknown;
  try {
    run();
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(GraphDBError);
  expect((caught as GraphDBError).code).toBe('IO_ERROR');
  return caught as GraphDBError;
}

it.skipIf(mountRefused !== undefined)(
  'fills a small file system, fails one commit, opens while full, grows and keeps exactly the acknowledged rows',
  async () => {
    const dir = path.join(mountPoint, 'db');
    const filler = 'x'.repeat(2000);
    let acknowledged = 0;
    let failed = -1;
    {
      const db = new Database(dir, { syncOnCommit: true, maxThreadNum: 1 });
      const conn = db.connect();
      conn.querySync('CREATE NODE TABLE T(id INT64, s STRING, PRIMARY KEY(id))');
      for (let id = 0; id < 100_000; id++) {
        try {
          conn.querySync('CREATE (:T {id: $id, s: $s})', { id, s: filler });
          acknowledged = id + 1;
        } catch (error) {
          expect(error).toBeInstanceOf(GraphDBError);
          expect((error as GraphDBError).code).toBe('IO_ERROR');
          expect((error as GraphDBError).message).toMatch(/No space left on device/);
          expect((error as GraphDBError).message).toMatch(/will not reappear/);
          failed = id;
          break;
        }
      }
      expect(failed).toBeGreaterThan(1000);
      // Refused until reopened; reads go on; close() works.
      expect(ioError(() => conn.querySync('CREATE (:T {id: -1, s: "later"})')).message).toMatch(
        /until it is reopened/,
      );
      await ioErrorOf(db.checkpoint());
      expect(conn.querySync('MATCH (t:T) RETURN count(*) AS n').rows).toEqual([[acknowledged]]);
      db.close();
    }
    {
      // Still full: it opens, for reads, from the replayed log, and says so.
      const db = new Database(dir, { syncOnCommit: true, maxThreadNum: 1 });
      expect(db.recoveredCommits).toBe(acknowledged);
      expect(db.recoveryWarnings.join('\n')).toMatch(/opened read-only/);
      const conn = db.connect();
      expect(conn.querySync('MATCH (t:T) RETURN count(*), max(t.id)').rows).toEqual([
        [acknowledged, acknowledged - 1],
      ]);
      expect(ioError(() => conn.querySync('CREATE (:T {id: -1, s: "later"})')).message).toMatch(/read-only/);
      await ioErrorOf(db.checkpoint());
      db.close();
    }
    execFileSync('mount', ['-o', 'remount,size=64m', mountPoint]);
    {
      const db = new Database(dir, { syncOnCommit: true, maxThreadNum: 1 });
      expect(db.recoveredCommits).toBe(acknowledged);
      expect(db.recoveryWarnings.join('\n')).not.toMatch(/read-only/);
      const conn = db.connect();
      expect(conn.querySync('MATCH (t:T) RETURN count(*), max(t.id)').rows).toEqual([
        [acknowledged, acknowledged - 1],
      ]);
      expect(conn.querySync(`MATCH (t:T {id: ${failed}}) RETURN count(*)`).rows).toEqual([[0]]);
      conn.querySync('CREATE (:T {id: $id, s: $s})', { id: failed, s: filler });
      await db.checkpoint();
      db.close();
    }
    const db = new Database(dir, { maxThreadNum: 1 });
    expect(db.recoveredCommits).toBe(0);
    expect(db.connect().querySync('MATCH (t:T) RETURN count(*)').rows).toEqual([[acknowledged + 1]]);
    db.close();
  },
);
