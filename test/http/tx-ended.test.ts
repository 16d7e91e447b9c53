// TX_NOT_FOUND for a transaction that ended says how it ended (docs/http-api.md, "Explicit
// transactions"), to the client that opened it only; a statement whose failure rolled its
// transaction back says so in its own answer.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Database, GraphDBService } from '../../src/index.js';
import { waitFor } from '../runtime/helpers.js';

const READER = 'reader-token-0123456789';
const WRITER = 'writer-token-0123456789';
const OTHER_WRITER = 'writer-token-9876543210';

let db: Database;
let service: GraphDBService;
let url: string;

beforeAll(async () => {
  db = new Database(':memory:', { maxThreadNum: 4 });
  service = new GraphDBService(db, {
    queryPort: 0,
    autoCompaction: false,
    txIdleTimeoutMs: 300,
    auth: {
      tokens: [
        { token: 'admin-token-0123456789', role: 'admin' },
        { token: READER, role: 'reader' },
        { token: WRITER, role: 'writer' },
        { token: OTHER_WRITER, role: 'writer' },
      ],
    },
  });
  url = await service.start();
  await call('admin-token-0123456789', 'POST', '/cypher', {
    query: 'CREATE NODE TABLE P(id INT64, PRIMARY KEY(id))',
  });
  await call('admin-token-0123456789', 'POST', '/cypher', { query: 'CREATE (:P {id: 1})' });
});

afterAll(async () => {
  await service.close();
  db.close();
});

interface Answer {
  status: number;
  error?: { code: string; message: string };
  id?: string;
}

async function call(token: string, method: string, path: string, body?: unknown): Promise<Answer> {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { ...((await response.json()) as object), status: response.status };
}

async function open(token = WRITER): Promise<string> {
  const answer = await call(token, 'POST', '/tx');
  expect(answer.status).toBe(201);
  return answer.id!;
}

const run = (id: string, query: string, token = WRITER) => call(token, 'POST', `/tx/${id}`, { query });

describe('TX_NOT_FOUND after a transaction ended', () => {
  it('names the failed statement that rolled it back, and the failure says so', async () => {
    const id = await open();
    const failed = await run(id, 'CREATE (:P {id: 1})');
    expect(failed.status).toBe(409);
    expect(failed.error!.code).toBe('CONSTRAINT_VIOLATION');
    expect(failed.error!.message).toMatch(/\(the transaction was rolled back\)$/);
    const next = await run(id, 'RETURN 1');
    expect(next.status).toBe(404);
    expect(next.error!.code).toBe('TX_NOT_FOUND');
    expect(next.error!.message).toMatch(
      /is no longer open: it was rolled back because a statement in it failed with CONSTRAINT_VIOLATION: .*duplicated primary key/,
    );
  });

  it('leaves a transaction open after a statement refused before it ran', async () => {
    const id = await open();
    const refused = await run(id, 'RETURN nosuchvariable');
    expect(refused.status).toBe(400);
    expect(refused.error!.message).not.toMatch(/rolled back/);
    expect((await run(id, 'RETURN 1')).status).toBe(200);
    expect((await call(WRITER, 'DELETE', `/tx/${id}`)).status).toBe(200);
  });

  it('says committed, rolled back or expired', async () => {
    const committed = await open();
    expect((await call(WRITER, 'POST', `/tx/${committed}/commit`)).status).toBe(200);
    expect((await run(committed, 'RETURN 1')).error!.message).toMatch(/is no longer open: it was committed$/);

    const rolledBack = await open();
    expect((await call(WRITER, 'DELETE', `/tx/${rolledBack}`)).status).toBe(200);
    expect((await call(WRITER, 'POST', `/tx/${rolledBack}/commit`)).error!.message).toMatch(
      /it was rolled back$/,
    );

    const idle = await open(READER);
    await waitFor(() => service.pool?.inUse === 0, 5000, 'the idle transaction to roll back');
    expect((await run(idle, 'RETURN 1', READER)).error!.message).toMatch(
      /it was rolled back after 300 ms idle \(txIdleTimeoutMs\)$/,
    );
  });

  it('tells only the client that opened it', async () => {
    const id = await open();
    expect((await call(WRITER, 'DELETE', `/tx/${id}`)).status).toBe(200);
    const other = await run(id, 'RETURN 1', OTHER_WRITER);
    expect(other.status).toBe(404);
    expect(other.error!.message).toMatch(/^no open transaction .*or never existed$/);
    expect((await run('no-such-id', 'RETURN 1')).error!.message).toMatch(/or never existed$/);
  });
});
