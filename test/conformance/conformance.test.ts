// Runs the Kùzu conformance suite (scripts/conformance.mjs) and fails if fewer statements pass
// than test/conformance/floor.json records. See docs/conformance.md for how to raise the floor.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..', '..');
const script = path.join(root, 'scripts', 'conformance.mjs');
const suite = path.resolve(root, '..', 'shared', 'conformance', 'kuzu');
const floor = JSON.parse(readFileSync(path.join(here, 'floor.json'), 'utf8')) as {
  passed: number;
  rate: number;
};

const hasSuite = existsSync(suite);
if (!hasSuite)
  console.warn(`Kùzu conformance suite not found at ${suite}: skipping the conformance floor test`);

function runConformance(jsonFile: string): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, '--suite', suite, '--json', jsonFile], {
      cwd: root,
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    child.on('error', reject);
    child.on('close', resolve);
  });
}

describe.skipIf(!hasSuite)('Kùzu conformance suite', () => {
  it(`passes at least ${floor.passed} statements (the floor)`, { timeout: 20 * 60_000 }, async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'graphdb-conformance-test-'));
    try {
      const jsonFile = path.join(dir, 'report.json');
      expect(await runConformance(jsonFile)).toBe(0);
      const report = JSON.parse(readFileSync(jsonFile, 'utf8')) as { passed: number; total: number };
      expect(report.passed).toBeGreaterThanOrEqual(floor.passed);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
