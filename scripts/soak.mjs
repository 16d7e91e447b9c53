#!/usr/bin/env node
// Soak test of `graphdb serve` (opt-in): starts the service on loopback in a child process and
// drives it with many concurrent clients for minutes: point and aggregate reads, transfers
// between accounts (the total must never change, and every aggregate read must see it whole),
// inserts and deletes, statements that run past their time limit, statements whose client
// hangs up, bad requests. Checks the invariant periodically and at the end, samples the
// server's RSS (start, peak, end; flags growth past the warm-up), checks slot accounting
// (GET /status: no slot in use, nobody waiting once the clients stop), counts requests by
// status, stops the server with SIGTERM (it must exit 0), and prints a summary. Exits non-zero
// on any violation: a 5xx other than 503, a failed invariant, a crash, a hang, a leaked slot,
// unbounded memory growth.
//
//   npm run soak -- [--minutes 10] [--clients 16] [--threads 4] [--accounts 200]
//                   [--query-timeout 2000] [--memory] [--token T] [--no-build] [--verbose]
//
// The server runs `bin/quiverdb.js serve` from dist/ (built first with tsc unless --no-build),
// on a fresh database in a temporary folder (--memory: `:memory:`). --token sends
// `Authorization: Bearer T` and gives the server GRAPHDB_TOKEN=T.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const { values: options } = parseArgs({
  options: {
    minutes: { type: 'string', default: '10' },
    clients: { type: 'string', default: '16' },
    threads: { type: 'string', default: '4' },
    accounts: { type: 'string', default: '200' },
    'query-timeout': { type: 'string', default: '2000' },
    memory: { type: 'boolean', default: false },
    token: { type: 'string' },
    'no-build': { type: 'boolean', default: false },
    verbose: { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
  },
});

if (options.help) {
  console.log(
    'usage: npm run soak -- [--minutes 10] [--clients 16] [--threads 4] [--accounts 200] [--query-timeout MS] [--memory] [--token T] [--no-build] [--verbose]',
  );
  process.exit(0);
}

function number(name, min, integer = true) {
  const value = Number(options[name]);
  if (!Number.isFinite(value) || value < min || (integer && !Number.isInteger(value))) {
    console.error(
      `soak: --${name} must be ${integer ? 'an integer' : 'a number'} >= ${min}, got ${options[name]}`,
    );
    process.exit(2);
  }
  return value;
}

const MINUTES = number('minutes', 0.05, false);
const CLIENTS = number('clients', 1);
const THREADS = number('threads', 1);
const ACCOUNTS = number('accounts', 2);
const QUERY_TIMEOUT_MS = number('query-timeout', 100);
const START_BALANCE = 1000;
const TOTAL = ACCOUNTS * START_BALANCE;
/** Past this a request is a hang: the query time limit plus generous slack for a loaded machine. */
const HANG_MS = QUERY_TIMEOUT_MS + 15_000;
const CHECK_EVERY_MS = 10_000;
const TOKEN = options.token;

const violations = [];
function violation(message) {
  violations.push(message);
  console.error(`VIOLATION: ${message}`);
}

const byStatus = new Map();
const byOperation = new Map();
function tally(map, key) {
  map.set(key, (map.get(key) ?? 0) + 1);
}
const stats = { requests: 0, aborted: 0, sumReads: 0, checks: 0, conflicts: 0, timeouts: 0 };

// --- the server ---------------------------------------------------------------------------

if (!options['no-build']) {
  const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  const built = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: root, stdio: 'inherit' });
  if (built.status !== 0) {
    console.error('soak: building dist/ with tsc failed');
    process.exit(2);
  }
}
if (!fs.existsSync(path.join(root, 'dist', 'cli', 'main.js'))) {
  console.error('soak: dist/ is missing: run `npm run build:ts` (or drop --no-build)');
  process.exit(2);
}

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'graphdb-soak-'));
const dbPath = options.memory ? ':memory:' : path.join(work, 'db');
const serverArgs = [
  path.join(root, 'bin', 'quiverdb.js'),
  'serve',
  dbPath,
  '--port',
  '0',
  '--host',
  '127.0.0.1',
  '--threads',
  String(THREADS),
  '--max-threads',
  String(THREADS),
  '--query-timeout',
  String(QUERY_TIMEOUT_MS),
  '--no-console',
];
const server = spawn(process.execPath, serverArgs, {
  cwd: root,
  env: TOKEN === undefined ? process.env : { ...process.env, GRAPHDB_TOKEN: TOKEN },
  stdio: ['ignore', 'pipe', 'pipe'],
});
let serverExited = null;
let stopping = false;
let serverStderr = '';
server.stderr.on('data', (chunk) => {
  serverStderr += chunk;
  if (serverStderr.length > 100_000) serverStderr = serverStderr.slice(-50_000);
  if (options.verbose) process.stderr.write(`[server] ${chunk}`);
});
// However the script ends, the server does not outlive it.
process.on('exit', () => {
  if (serverExited === null) server.kill('SIGKILL');
});
const exited = new Promise((resolve) => {
  server.on('exit', (code, signal) => {
    serverExited = { code, signal };
    if (!stopping) violation(`the server exited during the run (code ${code}, signal ${signal})`);
    resolve(serverExited);
  });
});

