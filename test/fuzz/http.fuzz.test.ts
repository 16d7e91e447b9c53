// Property-based fuzzing of the service's HTTP surface (issue 18, "Fuzzing and soak"): random
// methods, request targets, header sets, framings and bodies, sent raw over node:net and well
// formed over node:http, one at a time and in concurrent bursts with clients that go away.
// Properties: no 5xx but the contract's 503 (and 501 NOT_SUPPORTED), every error answer of the
// app is the contract's JSON error with a known code and its status, no request hangs, the
// process survives, and no execution slot leaks.
//
// Runs: GRAPHDB_FUZZ_REQUESTS (or GRAPHDB_FUZZ_RUNS), default 1200 requests; `npm run fuzz`
// runs 100,000. GRAPHDB_FUZZ_SEED replays a run; GRAPHDB_FUZZ_TOKEN sends a bearer token.

import fs from 'node:fs';
import http from 'node:http';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Database, GraphDBService } from '../../src/index.js';
import { waitFor } from '../runtime/helpers.js';
import { bodyArb, headersArb, methodArb, pathArb, rawRequestArb, validRequest } from './http-arbitraries.js';
import { type RawResponse, rawExchange } from './raw-http.js';
import {
  authHeaders,
  collecting,
  contractViolation,
  Findings,
  fuzzRuns,
  fuzzSettings,
  fuzzToken,
  reportCounts,
  serviceAuth,
  Tally,
} from './support.js';

const REQUESTS = fuzzRuns('requests', 1200);
const TOKEN = fuzzToken();
const MAX_BODY_BYTES = 64 * 1024;
const QUERY_TIMEOUT_MS = 2000;
const HEADERS_TIMEOUT_MS = 500;
const RECEIVE_TIMEOUT_MS = 1000;
const TX_IDLE_MS = 500;
/** Longest any exchange may take: the query time limit plus slack for a loaded machine. */
const DEADLINE_MS = QUERY_TIMEOUT_MS + 4000;

let db: Database;
let service: GraphDBService;
let port: number;
const statuses = new Tally();
const allFindings: Findings[] = [];
const sent = { raw: 0, wellFormed: 0, concurrent: 0, tx: 0, clientRefused: 0, resets: 0, aborted: 0 };
const started = Date.now();
/** GRAPHDB_FUZZ_TRACE names a file that gets each request (its first 400 bytes) before it is sent. */
const TRACE = process.env.GRAPHDB_FUZZ_TRACE;
function trace(kind: string, bytes: Buffer | string | undefined): void {
  if (!TRACE) return;
  const text = (typeof bytes === 'string' ? bytes : (bytes?.toString('latin1') ?? '')).slice(0, 400);
  fs.appendFileSync(TRACE, `${Date.now()} ${kind} ${JSON.stringify(text)}\n`);
}

beforeAll(async () => {
  db = new Database(':memory:', { maxThreadNum: 2 });
  service = new GraphDBService(db, {
    queryPort: 0,
    autoCompaction: false,
    ...serviceAuth(TOKEN),
    maxBodyBytes: MAX_BODY_BYTES,
    maxWaiting: 3,
    queryTimeoutMs: QUERY_TIMEOUT_MS,
    headersTimeoutMs: HEADERS_TIMEOUT_MS,
    receiveTimeoutMs: RECEIVE_TIMEOUT_MS,
    // The statement memory limit keeps generated cross products from eating the machine.
    maxStatementMemoryBytes: 64 * 1024 * 1024,
    maxResultBytes: 16 * 1024 * 1024,
    // Abandoned explicit transactions give their slot back soon.
    txIdleTimeoutMs: TX_IDLE_MS,
  });
  const url = await service.start();
  port = Number(new URL(url).port);
  for (const query of [
    'CREATE NODE TABLE Person(id INT64, name STRING, age INT64, PRIMARY KEY(id))',
    'CREATE REL TABLE Knows(FROM Person TO Person, since INT64)',
    'UNWIND range(0, 40) AS i CREATE (:Person {id: i, name: "p" + CAST(i AS STRING), age: i % 90})',
    'MATCH (a:Person), (b:Person) WHERE b.id = a.id + 1 OR b.id = a.id * 2 CREATE (a)-[:Knows {since: a.id}]->(b)',
  ]) {
    const answer = await send('POST', '/cypher', jsonHeaders(), Buffer.from(JSON.stringify({ query })));
    expect(answer.status, answer.body.toString()).toBe(200);
  }
});

