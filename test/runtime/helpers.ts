import http from 'node:http';
import https from 'node:https';
import { expect } from 'vitest';
import { databaseInternals } from '../../src/core/database.js';
import { type Database, GraphDBError } from '../../src/index.js';

/**
 * A read that keeps a slot busy for a while (about 0.1 s per 300k rows) and answers the sum of
 * 1..rows. UNWIND range(...) streams its values (some 30 ns each), so each row is walked ten
 * times over to take that long.
 */
export function slowRequest(rows = 300_000): string {
  return JSON.stringify({
    query: `UNWIND range(1, ${rows}) AS x UNWIND range(1, 10) AS y WITH x, y WHERE y = 1 RETURN sum(x) AS s`,
  });
}

export function request(query: string, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ query, ...extra });
}

export function nativeDb(db: Database) {
  return databaseInternals(db).native;
}

/** Polls `condition` every few ms until it holds; fails after `timeoutMs`. */
export async function waitFor(condition: () => boolean, timeoutMs = 5000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** The GraphDBError a promise rejects with (fails the test if it resolves or rejects otherwise). */
export async function rejection(promise: Promise<unknown>): Promise<GraphDBError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(GraphDBError);
    return error as GraphDBError;
  }
  throw new Error('expected the statement to fail');
}

/** An HTTP answer as the raw-request helpers give it. */
export interface HttpAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  json: () => { error?: { code: string; message: string }; rows?: unknown[][]; columns?: string[] };
}

/**
 * Sends exactly the request given (no headers added, a fresh connection) to `target` on `base`
 * (http: or https:, trusting `ca` then).
 */
export function sendRaw(
  base: string,
  method: string,
  target: string,
  headers: Record<string, string>,
  body?: string | Buffer,
  ca?: Buffer,
): Promise<HttpAnswer> {
  const url = new URL(target, base);
  const transport = url.protocol === 'https:' ? https : http;
  return new Promise<HttpAnswer>((resolve, reject) => {
    const req = transport.request(url, { method, headers, agent: false, ca }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body: text,
          json: () => JSON.parse(text),
        });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}
