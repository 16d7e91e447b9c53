// Wrong use of explicit transactions is refused with a clear error and leaves the database as
// it was; transactions ended by close() or by a failure leave no trace. (Use of a closed
// connection outside a transaction is covered in test/core/connection.test.ts.)
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Connection, GraphDBError } from '../../src/index.js';
import { runNode } from './fixtures/crash-harness.mjs';
import { type Backend, TestDatabase } from './helpers.js';

const fixtures = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures');

async function refusal(promise: Promise<unknown>): Promise<GraphDBError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(GraphDBError);
  return error as GraphDBError;
}

describe('explicit transactions refuse wrong use', () => {
  let t: TestDatabase;
  let a: Connection;
  let b: Connection;

  beforeEach(async () => {
    t = new TestDatabase('in-memory', 2);
    [a, b] = t.conns as [Connection, Connection];
    await a.query('CREATE NODE TABLE N(id INT64, v INT64, PRIMARY KEY(id))');
    await a.query('CREATE REL TABLE E(FROM N TO N)');
    await a.query('CREATE (:N {id: 1, v: 0})-[:E]->(:N {id: 2, v: 0})');
  });

  afterEach(() => {
    t.close();
  });

  const state = async () => (await b.query('MATCH (n:N) RETURN n.id, n.v ORDER BY n.id')).rows;

  it.each(['COMMIT', 'ROLLBACK'])('refuses %s without BEGIN and stays usable', async (statement) => {
    const error = await refusal(a.query(statement));
    expect(error.code).toBe('INVALID_REQUEST');
    expect(error.message).toMatch(new RegExp(`no active transaction for ${statement}`, 'i'));
    expect((await a.query('RETURN 1 AS x')).rows).toEqual([[1]]);
    // A second COMMIT after a good one is just as wrong.
    await a.query('BEGIN TRANSACTION');
    await a.query('COMMIT');
    expect((await refusal(a.query(statement))).code).toBe('INVALID_REQUEST');
  });

  it.each(['BEGIN TRANSACTION', 'BEGIN TRANSACTION READ ONLY'])(
    'refuses %s inside a transaction, and applies the outer one whole or not at all',
    async (nested) => {
      await a.query('BEGIN TRANSACTION');
      await a.query('MATCH (n:N {id: 1}) SET n.v = 5');
      await a.query('CREATE (:N {id: 3, v: 0})');
      const error = await refusal(a.query(nested));
      expect(error.code).toBe('INVALID_REQUEST');
      expect(error.message).toMatch(/already has an active transaction/i);
      // Either the outer transaction is still open and commits everything, or the refusal ended
      // it and undid everything; never a part.
      const commit = await a.query('COMMIT').then(
        () => 'committed',
        (e: unknown) => e,
      );
      if (commit === 'committed') {
        expect(await state()).toEqual([
          [1, 5],
          [2, 0],
          [3, 0],
        ]);
      } else {
        expect(commit).toMatchObject({ code: 'INVALID_REQUEST' });
        expect(await state()).toEqual([
          [1, 0],
          [2, 0],
        ]);
      }
    },
  );

  it.each([
    ['CREATE', 'CREATE (:N {id: 9, v: 9})'],
    ['SET', 'MATCH (n:N {id: 1}) SET n.v = 9'],
    ['MERGE', 'MERGE (n:N {id: 9}) ON CREATE SET n.v = 9'],
    ['DELETE', 'MATCH (:N)-[e:E]->(:N) DELETE e'],
    ['DETACH DELETE', 'MATCH (n:N {id: 2}) DETACH DELETE n'],
    ['REMOVE', 'MATCH (n:N {id: 1}) REMOVE n.v'],
    ['a write after a read', 'MATCH (n:N {id: 1}) WITH n CREATE (:N {id: 9, v: n.v})'],
  ])('refuses %s in a READ ONLY transaction and applies nothing', async (_, write) => {
    await a.query('BEGIN TRANSACTION READ ONLY');
    expect((await a.query('MATCH (n:N) RETURN count(*)')).rows).toEqual([[2]]);
    const error = await refusal(a.query(write));
    expect(['INVALID_REQUEST', 'ACCESS_MODE_VIOLATION']).toContain(error.code);
    expect(error.message).toMatch(/read-only transaction/i);
    // Whether the refusal ended the transaction or not, nothing was written.
    await a.query('ROLLBACK').catch(() => undefined);
    expect(await state()).toEqual([
      [1, 0],
      [2, 0],
    ]);
    expect((await b.query('MATCH ()-[e:E]->() RETURN count(e)')).rows).toEqual([[1]]);
  });

  it('refuses DDL in a READ ONLY transaction', async () => {
    await a.query('BEGIN TRANSACTION READ ONLY');
    const error = await refusal(a.query('CREATE NODE TABLE M(id INT64, PRIMARY KEY(id))'));
    expect(['INVALID_REQUEST', 'ACCESS_MODE_VIOLATION', 'NOT_SUPPORTED']).toContain(error.code);
    await a.query('ROLLBACK').catch(() => undefined);
    expect((await refusal(b.query('MATCH (m:M) RETURN m'))).code).toBe('QUERY_BINDING');
  });

  it('reads in a READ ONLY transaction and commits it', async () => {
    await a.query('BEGIN TRANSACTION READ ONLY');
    expect((await a.query('MATCH (n:N {id: 1})-[:E]->(m) RETURN m.id')).rows).toEqual([[2]]);
    await a.query('COMMIT');
    await a.query('CREATE (:N {id: 3, v: 0})'); // and the connection writes again afterwards
    expect(await state()).toHaveLength(3);
  });

  it('undoes the whole transaction when one of its statements fails', async () => {
    await a.query('BEGIN TRANSACTION');
    await a.query('MATCH (n:N {id: 1}) SET n.v = 7');
    await a.query('CREATE (:N {id: 3, v: 0})');
    expect((await refusal(a.query('CREATE (:N {id: 1, v: 0})'))).code).toBe('CONSTRAINT_VIOLATION');
    await a.query('COMMIT').catch(() => undefined);
    expect(await state()).toEqual([
      [1, 0],
      [2, 0],
    ]);
  });
});