const baseUrl = await new Promise((resolve, reject) => {
  let out = '';
  const timer = setTimeout(
    () => reject(new Error(`the server printed no URL within 30 s: ${out}${serverStderr}`)),
    30_000,
  );
  server.stdout.on('data', (chunk) => {
    out += chunk;
    const match = /listening on (http:\/\/\S+)/.exec(out);
    if (match) {
      clearTimeout(timer);
      resolve(match[1]);
    }
  });
  server.on('exit', () => reject(new Error(`the server exited before listening: ${serverStderr}`)));
}).catch((error) => {
  console.error(`soak: ${error.message}`);
  process.exit(1);
});

/** The server's resident set in MB (Linux /proc), or null where unknown. */
function rssMb() {
  try {
    const status = fs.readFileSync(`/proc/${server.pid}/status`, 'utf8');
    const match = /VmRSS:\s+(\d+) kB/.exec(status);
    return match ? Number(match[1]) / 1024 : null;
  } catch {
    return null;
  }
}

// --- requests -----------------------------------------------------------------------------

const headers = {
  'content-type': 'application/json',
  ...(TOKEN ? { authorization: `Bearer ${TOKEN}` } : {}),
};

/**
 * One POST /cypher. `abortAfterMs`: the client hangs up then (its statement must be cancelled).
 * Returns { status, body } or null when aborted on purpose.
 */
async function cypher(operation, body, abortAfterMs) {
  stats.requests++;
  tally(byOperation, operation);
  const controller = new AbortController();
  const hangTimer = setTimeout(() => controller.abort(new Error('hang')), HANG_MS);
  const abortTimer =
    abortAfterMs === undefined ? undefined : setTimeout(() => controller.abort(), abortAfterMs);
  try {
    const response = await fetch(`${baseUrl}/cypher`, {
      method: 'POST',
      headers,
      body: JSON.stringify(body),
      signal: controller.signal,
    });
    const text = await response.text();
    tally(byStatus, response.status);
    let json = null;
    try {
      json = JSON.parse(text);
    } catch {
      violation(
        `${operation}: status ${response.status} with a body that is not JSON: ${text.slice(0, 200)}`,
      );
      return { status: response.status, body: null };
    }
    if (response.status >= 500 && response.status !== 503) {
      violation(`${operation}: ${response.status} ${JSON.stringify(json).slice(0, 300)}`);
    } else if (response.status === 401 || response.status === 403) {
      violation(`${operation}: ${response.status} ${json?.error?.code} (is --token the server's token?)`);
    } else if (response.status === 503 && !stopping) {
      violation(`${operation}: 503 while not stopping or overloaded: ${JSON.stringify(json).slice(0, 300)}`);
    }
    return { status: response.status, body: json };
  } catch (error) {
    if (
      controller.signal.aborted &&
      controller.signal.reason instanceof Error &&
      controller.signal.reason.message === 'hang'
    ) {
      violation(`${operation}: no answer within ${HANG_MS} ms (${JSON.stringify(body).slice(0, 200)})`);
      return null;
    }
    if (abortAfterMs !== undefined && controller.signal.aborted) {
      stats.aborted++;
      tally(byStatus, 'client-aborted');
      return null;
    }
    if (!stopping) violation(`${operation}: request failed: ${error.cause?.code ?? error.message}`);
    return null;
  } finally {
    clearTimeout(hangTimer);
    if (abortTimer) clearTimeout(abortTimer);
  }
}

async function status() {
  const response = await fetch(`${baseUrl}/status`, { headers, signal: AbortSignal.timeout(HANG_MS) });
  return response.json();
}

