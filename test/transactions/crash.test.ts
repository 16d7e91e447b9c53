// Durability and atomicity across a crash: a child process writes from four connections and is
// killed with SIGKILL at a random moment; the database is then reopened in another child and
// checked against what the writer acknowledged (fixtures/crash-harness.mjs). The opt-in
// `npm run stress:crash` runs many more cycles of the same harness.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { initCrashDatabase, runCrashCycle } from './fixtures/crash-harness.mjs';

const CYCLES = 3;

interface Problem {
  kind: string;
  message: string;
}

function killDelayMs(): number {
  return 100 + Math.floor(Math.random() * 500);
}

describe('crash (SIGKILL of a writing process)', () => {
  let dir: string;
  let dbPath: string;

  beforeEach(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'graphdb-crash-'));
    dbPath = path.join(dir, 'db');
    await initCrashDatabase(dbPath);
  });

  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  /** Runs `cycles` kill cycles on one database; returns the problems and the commits acknowledged. */
  async function crashCycles(cycles: number, options: Record<string, unknown> = {}) {
    const problems: Problem[] = [];
    let acked = 0;
    for (let cycle = 0; cycle < cycles; cycle++) {
      const result = await runCrashCycle({ dbPath, cycle, killAfterMs: killDelayMs(), ...options });
      acked += result.acked.length;
      for (const p of result.problems as Problem[]) {
        problems.push({
          kind: p.kind,
          message: `cycle ${cycle} (killed ${result.killAfterMs} ms in): ${p.message}`,
        });
      }
    }
    return { problems, acked };
  }

  it('keeps every acknowledged commit and applies no transaction by half', async () => {
    const { problems, acked } = await crashCycles(CYCLES);
    expect(acked).toBeGreaterThan(0);
    expect(problems).toEqual([]);
  }, 60_000);

  it('keeps every acknowledged commit when the kill lands in a checkpoint beside the writers', async () => {
    // A 2 KiB threshold: the database checkpoints by itself every few commits, beside the
    // writers, so kills land in every step of a checkpoint (storage-format.md).
    const { problems, acked } = await crashCycles(CYCLES, { checkpointBytes: 2048 });
    expect(acked).toBeGreaterThan(0);
    expect(problems).toEqual([]);
  }, 60_000);

  it('leaves no trace of transactions rolled back before the crash', async () => {
    // Durability itself is the test above; this one is about what must not survive.
    const { problems } = await crashCycles(2, { rollbackEvery: 4 });
    expect(problems.filter((p) => p.kind !== 'lost')).toEqual([]);
  }, 60_000);

  it('does not make a transaction durable while it is open, even when a checkpoint runs', async () => {
    const { problems } = await crashCycles(1, { openTransaction: true });
    expect(problems).toEqual([]);
  }, 60_000);
});