afterAll(async () => {
  reportCounts('http', {
    requests: sent.raw + sent.wellFormed + sent.concurrent + sent.tx,
    ...sent,
    statuses: statuses.toJSON(),
    findings: allFindings.flatMap((f) => f.toJSON()),
    ms: Date.now() - started,
  });
  await service?.close();
  db?.close();
});

function jsonHeaders(): Record<string, string> {
  return { 'content-type': 'application/json', ...authHeaders(TOKEN) };
}

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/** One request over node:http on a fresh connection; rejects past DEADLINE_MS. */
function send(method: string, path: string, headers: Record<string, string>, body?: Buffer): Promise<Answer> {
  return new Promise<Answer>((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        clearTimeout(timer);
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) });
      });
      res.on('error', reject);
    });
    const timer = setTimeout(() => {
      req.destroy();
      reject(new Error(`hang: ${method} ${path.slice(0, 80)} got no answer within ${DEADLINE_MS} ms`));
    }, DEADLINE_MS);
    req.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    req.end(body);
  });
}

/**
 * Node's own refusals (parser errors, a missing Host, timeouts, an Expect it does not know) are
 * bare: no Content-Type, no body. Every other error answer is the app's and must follow the
 * contract.
 */
function checkAnswer(
  status: number,
  headers: Record<string, string | string[] | undefined>,
  body: Buffer,
  head: boolean,
): void {
  statuses.add(status);
  if (status >= 400 && headers['content-type'] === undefined && body.length === 0) {
    // 400, 408 (timeout), 413, 414, 417 or 431 (headers too large).
    expect([400, 408, 413, 414, 417, 431], `a bare ${status} answer`).toContain(status);
    return;
  }
  if (head) {
    expect(status < 500 || status === 503, `HEAD answered ${status}`).toBe(true);
    return;
  }
  const contentType = headers['content-type'];
  if (status === 200 && String(contentType).startsWith('application/x-ndjson')) {
    checkStream(body.toString('utf8'));
    return;
  }
  const violation = contractViolation(
    status,
    Array.isArray(contentType) ? contentType[0] : contentType,
    body.toString('utf8'),
  );
  expect(violation, violation ?? '').toBeNull();
}

/**
 * A streamed result: JSON lines, the first `{"columns", "types"}`, the last the summary or an
 * error with a known code that is not a bug.
 */
function checkStream(text: string): void {
  const lines = text.split('\n').filter((line) => line.length > 0);
  expect(lines.length, 'an empty stream').toBeGreaterThan(0);
  const parsed = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
  expect(Object.keys(parsed[0]!)).toEqual(['columns', 'types']);
  const last = parsed.at(-1)!;
  if ('error' in last) {
    const violation = contractViolation(400, 'application/json', JSON.stringify(last));
    const code = (last.error as { code: string }).code;
    expect(violation === null || /answered with status/.test(violation), violation ?? '').toBe(true);
    expect(['INTERNAL', 'IO_ERROR', 'CORRUPTION'], `a stream ended with ${code}`).not.toContain(code);
  } else {
    expect(Object.keys(last), 'a stream without its summary').toEqual(['summary']);
  }
}

function checkRaw(response: RawResponse, head: boolean): void {
  checkAnswer(response.status, response.headers, response.body, head);
}

/** No slot stays leased and nobody waits once every request has settled. */
async function expectNoLeakedSlot(): Promise<void> {
  const pool = service.pool!;
  await waitFor(() => pool.inUse === 0 && pool.waiting === 0, DEADLINE_MS, 'the slots to come free');
}

/** The time a test of `runs` runs may take: generous, the hang checks are per request. */
const timeFor = (runs: number) => 30_000 + Math.round(runs) * 200;

