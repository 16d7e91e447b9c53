import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Database, GraphDBService } from '../../src/index.js';
import { waitFor } from '../runtime/helpers.js';

let db: Database;
let service: GraphDBService;
let url: string;

beforeAll(async () => {
  db = new Database(':memory:', { maxThreadNum: 3 });
  service = new GraphDBService(db, { queryPort: 0, autoCompaction: false });
  url = await service.start();
  await cypher({ query: 'CREATE NODE TABLE P(id INT64, name STRING, PRIMARY KEY(id))' });
  await cypher({ query: 'UNWIND range(1, 3000) AS i CREATE (:P {id: i, name: "p" + CAST(i AS STRING)})' });
});

afterAll(async () => {
  await service.close();
  db.close();
});

function cypher(body: unknown, accept?: string): Promise<Response> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (accept) headers.accept = accept;
  return fetch(`${url}/cypher`, { method: 'POST', headers, body: JSON.stringify(body) });
}

function lines(text: string): unknown[] {
  expect(text.endsWith('\n')).toBe(true);
  return text
    .slice(0, -1)
    .split('\n')
    .map((line) => JSON.parse(line));
}

/** A streamed request read with Node's http client, so the test decides how fast it reads. */
function streamRequest(body: unknown): Promise<http.IncomingMessage> {
  const target = new URL(`${url}/cypher`);
  return new Promise((resolve, reject) => {
    const request = http.request(
      {
        host: target.hostname,
        port: target.port,
        path: '/cypher',
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/x-ndjson' },
      },
      resolve,
    );
    request.on('error', reject);
    request.end(JSON.stringify(body));
  });
}