async function must(operation, body) {
  const answer = await cypher(operation, body);
  if (answer?.status !== 200) {
    throw new Error(`${operation} failed: ${JSON.stringify(answer?.body).slice(0, 300)}`);
  }
  return answer.body;
}

/** Checks the conserved sum (and the account count) in one snapshot. */
async function checkInvariant(when) {
  stats.checks++;
  const body = await must('check', {
    query: 'MATCH (a:Account) RETURN count(*) AS n, sum(a.balance) AS total',
    access_mode: 'read',
  });
  const [n, total] = body.rows[0];
  if (n !== ACCOUNTS || total !== TOTAL) {
    violation(`${when}: ${n} accounts holding ${total}, expected ${ACCOUNTS} holding ${TOTAL}`);
  }
}

// --- set-up -------------------------------------------------------------------------------

for (const query of [
  'CREATE NODE TABLE Account(id INT64, balance INT64, PRIMARY KEY(id))',
  'CREATE NODE TABLE Event(id INT64, client INT64, at INT64, note STRING, PRIMARY KEY(id))',
  'CREATE REL TABLE Pays(FROM Account TO Account, amount INT64, at INT64)',
  `UNWIND range(1, ${ACCOUNTS}) AS i CREATE (:Account {id: i, balance: ${START_BALANCE}})`,
]) {
  await must('setup', { query });
}

// --- clients ------------------------------------------------------------------------------

const random = (n) => Math.floor(Math.random() * n);
const pickPair = () => {
  const from = 1 + random(ACCOUNTS);
  const to = 1 + ((from - 1 + 1 + random(ACCOUNTS - 1)) % ACCOUNTS);
  return { from, to };
};
let nextEventId = 1;
const runStarted = Date.now();
const deadline = runStarted + MINUTES * 60_000;

const OPERATIONS = [
  [30, 'transfer'],
  [4, 'slow-transfer'],
  [20, 'point-read'],
  [8, 'sum-read'],
  [10, 'insert-event'],
  [2, 'trim-events'],
  [5, 'pay'],
  [1, 'trim-pays'],
  [6, 'neighbours'],
  [3, 'runaway'],
  [3, 'disconnect'],
  [2, 'bad-request'],
  [2, 'status'],
];
const WEIGHT = OPERATIONS.reduce((sum, [w]) => sum + w, 0);
function pickOperation() {
  let r = random(WEIGHT);
  for (const [w, name] of OPERATIONS) {
    if (r < w) return name;
    r -= w;
  }
  return 'point-read';
}

