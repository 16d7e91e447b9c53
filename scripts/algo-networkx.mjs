#!/usr/bin/env node
// `npm run test:algo-networkx`: compares the graph algorithms with networkx
// (test/algo/networkx.test.ts). Needs python3 with networkx (Debian: apt-get install
// python3-networkx) and a build (`npm run build`); says so and exits 0 when networkx is missing.
import { spawnSync } from 'node:child_process';

const probe = spawnSync('python3', ['-c', 'import networkx; print(networkx.__version__)'], {
  encoding: 'utf8',
});
if (probe.status !== 0) {
  console.log(
    'SKIPPED: the networkx comparison needs python3 with networkx (apt-get install -y python3-networkx)',
  );
  process.exit(0);
}
console.log(`networkx ${probe.stdout.trim()}`);
const run = spawnSync('npx', ['vitest', 'run', 'test/algo/networkx.test.ts'], {
  stdio: 'inherit',
  env: { ...process.env, GRAPHDB_NETWORKX: '1' },
});
process.exit(run.status ?? 1);