describe('HTTP fuzzing', () => {
  it(
    'answers any bytes on the wire within its deadline, never with a 5xx',
    async () => {
      const findings = new Findings();
      allFindings.push(findings);
      await fc.assert(
        fc.asyncProperty(
          rawRequestArb(port, TOKEN, MAX_BODY_BYTES),
          collecting(findings, async (request) => {
            sent.raw++;
            trace('raw', request.bytes);
            const exchange = await rawExchange(port, request.bytes, {
              halfClose: request.halfClose,
              stopAfterFirst: !request.halfClose,
              head: request.head,
              // A request left open relies on the server's receive timeout (checked each quarter).
              timeoutMs: request.waitForServer ? RECEIVE_TIMEOUT_MS + 3000 : DEADLINE_MS,
            });
            // An answer ends the exchange (a kept-alive connection may stay open after it).
            expect(
              exchange.timedOut && exchange.responses.length === 0,
              'the server neither answered nor closed the connection',
            ).toBe(false);
            if (request.framed && !request.halfClose) {
              expect(exchange.responses.length, 'a complete request got no answer').toBeGreaterThan(0);
            }
            for (const response of exchange.responses) checkRaw(response, request.head);
          }),
        ),
        fuzzSettings(REQUESTS * 0.45),
      );
      findings.throwIfAny('the property');
      await expectNoLeakedSlot();
    },
    timeFor(REQUESTS * 0.45),
  );

  it(
    'answers well-formed requests of any method, target, headers and body per the contract',
    async () => {
      const arb = fc.record({
        method: methodArb,
        path: pathArb,
        headers: headersArb(port, TOKEN),
        body: fc.option(bodyArb(MAX_BODY_BYTES), { nil: undefined, freq: 6 }),
      });
      const findings = new Findings();
      allFindings.push(findings);
      await fc.assert(
        fc.asyncProperty(
          arb,
          collecting(findings, async ({ method, path, headers, body }) => {
            sent.wellFormed++;
            trace(`${method} ${path.slice(0, 80)}`, body);
            let answer: Answer;
            try {
              answer = await send(method, path, headers, body);
            } catch (error) {
              const code = (error as NodeJS.ErrnoException).code ?? '';
              // node:http refusing to send the request is no finding.
              if (/^ERR_(INVALID|UNESCAPED|HTTP)/.test(code)) {
                sent.clientRefused++;
                return;
              }
              // A body past the limit: the server answers 413 and closes without reading the rest.
              if (
                (code === 'ECONNRESET' || code === 'EPIPE') &&
                body !== undefined &&
                body.length > MAX_BODY_BYTES
              ) {
                sent.resets++;
                return;
              }
              throw error;
            }
            checkAnswer(answer.status, answer.headers, answer.body, method === 'HEAD');
          }),
        ),
        fuzzSettings(REQUESTS * 0.45),
      );
      findings.throwIfAny('the property');
      await expectNoLeakedSlot();
    },
    timeFor(REQUESTS * 0.45),
  );

  it(
    'keeps its slots accounted for under concurrent bursts, overload and clients that go away',
    async () => {
      const client = fc.record({
        body: fc.oneof(
          { weight: 3, arbitrary: validRequest },
          { weight: 1, arbitrary: bodyArb(MAX_BODY_BYTES) },
        ),
        // Some clients hang up while their request waits or runs.
        abortAfterMs: fc.option(fc.integer({ min: 0, max: 60 }), { nil: undefined, freq: 3 }),
      });
      const findings = new Findings();
      allFindings.push(findings);
      await fc.assert(
        fc.asyncProperty(
          fc.array(client, { minLength: 2, maxLength: 8 }),
          collecting(findings, async (clients) => {
            await Promise.all(
              clients.map(async ({ body, abortAfterMs }) => {
                sent.concurrent++;
                trace('burst', body);
                const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
                const head = Buffer.from(
                  `POST /cypher HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\n${
                    TOKEN === undefined ? '' : `Authorization: Bearer ${TOKEN}\r\n`
                  }Content-Length: ${bytes.length}\r\n\r\n`,
                );
                const exchange = await rawExchange(port, Buffer.concat([head, bytes]), {
                  halfClose: false,
                  stopAfterFirst: true,
                  timeoutMs: DEADLINE_MS,
                  abortAfterMs,
                });
                if (abortAfterMs !== undefined && exchange.responses.length === 0) {
                  sent.aborted++;
                  return;
                }
                expect(exchange.timedOut, 'a request got no answer within its deadline').toBe(false);
                expect(exchange.responses.length, 'the server closed without an answer').toBe(1);
                checkRaw(exchange.responses[0]!, false);
              }),
            );
            await expectNoLeakedSlot();
          }),
        ),
        fuzzSettings((REQUESTS * 0.1) / 5),
      );
      findings.throwIfAny('the property');
    },
    timeFor(REQUESTS * 0.1),
  );

  it(
    'runs explicit transactions of any statements, ended any way, and frees their slots',
    async () => {
      const step = fc.oneof(
        {
          weight: 6,
          arbitrary: fc.record({
            kind: fc.constant('run' as const),
            body: bodyArb(MAX_BODY_BYTES),
            ndjson: fc.boolean(),
          }),
        },
        {
          weight: 3,
          arbitrary: fc.record({
            kind: fc.constant('run' as const),
            body: validRequest.map((t) => Buffer.from(t)),
            ndjson: fc.boolean(),
          }),
        },
        {
          weight: 1,
          arbitrary: fc.record({
            kind: fc.constantFrom('commit' as const, 'rollback' as const, 'bad-id' as const),
          }),
        },
      );
      const flow = fc.record({
        open: fc.oneof(
          fc.constant(undefined),
          fc.constantFrom(
            '{"access_mode":"read"}',
            '{"access_mode":"update"}',
            '{"access_mode":"schema"}',
            '{"access_mode":"x"}',
            '{}',
            '[]',
            'null',
            '{',
          ),
        ),
        steps: fc.array(step, { maxLength: 5 }),
        end: fc.oneof(
          { weight: 30, arbitrary: fc.constantFrom('commit', 'rollback') },
          { weight: 1, arbitrary: fc.constant('abandon') },
        ),
      });
      const findings = new Findings();
      allFindings.push(findings);
      await fc.assert(
        fc.asyncProperty(
          flow,
          collecting(findings, async ({ open, steps, end }) => {
            sent.tx++;
            const opened = await send(
              'POST',
              '/tx',
              jsonHeaders(),
              open === undefined ? undefined : Buffer.from(open),
            );
            checkAnswer(opened.status, opened.headers, opened.body, false);
            if (opened.status !== 201) return;
            const id = (JSON.parse(opened.body.toString()) as { id: string }).id;
            for (const s of steps) {
              sent.tx++;
              let answer: Answer;
              if (s.kind === 'run') {
                trace(`tx ${id}`, s.body);
                const headers = s.ndjson
                  ? { ...jsonHeaders(), accept: 'application/x-ndjson' }
                  : jsonHeaders();
                answer = await send('POST', `/tx/${id}`, headers, s.body);
              } else if (s.kind === 'commit') answer = await send('POST', `/tx/${id}/commit`, jsonHeaders());
              else if (s.kind === 'rollback') answer = await send('DELETE', `/tx/${id}`, jsonHeaders());
              else
                answer = await send(
                  'POST',
                  `/tx/${id.slice(1)}x`,
                  jsonHeaders(),
                  Buffer.from('{"query":"RETURN 1"}'),
                );
              checkAnswer(answer.status, answer.headers, answer.body, false);
            }
            if (end === 'abandon') return;
            sent.tx++;
            const ended =
              end === 'commit'
                ? await send('POST', `/tx/${id}/commit`, jsonHeaders())
                : await send('DELETE', `/tx/${id}`, jsonHeaders());
            checkAnswer(ended.status, ended.headers, ended.body, false);
            // Ended now, or already (a failed statement rolls it back): 404 TX_NOT_FOUND.
            expect([200, 404], ended.body.toString()).toContain(ended.status);
          }),
        ),
        fuzzSettings(REQUESTS * 0.05),
      );
      try {
        // Abandoned transactions roll back after their idle time; then every slot is free.
        await expectNoLeakedSlot();
      } finally {
        findings.throwIfAny('the property');
      }
    },
    timeFor(REQUESTS * 0.05),
  );

  it('still serves and reports no slot in use afterwards', async () => {
    await expectNoLeakedSlot();
    const status = await send('GET', '/status', authHeaders(TOKEN));
    expect(status.status).toBe(200);
    const body = JSON.parse(status.body.toString()) as {
      status: string;
      slots: { total: number; inUse: number; waiting: number };
    };
    expect(body.status).toBe('running');
    expect(body.slots).toEqual({ total: 2, inUse: 0, waiting: 0 });
    const known = await send(
      'POST',
      '/cypher',
      jsonHeaders(),
      Buffer.from(JSON.stringify({ query: 'RETURN 40 + 2 AS answer', access_mode: 'read' })),
    );
    expect(known.status).toBe(200);
    expect(JSON.parse(known.body.toString()).rows).toEqual([[42]]);
  });
});