describe('POST /cypher with Accept: application/x-ndjson', () => {
  it('answers a header line, one array per row and a summary line', async () => {
    const response = await cypher(
      {
        query: 'MATCH (p:P) WHERE p.id <= $n RETURN p.id AS id, p.name AS name, p ORDER BY id',
        parameters: { n: 2500 },
      },
      'application/x-ndjson',
    );
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/x-ndjson');
    const parsed = lines(await response.text());
    expect(parsed[0]).toEqual({ columns: ['id', 'name', 'p'], types: ['INT64', 'STRING', 'NODE'] });
    expect(parsed.length).toBe(2502);
    expect(parsed[1]).toEqual([1, 'p1', { _id: expect.any(String), _label: 'P', id: 1, name: 'p1' }]);
    expect((parsed[2500] as unknown[])[0]).toBe(2500);
    const summary = parsed[2501] as { summary: { rowCount: number; counters: Record<string, number> } };
    expect(summary.summary.rowCount).toBe(2500);
    expect(summary.summary.counters.nodesCreated).toBe(0);
  });

  it('encodes values exactly as /cypher does', async () => {
    const query =
      'RETURN 9007199254740993 AS big, 1.5 AS d, "a\\"b" AS s, [1, 2] AS l, {k: 1} AS m, date("2024-01-02") AS day, NULL AS n';
    const plain = (await (await cypher({ query })).json()) as {
      columns: string[];
      types: string[];
      rows: unknown[][];
    };
    const streamed = await (await cypher({ query }, 'application/x-ndjson')).text();
    const parsed = lines(streamed);
    expect(parsed[0]).toEqual({ columns: plain.columns, types: plain.types });
    expect(parsed[1]).toEqual(plain.rows[0]);
    // Integers beyond 2^53 keep their digits in the text itself.
    expect(streamed).toContain('9007199254740993');
  });

  it('takes the ndjson media type among others, and q=0 turns it off', async () => {
    const either = await cypher({ query: 'RETURN 1 AS x' }, 'application/json;q=0.5, application/x-ndjson');
    expect(either.headers.get('content-type')).toBe('application/x-ndjson');
    await either.text();
    const off = await cypher({ query: 'RETURN 1 AS x' }, 'application/x-ndjson;q=0, application/json');
    expect(off.headers.get('content-type')).toMatch(/^application\/json/);
    await off.text();
  });

  it('answers an error found before the first row as an ordinary error response', async () => {
    const response = await cypher({ query: 'MATCH (n RETURN n' }, 'application/x-ndjson');
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('QUERY_SYNTAX');
    const mode = await cypher({ query: 'CREATE (:P {id: -1})', access_mode: 'read' }, 'application/x-ndjson');
    expect(mode.status).toBe(400);
    expect(((await mode.json()) as { error: { code: string } }).error.code).toBe('ACCESS_MODE_VIOLATION');
  });

  it('ends with an error line when the statement fails midway', async () => {
    const response = await cypher(
      { query: 'UNWIND range(1, 5000) AS x RETURN 10 / (x - 4000) AS q' },
      'application/x-ndjson',
    );
    expect(response.status).toBe(200);
    const parsed = lines(await response.text());
    expect(parsed[0]).toEqual({ columns: ['q'], types: ['INT64'] });
    const last = parsed[parsed.length - 1] as { error: { code: string; message: string } };
    expect(last.error.code).toBe('QUERY_RUNTIME');
    expect(parsed.length - 2).toBeGreaterThanOrEqual(3000);
    expect(parsed.length - 2).toBeLessThan(4000);
    expect(parsed.some((line) => typeof line === 'object' && line !== null && 'summary' in line)).toBe(false);
    // The slot is free again.
    await waitFor(() => service.pool?.inUse === 0, 5000, 'the slot to come back');
  });

  it('runs writing statements too (they commit before the first row)', async () => {
    const parsed = lines(
      await (
        await cypher(
          { query: 'UNWIND range(1, 5) AS i CREATE (p:P {id: 100000 + i}) RETURN p.id' },
          'application/x-ndjson',
        )
      ).text(),
    );
    expect(parsed.length).toBe(7);
    expect(
      (parsed[6] as { summary: { counters: { nodesCreated: number } } }).summary.counters.nodesCreated,
    ).toBe(5);
  });

  it('a client that goes away mid-stream stops the statement and frees the slot', async () => {
    const response = await streamRequest({ query: 'UNWIND range(1, 1000000000) AS x RETURN x' });
    expect(response.statusCode).toBe(200);
    await new Promise<void>((resolve) => response.once('data', () => resolve()));
    expect(service.pool?.inUse).toBe(1);
    response.destroy();
    await waitFor(() => service.pool?.inUse === 0, 5000, 'the slot to come back');
    const after = await cypher({ query: 'RETURN 1 AS x' });
    expect(after.status).toBe(200);
    await after.text();
  });

  it('a time limit covers the whole stream: a client too slow gets an error line', async () => {
    const response = await streamRequest({
      query: 'UNWIND range(1, 100000000) AS x RETURN x, "padding to fill the socket buffers quickly" AS s',
      timeout_ms: 300,
    });
    response.pause();
    await new Promise((resolve) => setTimeout(resolve, 600));
    let tail = '';
    response.setEncoding('utf8');
    response.on('data', (chunk: string) => {
      tail = (tail + chunk).slice(-500);
    });
    response.resume();
    await new Promise((resolve) => response.once('end', resolve));
    const last = JSON.parse(tail.trimEnd().split('\n').pop()!) as { error: { code: string } };
    expect(last.error.code).toBe('QUERY_TIMEOUT');
    await waitFor(() => service.pool?.inUse === 0, 5000, 'the slot to come back');
  });

  it('waits for a client that does not read (backpressure) and completes when it reads again', async () => {
    const rows = 2_000_000;
    const response = await streamRequest({
      query: `UNWIND range(1, ${rows}) AS x RETURN x, "a fairly long string that makes every row about one hundred bytes long" AS padding`,
    });
    const before = process.memoryUsage().rss;
    response.pause();
    await new Promise((resolve) => setTimeout(resolve, 500));
    // Unbounded, the server would have produced much of the result's 200 MB by now.
    expect(process.memoryUsage().rss - before).toBeLessThan(50 * 2 ** 20);
    expect(service.pool?.inUse).toBe(1);
    let count = 0;
    let tail = '';
    response.setEncoding('utf8');
    response.on('data', (chunk: string) => {
      for (let i = chunk.indexOf('\n'); i !== -1; i = chunk.indexOf('\n', i + 1)) count++;
      tail = (tail + chunk).slice(-300);
    });
    response.resume();
    await new Promise((resolve) => response.once('end', resolve));
    expect(count).toBe(rows + 2);
    expect(tail).toContain(`"rowCount":${rows}`);
  }, 60_000);

  it('streams 10,000,000 rows with the server memory bounded', async () => {
    const rows = 10_000_000;
    const response = await streamRequest({ query: `UNWIND range(1, ${rows}) AS x RETURN x` });
    const before = process.memoryUsage().rss;
    let peak = before;
    let count = 0;
    let chunks = 0;
    let tail = '';
    response.on('data', (chunk: Buffer) => {
      for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) count++;
      if ((++chunks & 0xff) === 0) peak = Math.max(peak, process.memoryUsage().rss);
      tail = chunk.subarray(Math.max(0, chunk.length - 300)).toString();
    });
    await new Promise((resolve) => response.once('end', resolve));
    peak = Math.max(peak, process.memoryUsage().rss);
    expect(count).toBe(rows + 2);
    expect(tail).toContain(`"rowCount":${rows}`);
    // The client runs in this process too; together they stay far below the result's size.
    expect(peak - before).toBeLessThan(100 * 2 ** 20);
  }, 120_000);
});
