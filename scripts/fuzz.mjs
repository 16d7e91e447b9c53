#!/usr/bin/env node
// The fuzz suites at length (opt-in; `npm test` runs them briefly): test/fuzz/http.fuzz.test.ts
// (generated HTTP requests) and test/fuzz/query.fuzz.test.ts (generated and mutated Cypher),
// run by vitest with the counts set through the environment, at low priority. Prints the
// counts run, the answers by status and outcome, and every failure (fast-check's shrunk
// counterexample with the seed to replay it); exits non-zero if any.
//
//   npm run fuzz -- [--requests 100000] [--queries 100000] [--seed N] [--token T] [--stop-at-first]
//                   [--include-known] [--max-rss-mb 4096]
//
// A failing run is recorded and the suite goes on (GRAPHDB_FUZZ_CONTINUE=1), so that the
// summary lists every distinct failure with a few inputs; --stop-at-first stops at the first
// and lets fast-check shrink it instead. --requests 0 or --queries 0 skips that suite.
// Statements that trigger the open engine defects listed in test/fuzz/support.ts
// (KNOWN_DEFECTS) are counted and skipped; --include-known runs them too. --max-rss-mb
// (default 4096; 0: no limit) stops the run when a test process grows past it and prints what
// it last sent. --seed replays a failure (with the counts it
// ran with); --token sends `Authorization: Bearer T` (for a service that requires it).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const { values: options } = parseArgs({
  options: {
    requests: { type: 'string', default: '100000' },
    queries: { type: 'string', default: '100000' },
    seed: { type: 'string' },
    token: { type: 'string' },
    'stop-at-first': { type: 'boolean', default: false },
    'include-known': { type: 'boolean', default: false },
    'max-rss-mb': { type: 'string', default: '4096' },
    help: { type: 'boolean', default: false },
  },
});

if (options.help) {
  console.log(
    'usage: npm run fuzz -- [--requests N] [--queries N] [--seed N] [--token T] [--stop-at-first] [--include-known] [--max-rss-mb N]',
  );
  process.exit(0);
}

function count(name) {
  const value = Number(options[name]);
  if (!Number.isInteger(value) || value < 0) {
    console.error(`fuzz: --${name} must be a whole number >= 0, got ${options[name]}`);
    process.exit(2);
  }
  return value;
}

const requests = count('requests');
const maxRssMb = count('max-rss-mb');
const queries = count('queries');
const files = [];
if (requests > 0) files.push('test/fuzz/http.fuzz.test.ts');
if (queries > 0) files.push('test/fuzz/query.fuzz.test.ts');
if (files.length === 0) {
  console.error('fuzz: nothing to run (--requests 0 and --queries 0)');
  process.exit(2);
}

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'graphdb-fuzz-'));
const reportFile = path.join(work, 'counts.jsonl');
const resultsFile = path.join(work, 'vitest.json');
const traceFile = path.join(work, 'trace.log');
const env = {
  ...process.env,
  GRAPHDB_FUZZ_REQUESTS: String(requests),
  GRAPHDB_FUZZ_QUERIES: String(queries),
  GRAPHDB_FUZZ_REPORT: reportFile,
  // Record each failing run and go on, so that the run reports every distinct failure.
  GRAPHDB_FUZZ_CONTINUE: options['stop-at-first'] ? '0' : '1',
  // Each request and statement, so that a run killed for its memory shows what it was doing.
  GRAPHDB_FUZZ_TRACE: traceFile,
};
env.GRAPHDB_FUZZ_SKIP_KNOWN = options['include-known'] ? '0' : '1';
if (options.seed !== undefined) env.GRAPHDB_FUZZ_SEED = options.seed;
if (options.token !== undefined) env.GRAPHDB_FUZZ_TOKEN = options.token;

const started = Date.now();
console.log(`fuzz: ${requests} requests, ${queries} queries (${files.join(', ')})`);
const vitest = path.join(root, 'node_modules', 'vitest', 'vitest.mjs');
const child = spawn(
  process.execPath,
  [
    vitest,
    'run',
    ...files,
    '--no-file-parallelism',
    '--reporter=default',
    '--reporter=json',
    `--outputFile.json=${resultsFile}`,
  ],
  { cwd: root, env, stdio: 'inherit' },
);
// Low priority: the machine is shared (its test workers inherit it).
try {
  os.setPriority(child.pid, 10);
} catch {
  // not permitted: run at normal priority
}