async function step(client) {
  const operation = pickOperation();
  const now = Date.now() - runStarted;
  switch (operation) {
    case 'transfer': {
      const { from, to } = pickPair();
      const answer = await cypher(operation, {
        query:
          'MATCH (a:Account {id: $from}), (b:Account {id: $to}) SET a.balance = a.balance - $amount, b.balance = b.balance + $amount',
        parameters: { from, to, amount: 1 + random(50) },
      });
      if (answer?.status === 409) stats.conflicts++;
      return;
    }
    case 'slow-transfer': {
      // Stopped by its time limit between its two writes, or not: the sum must hold either way.
      const { from, to } = pickPair();
      const answer = await cypher(operation, {
        query:
          'MATCH (a:Account {id: $from}) SET a.balance = a.balance - $amount WITH a UNWIND range(1, $spin) AS i WITH count(*) AS n MATCH (b:Account {id: $to}) SET b.balance = b.balance + $amount',
        parameters: { from, to, amount: 1 + random(50), spin: 100_000 + random(2_000_000) },
        timeout_ms: 5 + random(60),
      });
      if (answer?.status === 408) stats.timeouts++;
      if (answer?.status === 409) stats.conflicts++;
      return;
    }
    case 'point-read':
      await cypher(operation, {
        query: 'MATCH (a:Account {id: $id}) RETURN a.balance',
        parameters: { id: 1 + random(ACCOUNTS) },
        access_mode: 'read',
      });
      return;
    case 'sum-read': {
      // Every snapshot must hold the whole total.
      const answer = await cypher(operation, {
        query: 'MATCH (a:Account) RETURN sum(a.balance) AS total, count(*) AS n',
        access_mode: 'read',
      });
      if (answer?.status === 200) {
        stats.sumReads++;
        const [total, n] = answer.body.rows[0];
        if (total !== TOTAL || n !== ACCOUNTS)
          violation(`a read saw ${n} accounts holding ${total}, not ${TOTAL}`);
      }
      return;
    }
    case 'insert-event':
      await cypher(operation, {
        query: 'CREATE (:Event {id: $id, client: $client, at: $at, note: $note})',
        parameters: { id: nextEventId++, client, at: now, note: 'x'.repeat(random(200)) },
        access_mode: 'insert',
      });
      return;
    case 'trim-events':
      await cypher(operation, {
        query: 'MATCH (e:Event) WHERE e.at < $cutoff DELETE e',
        parameters: { cutoff: now - 20_000 },
      });
      return;
    case 'pay': {
      const { from, to } = pickPair();
      await cypher(operation, {
        query:
          'MATCH (a:Account {id: $from}), (b:Account {id: $to}) CREATE (a)-[:Pays {amount: $amount, at: $at}]->(b)',
        parameters: { from, to, amount: random(100), at: now },
        access_mode: 'insert',
      });
      return;
    }
    case 'trim-pays':
      await cypher(operation, {
        query: 'MATCH (:Account)-[p:Pays]->(:Account) WHERE p.at < $cutoff DELETE p',
        parameters: { cutoff: now - 20_000 },
      });
      return;
    case 'neighbours':
      await cypher(operation, {
        query:
          'MATCH (a:Account {id: $id})-[p:Pays*1..2]->(b:Account) RETURN count(*) AS paths, count(DISTINCT b) AS reached',
        parameters: { id: 1 + random(ACCOUNTS) },
        access_mode: 'read',
      });
      return;
    case 'runaway': {
      // Runs past its own limit: 408, and the slot comes back at once.
      const answer = await cypher(operation, {
        query: 'UNWIND range(1, 2000000000) AS x RETURN sum(x)',
        access_mode: 'read',
        timeout_ms: 20 + random(300),
      });
      if (answer && answer.status !== 408)
        violation(`a runaway statement answered ${answer.status}, not 408`);
      if (answer?.status === 408) stats.timeouts++;
      return;
    }
    case 'disconnect':
      // The client goes away while its statement runs or waits: it must be cancelled.
      await cypher(
        operation,
        { query: 'UNWIND range(1, 2000000000) AS x RETURN sum(x)', access_mode: 'read' },
        5 + random(150),
      );
      return;
    case 'bad-request': {
      const answer = await cypher(operation, { query: 'MATCH (a:Account RETURN a', access_mode: 'read' });
      if (answer && answer.status !== 400) violation(`a syntax error answered ${answer.status}, not 400`);
      return;
    }
    case 'status': {
      stats.requests++;
      tally(byOperation, operation);
      const body = await status().catch((error) => {
        if (!stopping) violation(`GET /status failed: ${error.message}`);
        return null;
      });
      if (body) tally(byStatus, 200);
      return;
    }
  }
}

async function client(id) {
  while (Date.now() < deadline && serverExited === null) {
    await step(id);
  }
}

// --- monitoring ---------------------------------------------------------------------------

const rssSamples = [];
const startRss = rssMb();
const sample = () => {
  const rss = rssMb();
  if (rss !== null) rssSamples.push({ at: Date.now() - runStarted, rss });
};
sample();
const sampler = setInterval(sample, 1000);
let lastReport = Date.now();
const checker = setInterval(async () => {
  if (serverExited !== null) return;
  try {
    await checkInvariant(`after ${((Date.now() - runStarted) / 1000).toFixed(0)} s`);
  } catch (error) {
    violation(`the periodic check failed: ${error.message}`);
  }
  if (Date.now() - lastReport >= 60_000 || options.verbose) {
    lastReport = Date.now();
    const rss = rssSamples.at(-1)?.rss;
    console.log(
      `[${((Date.now() - runStarted) / 1000).toFixed(0)} s] ${stats.requests} requests, RSS ${rss?.toFixed(0)} MB, violations ${violations.length}`,
    );
  }
}, CHECK_EVERY_MS);

console.log(
  `soak: ${MINUTES} min, ${CLIENTS} clients, ${THREADS} slots, ${ACCOUNTS} accounts, query timeout ${QUERY_TIMEOUT_MS} ms, database ${options.memory ? 'in memory' : 'on disk'}, server ${baseUrl} (pid ${server.pid})`,
);
await Promise.all(Array.from({ length: CLIENTS }, (_, i) => client(i)));
clearInterval(checker);
clearInterval(sampler);
sample();
const elapsedS = (Date.now() - runStarted) / 1000;

