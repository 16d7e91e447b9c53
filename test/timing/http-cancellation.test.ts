// The service's use of statement time limits and cancellation: queryTimeoutMs (408), a client
// that goes away mid-query (its statement stops, the slot comes free), and stop() with a
// runaway statement (cancelled after stopTimeoutMs), also through `graphdb serve` and SIGTERM.
import { spawn } from 'node:child_process';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { Database, GraphDBService, type ServiceConfig } from '../../src/index.js';
import { request, waitFor } from '../runtime/helpers.js';

const RUNAWAY = 'UNWIND range(1, 10000000000) AS x RETURN count(x)';
const bin = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'bin', 'quiverdb.js');

let db: Database | undefined;
let service: GraphDBService | undefined;

async function open(config: ServiceConfig): Promise<string> {
  db = new Database(':memory:', { maxThreadNum: 2 });
  service = new GraphDBService(db, { queryPort: 0, autoCompaction: false, ...config });
  return service.start();
}

afterEach(async () => {
  await service?.close();
  db?.close();
  service = undefined;
  db = undefined;
});

async function post(url: string, query: string, init: RequestInit = {}) {
  const response = await fetch(`${url}/cypher`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: request(query),
    ...init,
  });
  return { status: response.status, body: JSON.parse(await response.text()) };
}

describe('statement time limits over HTTP', () => {
  it('answers 408 QUERY_TIMEOUT past queryTimeoutMs and keeps serving', async () => {
    const url = await open({ threadNum: 1, queryTimeoutMs: 200 });
    const started = performance.now();
    const answer = await post(url, RUNAWAY);
    expect(answer.status).toBe(408);
    expect(answer.body.error.code).toBe('QUERY_TIMEOUT');
    expect(performance.now() - started).toBeLessThan(400);
    expect((await post(url, 'RETURN 1 AS x')).body.rows).toEqual([[1]]);
    expect(service!.pool!.inUse).toBe(0);
  });

  it('has a default limit and accepts 0 for none', async () => {
    expect(() => new GraphDBService(new Database(), { queryTimeoutMs: -1 })).toThrow(RangeError);
    const url = await open({ threadNum: 1, queryTimeoutMs: 0 });
    expect((await post(url, 'UNWIND range(1, 100000) AS x RETURN count(x) AS n')).body.rows).toEqual([
      [100000],
    ]);
  });

  it('stops the statement of a client that goes away, freeing its slot', async () => {
    const url = await open({ threadNum: 1, queryTimeoutMs: 0 });
    const pool = service!.pool!;
    const body = request(RUNAWAY);
    const req = http.request(`${url}/cypher`, {
      method: 'POST',
      agent: false,
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
    });
    req.on('error', () => undefined);
    req.end(body);
    await waitFor(() => pool.inUse === 1, 5000, 'the statement to hold the slot');
    await new Promise((r) => setTimeout(r, 50));
    const gone = performance.now();
    req.destroy();
    await waitFor(() => pool.inUse === 0, 2000, 'the slot to come free');
    expect(performance.now() - gone).toBeLessThan(200);
    expect((await post(url, 'RETURN 2 AS x')).body.rows).toEqual([[2]]);
  });

  it('stop() cancels a runaway statement once stopTimeoutMs has passed', async () => {
    const url = await open({ threadNum: 1, queryTimeoutMs: 0, stopTimeoutMs: 200 });
    const pool = service!.pool!;
    const answer = post(url, RUNAWAY).catch((error: unknown) => ({ status: 0, body: String(error) }));
    await waitFor(() => pool.inUse === 1, 5000, 'the statement to hold the slot');
    const stopping = performance.now();
    await service!.stop();
    expect(performance.now() - stopping).toBeLessThan(1500);
    const settled = await answer;
    // Either the 503 reached the client or its connection was cut while stopping.
    if (settled.status !== 0) expect(settled.status).toBe(503);
    await waitFor(() => pool.inUse === 0, 1000, 'the slot to come free');
  });
});

describe('graphdb serve', () => {
  it('exits 0 soon after SIGTERM while a runaway statement runs', async () => {
    const args = ['serve', ':memory:', '--port', '0', '--query-timeout', '0', '--stop-timeout', '300'];
    const child = spawn(process.execPath, [bin, ...args], {
      cwd: os.tmpdir(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      let out = '';
      const url = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('no URL printed')), 15_000);
        child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
          out += chunk;
          const match = /http:\/\/[\w.:[\]-]+/.exec(out);
          if (match) {
            clearTimeout(timer);
            resolve(match[0]);
          }
        });
      });
      child.stderr.resume();
      const answer = post(url, RUNAWAY).catch(() => null);
      // Wait until the statement runs.
      await new Promise((r) => setTimeout(r, 300));
      const signalled = performance.now();
      child.kill('SIGTERM');
      expect(await exit).toBe(0);
      expect(performance.now() - signalled).toBeLessThan(3000);
      await answer;
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  }, 30_000);
});