/** The pids under `pid` (Linux /proc). */
function descendants(pid) {
  const children = new Map();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (!children.has(ppid)) children.set(ppid, []);
      children.get(ppid).push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  const out = [];
  const walk = (p) => {
    for (const c of children.get(p) ?? []) {
      out.push(c);
      walk(c);
    }
  };
  walk(pid);
  return out;
}

function rssMb(pid) {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

// A generated statement that takes all the memory would take the machine down with it: past
// --max-rss-mb the run stops, and the summary shows the last requests and statements it sent.
let memoryKill = null;
const watchdog =
  process.platform === 'linux' && maxRssMb > 0
    ? setInterval(() => {
        for (const pid of descendants(child.pid)) {
          const rss = rssMb(pid);
          if (rss <= maxRssMb || memoryKill !== null) continue;
          let last = '(no trace)';
          try {
            last = fs.readFileSync(traceFile, 'utf8').trimEnd().split('\n').slice(-5).join('\n');
          } catch {
            // no trace yet
          }
          memoryKill = `a test process grew to ${rss.toFixed(0)} MB (limit ${maxRssMb} MB); the last requests and statements sent:\n${last}`;
          for (const p of [...descendants(child.pid), child.pid]) {
            try {
              process.kill(p, 'SIGKILL');
            } catch {
              // gone
            }
          }
        }
      }, 500)
    : undefined;
const exitCode = await new Promise((resolve) =>
  child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0))),
);
if (watchdog) clearInterval(watchdog);
const seconds = ((Date.now() - started) / 1000).toFixed(1);

const counts = fs.existsSync(reportFile)
  ? fs
      .readFileSync(reportFile, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line))
  : [];
const failures = [];
if (fs.existsSync(resultsFile)) {
  const results = JSON.parse(fs.readFileSync(resultsFile, 'utf8'));
  for (const file of results.testResults ?? []) {
    for (const test of file.assertionResults ?? []) {
      if (test.status === 'failed') {
        failures.push({
          test: test.fullName,
          message: (test.failureMessages ?? []).join('\n').slice(0, 4000),
        });
      }
    }
    if (file.status === 'failed' && (file.assertionResults ?? []).length === 0) {
      failures.push({ test: file.name, message: String(file.message ?? '').slice(0, 4000) });
    }
  }
}

console.log('\n=== fuzz summary ===');
for (const suite of counts) {
  if (suite.suite === 'http') {
    console.log(
      `HTTP: ${suite.requests} requests (${suite.raw} raw, ${suite.wellFormed} well-formed, ${suite.concurrent} in concurrent bursts, ${suite.aborted} abandoned by their client) in ${(suite.ms / 1000).toFixed(1)} s`,
    );
    console.log(`  statuses: ${JSON.stringify(suite.statuses)}`);
  } else if (suite.suite === 'queries') {
    console.log(
      `Queries: ${suite.queries} statements (${suite.embedded} generated + ${suite.embeddedMutated} mutated embedded, ${suite.http} generated + ${suite.httpMutated} mutated over HTTP), ${suite.transfers} transfers, ${suite.checks} invariant checks in ${(suite.ms / 1000).toFixed(1)} s`,
    );
    console.log(`  outcomes: ${JSON.stringify(suite.outcomes)}`);
  }
}
const findings = counts.flatMap((suite) => (suite.findings ?? []).map((f) => ({ suite: suite.suite, ...f })));
console.log(
  `distinct failures found: ${findings.length} (in ${findings.reduce((n, f) => n + f.count, 0)} runs)`,
);
for (const f of findings)
  console.log(`- [${f.suite}] ${f.count}x ${f.signature}\n    ${f.examples.join('\n    ')}`);
console.log(`failed tests: ${failures.length}`);
if (memoryKill) console.log(`STOPPED: ${memoryKill}`);
else if (exitCode !== 0) {
  // A failed or crashed test process (vitest: "Worker exited unexpectedly"): what it sent last.
  let last = '(no trace)';
  try {
    last = fs.readFileSync(traceFile, 'utf8').trimEnd().split('\n').slice(-5).join('\n');
  } catch {
    // no trace
  }
  console.log(`vitest exited with ${exitCode}; the last requests and statements sent:\n${last}`);
}
for (const failure of failures) console.log(`--- ${failure.test}\n${failure.message}`);
console.log(`total time: ${seconds} s; exit code ${exitCode}`);
fs.rmSync(work, { recursive: true, force: true });
process.exitCode = exitCode === 0 && failures.length === 0 && memoryKill === null ? 0 : 1;