describe.each<Backend>(['in-memory', 'on-disk'])('a transaction ended by close (%s)', (backend) => {
  it('is rolled back when its connection closes, and blocks no other connection', async () => {
    // The database is opened by the child only.
    const dir = mkdtempSync(path.join(os.tmpdir(), 'graphdb-close-'));
    try {
      const args = backend === 'on-disk' ? ['--db', path.join(dir, 'db')] : [];
      const run = await runNode(path.join(fixtures, 'close-in-transaction.mjs'), args, { timeoutMs: 3000 });
      expect(run.timedOut, 'the other connection stayed blocked by the closed transaction').toBe(false);
      expect(run.code, run.stderr).toBe(0);
      const report = JSON.parse(run.lines.find((l: string) => l.startsWith('{'))!);
      expect(report.closedCode).toBe('CONNECTION_CLOSED');
      expect(report.rows).toEqual([[1, 0]]);
      expect(report.wrote).toBe(true);
      if (backend === 'on-disk') {
        expect(report.reopened).toEqual([
          [1, 0],
          [3, 0],
        ]);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 20_000);
});

describe('on disk, what a transaction did not commit is not persisted', () => {
  let t: TestDatabase;

  beforeEach(async () => {
    t = new TestDatabase('on-disk', 2);
    await t.conn.query('CREATE NODE TABLE N(id INT64, PRIMARY KEY(id))');
    await t.conn.query('CREATE REL TABLE E(FROM N TO N)');
    await t.conn.query('CREATE (:N {id: 0})');
  });

  afterEach(() => {
    t.close();
  });

  it('when the database closes with the transaction open', async () => {
    await t.conn.query('BEGIN TRANSACTION');
    await t.conn.query('CREATE (:N {id: 1})');
    t.reopen();
    expect(await t.rows('MATCH (n:N) RETURN n.id')).toEqual([[0]]);
  });

  it('when a transaction that created a node and an edge rolls back (the database still opens)', async () => {
    await t.conn.query('BEGIN TRANSACTION');
    await t.conn.query('MATCH (a:N {id: 0}) CREATE (a)-[:E]->(:N {id: 1})');
    await t.conn.query('ROLLBACK');
    expect(await t.rows('MATCH (n:N) RETURN n.id')).toEqual([[0]]);
    t.reopen();
    expect(await t.rows('MATCH (n:N) RETURN n.id')).toEqual([[0]]);
    expect(await t.rows('MATCH ()-[e:E]->() RETURN count(e)')).toEqual([[0]]);
  });

  it('when an auto-commit statement that created a node and an edge fails (the database still opens)', async () => {
    const failing = 'MATCH (a:N {id: 0}) CREATE (a)-[:E]->(:N {id: 1}) WITH a CREATE (:N {id: 0})';
    expect((await refusal(t.conn.query(failing))).code).toBe('CONSTRAINT_VIOLATION');
    t.reopen();
    expect(await t.rows('MATCH (n:N) RETURN n.id')).toEqual([[0]]);
    expect(await t.rows('MATCH ()-[e:E]->() RETURN count(e)')).toEqual([[0]]);
  });
});
