import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import neo4j from 'neo4j-driver';
import { afterEach, describe, expect, it } from 'vitest';
import { generateDemoGraph, loadDemo } from '../../src/cli/demo.js';
import { Database } from '../../src/index.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const bin = path.join(root, 'bin', 'quiverdb.js');

const children: ChildProcess[] = [];

afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

interface Served {
  child: ChildProcess;
  url: string;
  stdout: () => string;
  stderr: () => string;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts `graphdb serve ...` (with `env` added to the environment) and resolves once it printed its URL. */
function serve(...args: string[]): Promise<Served> {
  return serveWith({}, ...args);
}

function serveWith(env: Record<string, string>, ...args: string[]): Promise<Served> {
  const child = spawn(process.execPath, [bin, 'serve', ...args], {
    cwd: os.tmpdir(),
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  children.push(child);
  let out = '';
  let err = '';
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no URL printed; stderr: ${err}`)), 15_000);
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      const match = /http:\/\/[\w.:[\]-]+/.exec(out);
      if (match) {
        clearTimeout(timer);
        resolve({ child, url: match[0], stdout: () => out, stderr: () => err, exit });
      }
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      err += chunk;
    });
    void exit.then(({ code }) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code} before printing a URL; stderr: ${err}`));
    });
  });
}

/** Waits until the server printed `pattern` on stdout (lines after the URL come a moment later). */
async function waitForOutput(served: Served, pattern: RegExp): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!pattern.test(served.stdout())) {
    if (Date.now() > deadline) throw new Error(`not printed: ${pattern}; stdout: ${served.stdout()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function run(...args: string[]): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, [bin, 'serve', ...args], {
    cwd: os.tmpdir(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let err = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    err += chunk;
  });
  child.stdout.resume();
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, stderr: err })));
}

describe('graphdb serve', () => {
  it.each(['SIGINT', 'SIGTERM'] as const)('serves until %s, then exits 0', async (signal) => {
    const served = await serve(':memory:', '--port', '0', '--threads', '1', '--max-threads', '2');
    expect(served.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const status = await (await fetch(`${served.url}/status`)).json();
    expect(status).toMatchObject({ status: 'running', slots: { total: 1 } });
    const r = await fetch(`${served.url}/cypher`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'RETURN 1 AS x' }),
    });
    expect((await r.json()).rows).toEqual([[1]]);
    served.child.kill(signal);
    const { code, signal: killedBy } = await served.exit;
    expect(killedBy).toBeNull();
    expect(code).toBe(0);
    expect(served.stderr()).toContain('stopped');
  });

  it('serves Bolt too with --bolt-port, and says where', async () => {
    const served = await serve(':memory:', '--port', '0', '--threads', '1', '--bolt-port', '0');
    await waitForOutput(served, /Bolt \(Neo4j drivers\): bolt:\/\/127\.0\.0\.1:\d+\n/);
    const boltUrl = /bolt:\/\/[\d.:]+/.exec(served.stdout())?.[0] as string;
    const driver = neo4j.driver(boltUrl);
    try {
      const session = driver.session();
      const result = await session.run('RETURN 40 + 2 AS answer');
      expect(result.records[0]?.get('answer').toNumber()).toBe(42);
      await session.close();
    } finally {
      await driver.close();
    }
    served.child.kill('SIGTERM');
    expect((await served.exit).code).toBe(0);
  });

  it('serves the web console at / and says where; --no-console turns it off', async () => {
    const served = await serve(':memory:', '--port', '0', '--threads', '1');
    await waitForOutput(served, /Web console: /);
    expect(served.stdout()).toContain(`Web console: ${served.url}/\n`);
    const page = await fetch(`${served.url}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await page.text()).toContain('data-testid="console-root"');

    const off = await serve(':memory:', '--port', '0', '--threads', '1', '--no-console');
    const none = await fetch(`${off.url}/`);
    expect(none.status).toBe(404);
    expect(((await none.json()) as { error: { code: string } }).error.code).toBe('NOT_FOUND');
    expect((await fetch(`${off.url}/status`)).status).toBe(200);
    expect(off.stdout()).not.toContain('Web console');
  });

  it('--demo loads the generated social network into an empty database', async () => {
    const graph = generateDemoGraph();
    const served = await serve(':memory:', '--port', '0', '--demo', '--no-auto-compaction');
    const query = async (q: string) => {
      const r = await fetch(`${served.url}/cypher`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: q, access_mode: 'read' }),
      });
      expect(r.status).toBe(200);
      return (await r.json()).rows;
    };
    expect(await query('MATCH (p:Person) RETURN count(p)')).toEqual([[graph.persons.length]]);
    expect(await query('MATCH (c:City) RETURN count(c)')).toEqual([[graph.cities.length]]);
    expect(await query('MATCH ()-[k:Knows]->() RETURN count(k)')).toEqual([[graph.knows.length]]);
    expect(await query('MATCH (:Person)-[:LivesIn]->(:City) RETURN count(*)')).toEqual([
      [graph.persons.length],
    ]);
    expect(await query('MATCH (p:Person {id: 1}) RETURN p.name')).toEqual([[graph.persons[0]!.name]]);
    expect(served.stderr()).toMatch(/demo: loaded 300 Person/);
    served.child.kill('SIGINT');
    expect((await served.exit).code).toBe(0);
  });

  it('--demo without DB_DIR serves a temporary database, says so and removes it at exit', async () => {
    const served = await serve('--port', '0', '--demo', '--no-auto-compaction');
    const dir = /a temporary database in (\S+), removed at exit/.exec(served.stderr())?.[1] as string;
    expect(dir, served.stderr()).toBeDefined();
    expect(path.basename(dir)).toMatch(/^quiverdb-demo-/);
    expect(fs.existsSync(dir)).toBe(true);
    expect(fs.existsSync(path.join(os.tmpdir(), 'quiverdb-data'))).toBe(false);
    served.child.kill('SIGINT');
    expect(await served.exit, served.stderr()).toEqual({ code: 0, signal: null });
    expect(fs.existsSync(dir)).toBe(false);
  });

  it('keeps acknowledged commits when the server is killed (--no-sync-on-commit)', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'graphdb-serve-kill-'));
    try {
      const served = await serve(dir, '--port', '0', '--no-sync-on-commit', '--no-auto-compaction');
      const post = async (query: string, access_mode: string) => {
        const r = await fetch(`${served.url}/cypher`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ query, access_mode }),
        });
        expect(r.status).toBe(200);
      };
      await post('CREATE NODE TABLE T(id INT64, PRIMARY KEY(id))', 'schema');
      for (let i = 0; i < 25; i++) await post(`CREATE (:T {id: ${i}})`, 'insert');
      served.child.kill('SIGKILL'); // no shutdown, no checkpoint: only the logs hold the rows
      expect((await served.exit).signal).toBe('SIGKILL');
      const db = new Database(dir);
      try {
        expect(db.recoveredCommits).toBe(25);
        expect(db.connect().querySync('MATCH (t:T) RETURN count(*)').rows).toEqual([[25]]);
      } finally {
        db.close();
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('generates the same demo graph every time', () => {
    const a = generateDemoGraph();
    expect(generateDemoGraph()).toEqual(a);
    expect(a.persons.length).toBe(300);
    expect(new Set(a.knows.map((k) => `${k.from}>${k.to}`)).size).toBe(a.knows.length);
    expect(a.knows.every((k) => k.from !== k.to && k.since >= 1995 && k.since < 2025)).toBe(true);
  });

  it('--demo loads nothing into a database that is not empty', async () => {
    using db = new Database(':memory:', { maxThreadNum: 1 });
    using conn = db.connect();
    expect(await loadDemo(conn, generateDemoGraph(20))).toMatchObject({ persons: 20, cities: 12 });
    expect(await loadDemo(conn)).toBeNull(); // nodes exist
    using other = new Database(':memory:', { maxThreadNum: 1 });
    using conn2 = other.connect();
    await conn2.query('CREATE NODE TABLE City(id INT64, PRIMARY KEY(id))');
    expect(await loadDemo(conn2)).toBeNull(); // a demo table exists, though empty
    await expect(conn2.query('MATCH (p:Person) RETURN count(p)')).rejects.toMatchObject({
      code: 'QUERY_BINDING',
    });
  });

  it('exits non-zero with the reason when the port is taken or the options are invalid', async () => {
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as net.AddressInfo).port;
    try {
      const taken = await run(':memory:', '--port', String(port));
      expect(taken.code).not.toBe(0);
      expect(taken.stderr).toMatch(/EADDRINUSE/);
    } finally {
      blocker.close();
    }
    const threads = await run(':memory:', '--port', '0', '--threads', '3', '--max-threads', '2');
    expect(threads.code).not.toBe(0);
    expect(threads.stderr).toMatch(/threadNum/);
  });

  it('refuses a non-loopback address without tokens, and checks the security flags', async () => {
    const cases: [string[], RegExp][] = [
      [['--host', '0.0.0.0'], /no authentication.*--insecure/],
      [
        ['--tls-cert', path.join(root, 'test/http/fixtures/tls-test.crt')],
        /--tls-cert and --tls-key go together/,
      ],
      [['--auth-file', path.join(os.tmpdir(), 'no-such-auth-file.json')], /cannot read the auth file/],
      [['--import-dir', path.join(os.tmpdir(), 'no-such-import-dir')], /importDir .* cannot be resolved/],
    ];
    for (const [flags, pattern] of cases) {
      const { code, stderr } = await run(':memory:', '--port', '0', ...flags);
      expect(code, flags.join(' ')).toBe(1);
      expect(stderr).toMatch(pattern);
    }
  });

  it('takes tokens from --auth-file and GRAPHDB_TOKEN', async () => {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'graphdb-auth-'));
    try {
      const file = path.join(tmp, 'tokens.json');
      fs.writeFileSync(file, JSON.stringify([{ token: 'reader-token-from-file', role: 'reader' }]));
      const served = await serveWith(
        { GRAPHDB_TOKEN: 'admin-token-from-environment' },
        ':memory:',
        '--port',
        '0',
        '--auth-file',
        file,
      );
      await waitForOutput(served, /Authentication: 2 token/);
      const ask = (token: string | null, query: string) =>
        fetch(`${served.url}/cypher`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            ...(token ? { authorization: `Bearer ${token}` } : {}),
          },
          body: JSON.stringify({ query }),
        });
      expect((await ask(null, 'RETURN 1')).status).toBe(401);
      expect((await ask('reader-token-from-file', 'RETURN 1')).status).toBe(200);
      expect(
        (await ask('reader-token-from-file', 'CREATE NODE TABLE T(id INT64, PRIMARY KEY(id))')).status,
      ).toBe(403);
      expect(
        (await ask('admin-token-from-environment', 'CREATE NODE TABLE T(id INT64, PRIMARY KEY(id))')).status,
      ).toBe(200);
      expect((await fetch(`${served.url}/status`)).status).toBe(200);
      served.child.kill('SIGTERM');
      expect((await served.exit).code).toBe(0);
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });
});
