// Worker threads: the addon loads in several at once, each with databases of its own, and a
// worker's exit (with its databases open, even with statements running) stops its connections'
// native threads and frees what they held (native/napi/connection_wrap.h, rule 6). Each
// scenario runs in a child process (test/core/fixtures/workers.mjs) that loads the built package,
// so that a crash fails the test instead of the test runner.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const fixture = path.resolve(path.dirname(fileURLToPath(import.meta.url)), 'fixtures', 'workers.mjs');

function runWorkers(mode: string, rounds: number) {
  const started = performance.now();
  const result = spawnSync(process.execPath, ['--expose-gc', fixture, mode, String(rounds)], {
    encoding: 'utf8',
    timeout: 120_000,
  });
  return { ...result, ms: performance.now() - started };
}

describe('worker threads', () => {
  it('run queries on databases of their own, four at once, three rounds over', () => {
    const result = runWorkers('queries', 3);
    expect(result.stderr).toBe('');
    expect(result.stdout).toBe('round 1 ok\nround 2 ok\nround 3 ok\ndone\n');
    expect(result.status).toBe(0);
  });

  it.each([
    ['exit', 'process.exit() in the worker'],
    ['terminate', "the parent's worker.terminate()"],
  ])('stop at once when a worker leaves with statements running and queued (%s: %s)', (mode) => {
    // Before the environment cleanup hook, terminate() aborted the process (a promise settled
    // while no JavaScript could run) and exit() waited for the statement to run to its end.
    const result = runWorkers(mode, 2);
    expect(result.stderr).toBe('');
    expect(result.stdout).toBe('round 1 ok\nround 2 ok\ndone\n');
    expect(result.status).toBe(0);
    expect(result.ms).toBeLessThan(20_000); // the statements alone would run for minutes
  });

  it('free their databases when they exit: memory does not grow round after round', () => {
    // Each round's 4 workers hold databases of 10,000 nodes (about 5 MB each) and leave them
    // open. Were they kept after the workers exit, the process would grow by some 20 MB a round.
    const result = runWorkers('memory', 8);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    const rss = [...result.stdout.matchAll(/^rss ([\d.]+)$/gm)].map((m) => Number(m[1]));
    expect(rss).toHaveLength(8);
    // After two rounds of warming up (allocator arenas, code), five more rounds add less than
    // one round's databases would.
    const growth = Math.max(...rss.slice(2)) - rss[2]!;
    expect(growth, `resident MB by round: ${rss.join(', ')}`).toBeLessThan(12);
  });
});
