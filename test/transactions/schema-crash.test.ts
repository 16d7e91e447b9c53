// Schema transactions across a crash: a child process runs explicit transactions that create a
// table, copy rows into it, add a column to another table and insert a row, and is killed with
// SIGKILL, at a random moment or while one is open; reopened, the database must hold every
// acknowledged transaction whole and nothing of any other (docs/concurrency.md, "Schema
// transactions").
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Database } from '../../src/index.js';
import { runNode } from './fixtures/crash-harness.mjs';

const WRITER = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures', 'schema-crash-writer.mjs');

describe('crash during schema transactions', () => {
  let dir: string;
  let dbPath: string;
  let csv: string;
  let checks = 0;

  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'graphdb-schema-crash-'));
    dbPath = path.join(dir, 'db');
    csv = path.join(dir, 'rows.csv');
    writeFileSync(csv, '1,a\n2,b\n3,c\n');
  });

  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  /** Runs the writer from `base`, kills it (after `killAfterMs` from "ready", or at "open"). */
  async function crash(base: number, killAfterMs: number | null, openAfter?: number) {
    const args = ['--db', dbPath, '--csv', csv, '--base', String(base)];
    if (openAfter !== undefined) args.push('--open-after', String(openAfter));
    const run = await runNode(WRITER, args, {
      timeoutMs: 30_000,
      onLine: (line, kill) => {
        if (line === 'ready' && killAfterMs !== null) setTimeout(kill, killAfterMs);
        if (line.startsWith('open ')) kill();
      },
    });
    expect(run.signal, run.stderr).toBe('SIGKILL');
    expect(run.timedOut).toBe(false);
    const numbers = (prefix: string) =>
      run.lines.filter((l) => l.startsWith(prefix)).map((l) => Number(l.slice(prefix.length)));
    return { acked: numbers('ack '), rolledBack: numbers('rolled-back '), open: numbers('open ') };
  }

  /** Checks the reopened database: the acknowledged transactions whole, nothing of the others. */
  async function check(acked: number[], absent: number[]) {
    using db = new Database(dbPath);
    using conn = db.connect();
    const tables = new Set((await conn.query('CALL show_tables() RETURN name')).rows.map((r) => r[0]));
    const columns = new Set((await conn.query("CALL table_info('Base') RETURN name")).rows.map((r) => r[0]));
    const baseIds = new Set((await conn.query('MATCH (b:Base) RETURN b.id')).rows.map((r) => Number(r[0])));
    for (const i of acked) {
      expect(tables.has(`T${i}`), `T${i}`).toBe(true);
      expect((await conn.query(`MATCH (t:T${i}) RETURN count(*)`)).rows).toEqual([[3]]);
      expect(columns.has(`c${i}`), `c${i}`).toBe(true);
      expect(baseIds.has(i), `Base ${i}`).toBe(true);
      expect((await conn.query(`MATCH (b:Base {id: ${i}}) RETURN b.c${i}`)).rows).toEqual([[i]]);
    }
    for (const i of absent) {
      expect(tables.has(`T${i}`), `T${i}`).toBe(false);
      expect(columns.has(`c${i}`), `c${i}`).toBe(false);
      expect(baseIds.has(i), `Base ${i}`).toBe(false);
    }
    // Any transaction number past the acknowledged ones is either whole or absent (one whose
    // COMMIT was cut by the kill may have reached the disk before its "ack" line).
    for (const name of tables) {
      const match = /^T(\d+)$/.exec(String(name));
      if (!match) continue;
      const i = Number(match[1]);
      expect((await conn.query(`MATCH (t:T${i}) RETURN count(*)`)).rows).toEqual([[3]]);
      expect(columns.has(`c${i}`) && baseIds.has(i), `transaction ${i} whole`).toBe(true);
    }
    // The database takes a new schema transaction.
    await conn.query('BEGIN TRANSACTION');
    await conn.query(
      `CREATE NODE TABLE After${acked.length}_${absent.length}_${checks++}(id INT64, PRIMARY KEY(id))`,
    );
    await conn.query('COMMIT');
  }

  it('keeps acknowledged schema transactions and nothing of an open one', async () => {
    const first = await crash(0, null, 2);
    expect(first.acked).toEqual([0, 1]);
    expect(first.open).toEqual([2]);
    await check(first.acked, [...first.rolledBack, ...first.open]);
  }, 60_000);

  it('applies no schema transaction by half when killed at a random moment', async () => {
    // Each cycle numbers its transactions from its own base, far enough apart that a fast
    // writer (a few hundred transactions before the kill) never reaches the next cycle's.
    let base = 100_000;
    let acked = 0;
    for (let cycle = 0; cycle < 2; cycle++) {
      const run = await crash(base, 150 + Math.floor(Math.random() * 400));
      expect(Math.max(base, ...run.acked, ...run.rolledBack)).toBeLessThan(base + 100_000);
      await check(run.acked, run.rolledBack);
      acked += run.acked.length;
      base += 100_000;
    }
    expect(acked).toBeGreaterThan(0);
  }, 60_000);
});
