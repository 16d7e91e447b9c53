// The npm package as a user gets it: scripts/package-test.mjs packs it, installs the tarball in
// a fresh folder with no compiler, CMake or make on PATH, and there runs it from CommonJS, from
// ES modules and in worker threads (see the script for every check). It is one of the long
// suites (vitest.long.config.ts, `npm run test:all`), run alone: packing rebuilds dist/, which
// other tests load, and the installation's time is one of its checks.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const script = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../scripts/package-test.mjs');

it('packs, installs in seconds without a compiler, and runs from CommonJS, ES modules and workers', () => {
  const result = spawnSync(process.execPath, [script], { encoding: 'utf8', timeout: 300_000 });
  const output = `${result.stdout}${result.stderr}`;
  expect(output, output).toContain('package test passed');
  expect(output).not.toContain('FAIL');
  expect(result.status).toBe(0);
}, 330_000);