// --- the end ------------------------------------------------------------------------------

let slotsAtEnd = null;
if (serverExited === null) {
  // Cancelled statements free their slots within moments; give them a few seconds.
  const until = Date.now() + 5000;
  for (;;) {
    slotsAtEnd = (await status().catch(() => null))?.slots ?? null;
    if (slotsAtEnd && slotsAtEnd.inUse === 0 && slotsAtEnd.waiting === 0) break;
    if (Date.now() > until) {
      violation(`slots still in use at the end: ${JSON.stringify(slotsAtEnd)}`);
      break;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await checkInvariant('at the end').catch((error) => violation(`the final check failed: ${error.message}`));
}

const rssValues = rssSamples.map((s) => s.rss);
const peakRss = rssValues.length ? Math.max(...rssValues) : null;
const endRss = rssValues.at(-1) ?? null;
// Growth: the mean RSS of the last fifth of the run against that of the fifth after warm-up.
const fifth = (from) =>
  rssSamples
    .filter((s) => s.at >= from * elapsedS * 1000 && s.at < (from + 0.2) * elapsedS * 1000)
    .map((s) => s.rss);
const mean = (values) => (values.length ? values.reduce((a, b) => a + b, 0) / values.length : null);
const warmRss = mean(fifth(0.2));
const lateRss = mean(fifth(0.8));
let growth = 'unknown (no /proc)';
if (warmRss !== null && lateRss !== null) {
  const grown = lateRss - warmRss;
  const limit = Math.max(128, warmRss * 0.5);
  growth = `${grown >= 0.5 ? '+' : ''}${Math.round(grown) || 0} MB from the warm-up to the last fifth (limit ${limit.toFixed(0)} MB)`;
  if (grown > limit) violation(`RSS grew without bound: ${growth}`);
}

const exitedEarly = serverExited !== null;
stopping = true;
const stopStarted = Date.now();
server.kill('SIGTERM');
const stopTimer = setTimeout(() => {
  violation('the server did not exit within 30 s of SIGTERM');
  server.kill('SIGKILL');
}, 30_000);
const exit = await exited;
clearTimeout(stopTimer);
if (!exitedEarly && exit.code !== 0 && violations.every((v) => !v.includes('SIGTERM'))) {
  violation(`the server exited with code ${exit.code} (signal ${exit.signal}) after SIGTERM`);
}
if (/internal error/i.test(serverStderr)) violation('the server logged an internal error (see its stderr)');
fs.rmSync(work, { recursive: true, force: true });

const fmt = (mb) => (mb === null || mb === undefined ? 'n/a' : `${mb.toFixed(0)} MB`);
const sorted = (map) =>
  JSON.stringify(Object.fromEntries([...map].sort(([a], [b]) => String(a).localeCompare(String(b)))));
console.log('\n=== soak summary ===');
console.log(
  `duration ${elapsedS.toFixed(1)} s, ${CLIENTS} clients, ${THREADS} slots, query timeout ${QUERY_TIMEOUT_MS} ms, database ${options.memory ? 'in memory' : 'on disk'}`,
);
console.log(`requests: ${stats.requests} (${(stats.requests / elapsedS).toFixed(0)}/s)`);
console.log(`by status: ${sorted(byStatus)}`);
console.log(`by operation: ${sorted(byOperation)}`);
console.log(
  `transfers conflicting: ${stats.conflicts}; statements stopped by their time limit: ${stats.timeouts}; cancelled by a client hanging up: ${stats.aborted}`,
);
console.log(
  `conserved sum ${TOTAL} over ${ACCOUNTS} accounts: ${stats.checks} periodic checks and ${stats.sumReads} concurrent aggregate reads`,
);
console.log(`server RSS: start ${fmt(startRss)}, peak ${fmt(peakRss)}, end ${fmt(endRss)}; growth ${growth}`);
console.log(`slots at the end: ${JSON.stringify(slotsAtEnd)}`);
console.log(
  `server exit after SIGTERM: code ${exit.code} in ${((Date.now() - stopStarted) / 1000).toFixed(1)} s`,
);
console.log(`violations: ${violations.length}`);
for (const v of violations.slice(0, 20)) console.log(`  - ${v}`);
if (violations.length > 20) console.log(`  ... and ${violations.length - 20} more`);
process.exitCode = violations.length === 0 ? 0 : 1;
