// Authentication, roles, the file sandbox and TLS of the service (issue 18, docs/security.md).

import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Database, GraphDBService, type ServiceConfig } from '../../src/index.js';
import { type HttpAnswer, sendRaw } from '../runtime/helpers.js';

const READER = 'reader-token-0123456789';
const WRITER = 'writer-token-0123456789';
const ADMIN = 'admin-token-0123456789abc';
const HASHED_ADMIN = 'hashed-admin-token-0123456789';
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

type Answer = HttpAnswer;
const send = sendRaw;

function bearer(token: string | undefined): Record<string, string> {
  return token === undefined ? {} : { authorization: `Bearer ${token}` };
}

function expectError(answer: Answer, status: number, code: string): string {
  expect(answer.status, answer.body).toBe(status);
  const error = answer.json().error!;
  expect(error.code, answer.body).toBe(code);
  return error.message;
}

async function serve(config: ServiceConfig): Promise<{ db: Database; service: GraphDBService; url: string }> {
  const db = new Database(':memory:', { maxThreadNum: 2 });
  const service = new GraphDBService(db, { queryPort: 0, autoCompaction: false, ...config });
  return { db, service, url: await service.start() };
}

describe('authentication and roles', () => {
  let db: Database;
  let service: GraphDBService;
  let url: string;
  const cypher = (token: string | undefined, request: unknown) =>
    send(
      url,
      'POST',
      '/cypher',
      { 'content-type': 'application/json', ...bearer(token) },
      JSON.stringify(request),
    );

  beforeAll(async () => {
    ({ db, service, url } = await serve({
      auth: {
        tokens: [
          { token: READER, role: 'reader' },
          { token: WRITER, role: 'writer' },
          { token: ADMIN, role: 'admin' },
          { sha256: sha256(HASHED_ADMIN), role: 'admin' },
        ],
      },
    }));
    expect(
      (await cypher(ADMIN, { query: 'CREATE NODE TABLE P(id INT64, name STRING, PRIMARY KEY(id))' })).status,
    ).toBe(200);
  });

  afterAll(async () => {
    await service.close();
    db.close();
  });

  it('answers 401 without a token or with a wrong one, on every route but GET /status', async () => {
    for (const token of [undefined, 'wrong-token-0123456789', `${ADMIN}x`, ADMIN.slice(0, -1)]) {
      const answer = await cypher(token, { query: 'RETURN 1' });
      expectError(answer, 401, 'UNAUTHORIZED');
      expect(answer.headers['www-authenticate']).toMatch(/^Bearer realm="quiverdb"/);
      expectError(await send(url, 'GET', '/schema', bearer(token)), 401, 'UNAUTHORIZED');
      expectError(await send(url, 'GET', '/service_status', bearer(token)), 401, 'UNAUTHORIZED');
    }
    for (const header of ['Basic YWRtaW46YWRtaW4=', `Bearer`, `Bearer ${ADMIN} extra`, `Token ${ADMIN}`]) {
      expectError(await send(url, 'GET', '/schema', { authorization: header }), 401, 'UNAUTHORIZED');
    }
    const health = await send(url, 'GET', '/status', {});
    expect(health.status).toBe(200);
    expect(health.json()).toMatchObject({ status: 'running' });
    // The scheme is case-insensitive; a token stored as its SHA-256 digest works.
    expect((await send(url, 'GET', '/schema', { authorization: `bearer ${ADMIN}` })).status).toBe(200);
    expect((await cypher(HASHED_ADMIN, { query: 'RETURN 1 AS x' })).json().rows).toEqual([[1]]);
  });

  it('lets each role use the access modes it allows, and answers 403 FORBIDDEN beyond', async () => {
    // reader: reads only, whether the mode is named or inferred.
    expect((await cypher(READER, { query: 'MATCH (p:P) RETURN count(p)' })).status).toBe(200);
    expect((await send(url, 'GET', '/schema', bearer(READER))).status).toBe(200);
    expectError(await cypher(READER, { query: 'CREATE (:P {id: 1})' }), 403, 'FORBIDDEN');
    expectError(
      await cypher(READER, { query: 'CREATE (:P {id: 1})', access_mode: 'insert' }),
      403,
      'FORBIDDEN',
    );
    expectError(await cypher(READER, { query: 'RETURN 1', access_mode: 'update' }), 403, 'FORBIDDEN');
    // writer: data, not schema, settings or files.
    expect((await cypher(WRITER, { query: 'CREATE (:P {id: 1})' })).status).toBe(200);
    const set = await cypher(WRITER, {
      query: 'MATCH (p:P {id: 1}) SET p.name = "one"',
      access_mode: 'update',
    });
    expect(set.status, set.body).toBe(200);
    const message = expectError(
      await cypher(WRITER, { query: 'CREATE NODE TABLE Q(id INT64, PRIMARY KEY(id))' }),
      403,
      'FORBIDDEN',
    );
    expect(message).toMatch(/schema/);
    expectError(await cypher(WRITER, { query: 'CALL threads = 1' }), 403, 'FORBIDDEN');
    expectError(await cypher(WRITER, { query: 'RETURN 1', access_mode: 'schema' }), 403, 'FORBIDDEN');
    // A client that narrows its own mode gets the mode's error, as without auth.
    expectError(
      await cypher(WRITER, { query: 'CREATE (:P {id: 3})', access_mode: 'read' }),
      400,
      'ACCESS_MODE_VIOLATION',
    );
    // admin: everything.
    expect((await cypher(ADMIN, { query: 'CREATE NODE TABLE Q(id INT64, PRIMARY KEY(id))' })).status).toBe(
      200,
    );
    const count = await cypher(READER, { query: 'MATCH (p:P) RETURN count(p)' });
    expect(count.json().rows).toEqual([[1]]);
    expect((await cypher(READER, { query: 'CALL show_tables() RETURN count(*)' })).status).toBe(200);
  });

  it('bounds the nesting of parameters', async () => {
    const nested = (depth: number): unknown => (depth === 0 ? 1 : [nested(depth - 1)]);
    const ok = await cypher(READER, { query: 'RETURN size($p) AS n', parameters: { p: nested(60) } });
    expect(ok.json().rows).toEqual([[1]]);
    const deep = await cypher(READER, { query: 'RETURN 1', parameters: { p: nested(100) } });
    expect(expectError(deep, 400, 'INVALID_REQUEST')).toMatch(/nesting too deep/);
    // A body of nothing but brackets is refused the same way, without recursing through it.
    const brackets = await send(
      url,
      'POST',
      '/cypher',
      { 'content-type': 'application/json', ...bearer(READER) },
      `{"query": "RETURN 1", "parameters": {"p": ${'['.repeat(100_000)}}}`,
    );
    expectError(brackets, 400, 'INVALID_REQUEST');
  });

  it('applies tokens and roles to explicit transactions and streamed results', async () => {
    const tx = (token: string | undefined, method: string, target: string, request?: unknown) =>
      send(
        url,
        method,
        target,
        { 'content-type': 'application/json', ...bearer(token) },
        request === undefined ? undefined : JSON.stringify(request),
      );
    expectError(await tx(undefined, 'POST', '/tx', {}), 401, 'UNAUTHORIZED');
    expectError(await tx(READER, 'POST', '/tx', { access_mode: 'update' }), 403, 'FORBIDDEN');
    // A reader's transaction is READ ONLY.
    const read = await tx(READER, 'POST', '/tx', {});
    expect(read.status, read.body).toBe(201);
    const readId = (JSON.parse(read.body) as { id: string }).id;
    expect((await tx(READER, 'POST', `/tx/${readId}`, { query: 'MATCH (p:P) RETURN count(p)' })).status).toBe(
      200,
    );
    expect(
      (await tx(READER, 'POST', `/tx/${readId}`, { query: 'CREATE (:P {id: 70})' })).status,
    ).toBeGreaterThanOrEqual(400);
    expect((await tx(READER, 'DELETE', `/tx/${readId}`)).status).toBe(200);
    // A writer's: data yes, schema no; and only its own token may use it.
    const write = await tx(WRITER, 'POST', '/tx', {});
    const writeId = (JSON.parse(write.body) as { id: string }).id;
    expectError(await tx(READER, 'POST', `/tx/${writeId}`, { query: 'RETURN 1' }), 404, 'TX_NOT_FOUND');
    expectError(await tx(ADMIN, 'POST', `/tx/${writeId}/commit`), 404, 'TX_NOT_FOUND');
    expectError(await tx(undefined, 'DELETE', `/tx/${writeId}`), 401, 'UNAUTHORIZED');
    expect((await tx(WRITER, 'POST', `/tx/${writeId}`, { query: 'CREATE (:P {id: 71})' })).status).toBe(200);
    expectError(
      await tx(WRITER, 'POST', `/tx/${writeId}`, { query: 'CREATE NODE TABLE R(id INT64, PRIMARY KEY(id))' }),
      403,
      'FORBIDDEN',
    );
    await tx(WRITER, 'DELETE', `/tx/${writeId}`);
    // NDJSON: the role is checked before anything streams.
    const streamed = await send(
      url,
      'POST',
      '/cypher',
      { 'content-type': 'application/json', accept: 'application/x-ndjson', ...bearer(READER) },
      JSON.stringify({ query: 'CREATE (:P {id: 72})' }),
    );
    expectError(streamed, 403, 'FORBIDDEN');
    const lines = await send(
      url,
      'POST',
      '/cypher',
      { 'content-type': 'application/json', accept: 'application/x-ndjson', ...bearer(READER) },
      JSON.stringify({ query: 'UNWIND range(1, 3) AS x RETURN x' }),
    );
    expect(lines.body.trim().split('\n')).toHaveLength(5);
    expect(
      (await cypher(READER, { query: 'MATCH (p:P) WHERE p.id >= 70 RETURN count(p)' })).json().rows,
    ).toEqual([[0]]);
  });

  it('checks access after macro expansion: a reader cannot draw from a sequence through one', async () => {
    const request = (token: string, method: string, target: string, body: unknown, accept?: string) =>
      send(
        url,
        method,
        target,
        { 'content-type': 'application/json', ...(accept ? { accept } : {}), ...bearer(token) },
        JSON.stringify(body),
      );
    for (const query of [
      'CREATE SEQUENCE seqx',
      "CREATE MACRO nv(x) AS nextval('seqx') + x",
      'CREATE MACRO twice_nv(x) AS nv(x) * 2',
    ]) {
      expect((await cypher(ADMIN, { query })).status).toBe(200);
    }
    for (const query of ['RETURN nv(0)', 'RETURN twice_nv(1)', 'UNWIND [1, 2] AS x RETURN nv(x)']) {
      expectError(await cypher(READER, { query }), 403, 'FORBIDDEN');
      expectError(await cypher(READER, { query, access_mode: 'read' }), 400, 'ACCESS_MODE_VIOLATION');
      expectError(
        await request(READER, 'POST', '/cypher', { query }, 'application/x-ndjson'),
        403,
        'FORBIDDEN',
      );
    }
    // In a reader's (READ ONLY) transaction too.
    const opened = await request(READER, 'POST', '/tx', {});
    const id = (JSON.parse(opened.body) as { id: string }).id;
    expectError(
      await request(READER, 'POST', `/tx/${id}`, { query: 'RETURN nv(0)' }),
      400,
      'ACCESS_MODE_VIOLATION',
    );
    expect((await send(url, 'DELETE', `/tx/${id}`, bearer(READER))).status).toBe(200);
    // None of that moved the sequence; a writer may draw from it through the macro.
    expect((await cypher(WRITER, { query: 'RETURN nv(0) AS v' })).json().rows).toEqual([[1]]);
    expect((await cypher(ADMIN, { query: "RETURN nextval('seqx')" })).json().rows).toEqual([[2]]);
  });

  it('caps in-process requests by their role too', async () => {
    const lease = await service.acquireExecutionSlot();
    try {
      await expect(
        lease.slot.executeTransactionalRequest(JSON.stringify({ query: 'CREATE (:P {id: 9})' }), {
          role: 'reader',
        }),
      ).rejects.toMatchObject({ code: 'FORBIDDEN' });
      const result = await lease.slot.executeTransactionalRequest(
        JSON.stringify({ query: 'RETURN 1 AS x' }),
        {
          role: 'reader',
        },
      );
      expect(result.toObjects()).toEqual([{ x: 1 }]);
      await expect(
        lease.slot.executeTransactionalRequest('{"query": "RETURN 1"}', { role: 'root' as never }),
      ).rejects.toThrow(TypeError);
    } finally {
      lease.release();
    }
  });

  it('answers CORS preflights that ask for Authorization', async () => {
    const {
      db: db2,
      service: s2,
      url: u2,
    } = await serve({
      auth: { tokens: [{ token: ADMIN, role: 'admin' }] },
      corsOrigins: ['https://app.example.com'],
    });
    try {
      const preflight = await send(u2, 'OPTIONS', '/cypher', {
        origin: 'https://app.example.com',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, content-type',
      });
      expect(preflight.status).toBe(204);
      expect(preflight.headers['access-control-allow-headers']).toMatch(/Authorization/);
    } finally {
      await s2.close();
      db2.close();
    }
  });
});

describe('authentication settings', () => {
  it('checks ServiceConfig.auth and names what is wrong', () => {
    const db = new Database(':memory:');
    try {
      const cases: [unknown, RegExp][] = [
        [{}, /tokens/],
        [{ tokens: [] }, /non-empty/],
        [{ tokens: [{ token: 'short', role: 'admin' }] }, /at least 16/],
        [{ tokens: [{ token: 'has a space in it 0123', role: 'admin' }] }, /visible ASCII/],
        [{ tokens: [{ token: ADMIN, role: 'root' }] }, /role must be one of reader, writer, admin/],
        [{ tokens: [{ sha256: 'abc', role: 'admin' }] }, /64 hex digits/],
        [{ tokens: [{ token: ADMIN, sha256: sha256(ADMIN), role: 'admin' }] }, /both/],
        [{ tokens: [{ role: 'admin' }] }, /needs a token/],
        [
          {
            tokens: [
              { token: ADMIN, role: 'admin' },
              { sha256: sha256(ADMIN), role: 'reader' },
            ],
          },
          /same token as entry 0/,
        ],
        [{ tokens: [{ token: ADMIN, role: 'admin' }], extra: 1 }, /unknown field 'extra'/],
      ];
      for (const [auth, pattern] of cases) {
        expect(
          () => new GraphDBService(db, { queryPort: 0, auth } as ServiceConfig),
          JSON.stringify(auth),
        ).toThrow(pattern);
      }
    } finally {
      db.close();
    }
  });

  it('refuses an address other machines reach without auth, unless insecure', async () => {
    const db = new Database(':memory:');
    try {
      for (const hostStr of ['0.0.0.0', '::', '192.168.1.10', 'example.com']) {
        expect(() => new GraphDBService(db, { queryPort: 0, hostStr })).toThrow(
          /no authentication.*insecure/,
        );
      }
      for (const hostStr of ['127.0.0.1', '127.1.2.3', '::1', 'localhost']) {
        await new GraphDBService(db, { queryPort: 0, hostStr }).close();
      }
      await new GraphDBService(db, { queryPort: 0, hostStr: '0.0.0.0', insecure: true }).close();
      await new GraphDBService(db, {
        queryPort: 0,
        hostStr: '0.0.0.0',
        auth: { tokens: [{ token: ADMIN, role: 'admin' }] },
      }).close();
      expect(() => new GraphDBService(db, { insecure: 'yes' } as never)).toThrow(
        /insecure must be a boolean/,
      );
    } finally {
      db.close();
    }
  });
});

describe('file sandbox', () => {
  let tmp: string;
  let inside: string;
  let outside: string;

  beforeAll(() => {
    tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'graphdb-sandbox-')));
    inside = path.join(tmp, 'import');
    outside = path.join(tmp, 'outside');
    fs.mkdirSync(path.join(inside, 'sub'), { recursive: true });
    fs.mkdirSync(outside);
    fs.writeFileSync(path.join(inside, 'people.csv'), 'id\n1\n2\n');
    fs.writeFileSync(path.join(inside, 'sub', 'more.csv'), 'id\n3\n');
    fs.writeFileSync(path.join(outside, 'secret.csv'), 'id\n42\n');
    fs.symlinkSync(path.join(outside, 'secret.csv'), path.join(inside, 'link.csv'));
    fs.symlinkSync(outside, path.join(inside, 'linkdir'));
    fs.symlinkSync(path.join(inside, 'people.csv'), path.join(inside, 'alias.csv'));
  });

  afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

  const schema = (url: string, token: string | undefined, query: string, access_mode = 'schema') =>
    send(
      url,
      'POST',
      '/cypher',
      { 'content-type': 'application/json', ...bearer(token) },
      JSON.stringify({ query, access_mode }),
    );

  it('refuses every file statement without importDir, and COPY TO in read mode', async () => {
    const { db, service, url } = await serve({});
    try {
      expect((await schema(url, undefined, 'CREATE NODE TABLE P(id INT64, PRIMARY KEY(id))')).status).toBe(
        200,
      );
      const target = path.join(tmp, 'x.csv');
      for (const query of [
        `COPY (RETURN 1 AS one) TO '${target}'`,
        `LOAD FROM '${path.join(inside, 'people.csv')}' RETURN *`,
        `COPY P FROM '${path.join(inside, 'people.csv')}'`,
        `COPY P FROM (LOAD FROM '${path.join(inside, 'people.csv')}' RETURN id)`,
      ]) {
        const message = expectError(await schema(url, undefined, query), 403, 'FORBIDDEN');
        expect(message, query).toMatch(/--import-dir/);
      }
      // The report's case: a read-mode request that writes a file on the server.
      expectError(
        await schema(url, undefined, `COPY (RETURN 1 AS one) TO '${target}'`, 'read'),
        400,
        'ACCESS_MODE_VIOLATION',
      );
      expectError(
        await schema(url, undefined, `LOAD FROM '${path.join(inside, 'people.csv')}' RETURN *`, 'read'),
        400,
        'ACCESS_MODE_VIOLATION',
      );
      expect(fs.existsSync(target)).toBe(false);
      // In-process leases are the service's too.
      const lease = await service.acquireExecutionSlot();
      try {
        await expect(
          lease.slot.executeTransactionalRequest(
            JSON.stringify({ query: `COPY (RETURN 1 AS one) TO '${target}'` }),
          ),
        ).rejects.toMatchObject({ code: 'FORBIDDEN' });
      } finally {
        lease.release();
      }
      expect(fs.existsSync(target)).toBe(false);
    } finally {
      await service.close();
      db.close();
    }
  });

  it('refuses COPY FROM a file at once while a READ ONLY transaction is open', async () => {
    // COPY waits for READ ONLY transactions to end (TX_CONFLICT after 10 s); a file it may not
    // read is refused before that wait, as LOAD FROM is.
    const cases: [ServiceConfig, string[]][] = [
      [{ importDir: inside }, ["COPY P FROM '/etc/passwd'", "COPY P FROM '../outside/secret.csv'"]],
      [{}, ["COPY P FROM '/etc/passwd'", "COPY P FROM (LOAD FROM '/etc/passwd' RETURN 1)"]],
    ];
    for (const [config, queries] of cases) {
      const db = new Database(':memory:', { maxThreadNum: 4 });
      const service = new GraphDBService(db, { queryPort: 0, autoCompaction: false, ...config });
      const url = await service.start();
      const tx = (method: string, target: string, request?: unknown) =>
        send(
          url,
          method,
          target,
          { 'content-type': 'application/json' },
          request === undefined ? undefined : JSON.stringify(request),
        );
      try {
        expect((await schema(url, undefined, 'CREATE NODE TABLE P(id INT64, PRIMARY KEY(id))')).status).toBe(
          200,
        );
        const read = await tx('POST', '/tx', { access_mode: 'read' });
        const readId = (JSON.parse(read.body) as { id: string }).id;
        expect((await tx('POST', `/tx/${readId}`, { query: 'MATCH (p:P) RETURN count(p)' })).status).toBe(
          200,
        );
        for (const query of queries) {
          expectError(await schema(url, undefined, query), 403, 'FORBIDDEN');
          const write = await tx('POST', '/tx', {});
          expect(write.status, write.body).toBe(201);
          const writeId = (JSON.parse(write.body) as { id: string }).id;
          expectError(await tx('POST', `/tx/${writeId}`, { query }), 403, 'FORBIDDEN');
          await tx('DELETE', `/tx/${writeId}`);
        }
        await tx('DELETE', `/tx/${readId}`);
      } finally {
        await service.close();
        db.close();
      }
    }
  });

  it('allows admins paths that resolve inside importDir, and refuses the rest', async () => {
    const { db, service, url } = await serve({
      importDir: inside,
      auth: {
        tokens: [
          { token: ADMIN, role: 'admin' },
          { token: WRITER, role: 'writer' },
        ],
      },
    });
    try {
      expect((await schema(url, ADMIN, 'CREATE NODE TABLE P(id INT64, PRIMARY KEY(id))')).status).toBe(200);
      // Relative paths start in the import folder; absolute paths inside it work too.
      expect((await schema(url, ADMIN, "COPY P FROM 'people.csv'")).status).toBe(200);
      expect((await schema(url, ADMIN, `COPY P FROM '${path.join(inside, 'sub', 'more.csv')}'`)).status).toBe(
        200,
      );
      const loaded = await schema(url, ADMIN, "LOAD FROM 'sub/../alias.csv' RETURN count(*)");
      expect(loaded.json().rows).toEqual([[2]]);
      expect(
        (await schema(url, ADMIN, "COPY (MATCH (p:P) RETURN p.id ORDER BY p.id) TO 'out.csv'")).status,
      ).toBe(200);
      expect(fs.readFileSync(path.join(inside, 'out.csv'), 'utf8')).toBe('1\n2\n3\n');

      for (const query of [
        "LOAD FROM '../outside/secret.csv' RETURN *",
        "LOAD FROM 'sub/../../outside/secret.csv' RETURN *",
        `LOAD FROM '${path.join(outside, 'secret.csv')}' RETURN *`,
        "LOAD FROM 'link.csv' RETURN *",
        "LOAD FROM 'linkdir/secret.csv' RETURN *",
        "LOAD FROM '/etc/passwd' RETURN *",
        "COPY (RETURN 1 AS one) TO '../outside/written.csv'",
        "COPY (RETURN 1 AS one) TO 'linkdir/written.csv'",
        `COPY (RETURN 1 AS one) TO '${path.join(outside, 'written.csv')}'`,
        "COPY P FROM 'link.csv'",
        `LOAD FROM '${inside}-sibling/x.csv' RETURN *`,
      ]) {
        const message = expectError(await schema(url, ADMIN, query), 403, 'FORBIDDEN');
        expect(message, query).toMatch(/outside the service's import folder/);
        // The folder is not named unless the statement named it.
        if (!query.includes(inside)) expect(message, query).not.toContain(inside);
      }
      expect(fs.readdirSync(outside)).toEqual(['secret.csv']);
      // Missing files inside are the client's mistake, as before.
      expectError(await schema(url, ADMIN, "LOAD FROM 'absent.csv' RETURN *"), 400, 'INVALID_REQUEST');
      // Admins only, and in schema mode only.
      expectError(await schema(url, WRITER, "LOAD FROM 'people.csv' RETURN *"), 403, 'FORBIDDEN');
      expectError(await schema(url, WRITER, "COPY P FROM 'people.csv'"), 403, 'FORBIDDEN');
      const inferred = await send(
        url,
        'POST',
        '/cypher',
        { 'content-type': 'application/json', ...bearer(WRITER) },
        JSON.stringify({ query: "LOAD FROM 'people.csv' RETURN *" }),
      );
      expectError(inferred, 403, 'FORBIDDEN');
      expectError(
        await schema(url, ADMIN, "COPY (RETURN 1 AS one) TO 'r.csv'", 'read'),
        400,
        'ACCESS_MODE_VIOLATION',
      );
      expectError(
        await schema(url, ADMIN, "COPY P FROM 'people.csv'", 'insert'),
        400,
        'ACCESS_MODE_VIOLATION',
      );
      expect(fs.existsSync(path.join(inside, 'r.csv'))).toBe(false);
      const count = await schema(url, ADMIN, 'MATCH (p:P) RETURN count(p)');
      expect(count.json().rows).toEqual([[3]]);
    } finally {
      await service.close();
      db.close();
    }
  });

  it('refuses links out of importDir whatever their target, and echoes no script', async () => {
    const { db, service, url } = await serve({
      importDir: inside,
      auth: { tokens: [{ token: ADMIN, role: 'admin' }] },
    });
    const made = [
      path.join(inside, 'dangling.csv'),
      path.join(inside, 'impdir'),
      path.join(inside, 'garbled'),
    ];
    const leaked = path.join(outside, 'leaked.cypher');
    try {
      // A link to a missing file outside: a write would have created it there.
      fs.symlinkSync(path.join(outside, 'pwned.csv'), made[0]);
      const written = expectError(
        await schema(url, ADMIN, "COPY (RETURN 'x' AS x) TO 'dangling.csv'"),
        403,
        'FORBIDDEN',
      );
      expect(written).toMatch(/outside the service's import folder/);
      expect(fs.existsSync(path.join(outside, 'pwned.csv'))).toBe(false);

      // An import script linked from outside is refused, and is never shown.
      fs.writeFileSync(leaked, 'SECRET-LINE-1 of a file outside\n');
      fs.mkdirSync(made[1]);
      fs.symlinkSync(leaked, path.join(made[1], 'schema.cypher'));
      const linked = expectError(await schema(url, ADMIN, "IMPORT DATABASE 'impdir'"), 403, 'FORBIDDEN');
      expect(linked).toMatch(/outside the service's import folder/);
      expect(linked).not.toContain('SECRET');
      // A script inside that does not parse, or runs what an import may not: named, not shown.
      fs.mkdirSync(made[2]);
      fs.writeFileSync(path.join(made[2], 'schema.cypher'), 'SECRET-LINE-2 (\n');
      const garbled = await schema(url, ADMIN, "IMPORT DATABASE 'garbled'");
      expect(garbled.status).toBe(400);
      expect(garbled.body).toContain('schema.cypher');
      expect(garbled.body).not.toContain('SECRET');
      fs.writeFileSync(
        path.join(made[2], 'schema.cypher'),
        "RETURN 1;\nCOPY (RETURN 'SECRET-3') TO 'x.csv';\n",
      );
      const refused = await schema(url, ADMIN, "IMPORT DATABASE 'garbled'");
      expect(refused.status).toBe(400);
      expect(refused.body).toContain('schema.cypher: statement 2 ');
      expect(refused.body).not.toContain('SECRET');
      expect(fs.readdirSync(outside).sort()).toEqual(['leaked.cypher', 'secret.csv']);
    } finally {
      await service.close();
      db.close();
      for (const file of [...made, leaked]) fs.rmSync(file, { recursive: true, force: true });
    }
  });

  it('keeps the file a failed COPY TO would have replaced', async () => {
    const { db, service, url } = await serve({
      importDir: inside,
      auth: { tokens: [{ token: ADMIN, role: 'admin' }] },
    });
    const kept = ['keep.csv', 'keep.parquet'].map((name) => path.join(inside, name));
    try {
      for (const file of kept) {
        fs.writeFileSync(file, 'kept\n');
        const name = path.basename(file);
        const failed = await schema(url, ADMIN, `COPY (UNWIND [1, 0] AS d RETURN 10 / d AS x) TO '${name}'`);
        expect(failed.status, failed.body).toBe(400);
        expect(fs.readFileSync(file, 'utf8'), name).toBe('kept\n');
        // No temporary file is left beside it.
        expect(fs.readdirSync(inside).filter((entry) => entry.includes('.tmp-'))).toEqual([]);
        // A COPY TO that succeeds replaces it.
        expect((await schema(url, ADMIN, `COPY (RETURN 7 AS x) TO '${name}'`)).status).toBe(200);
        expect(fs.readFileSync(file, 'utf8')).not.toBe('kept\n');
      }
      expect(fs.readFileSync(kept[0], 'utf8')).toBe('7\n');
    } finally {
      await service.close();
      db.close();
      for (const file of kept) fs.rmSync(file, { force: true });
    }
  });

  it('checks importDir', () => {
    const db = new Database(':memory:');
    try {
      expect(() => new GraphDBService(db, { importDir: path.join(tmp, 'absent') })).toThrow(
        /cannot be resolved/,
      );
      expect(() => new GraphDBService(db, { importDir: path.join(inside, 'people.csv') })).toThrow(
        /not a folder/,
      );
      expect(() => new GraphDBService(db, { importDir: 7 } as never)).toThrow(/importDir must be/);
    } finally {
      db.close();
    }
  });

  it('leaves the embedded API free to use any file', async () => {
    const db = new Database(':memory:');
    try {
      const conn = db.connect();
      const rows = (await conn.query(`LOAD FROM '${path.join(outside, 'secret.csv')}' RETURN *`)).toObjects();
      expect(rows).toEqual([{ id: 42 }]);
    } finally {
      db.close();
    }
  });
});

describe('TLS', () => {
  const fixtures = path.join(__dirname, 'fixtures');
  // A throwaway self-signed certificate for localhost and 127.0.0.1, made for these tests only.
  const cert = fs.readFileSync(path.join(fixtures, 'tls-test.crt'));
  const key = fs.readFileSync(path.join(fixtures, 'tls-test.key'));

  it('serves HTTPS with the given certificate and key', async () => {
    const { db, service, url } = await serve({
      tls: { cert, key },
      auth: { tokens: [{ token: ADMIN, role: 'admin' }] },
    });
    try {
      expect(url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
      const answer = await send(
        url,
        'POST',
        '/cypher',
        { 'content-type': 'application/json', ...bearer(ADMIN) },
        JSON.stringify({ query: 'RETURN 41 + 1 AS x' }),
        cert,
      );
      expect(answer.json().rows).toEqual([[42]]);
      // A same-origin page's Origin is https:// now.
      const port = new URL(url).port;
      const sameOrigin = await send(
        url,
        'GET',
        '/status',
        { origin: `https://127.0.0.1:${port}` },
        undefined,
        cert,
      );
      expect(sameOrigin.status).toBe(200);
      // Plain HTTP to the TLS port gets no answer of the service's.
      const plain = await send(url.replace('https:', 'http:'), 'GET', '/status', {}).catch(
        (error: Error) => error,
      );
      expect(plain instanceof Error || plain.status === 400).toBe(true);
      // A client that does not trust the certificate refuses it.
      await expect(send(url, 'GET', '/status', {})).rejects.toThrow(/self[- ]signed|certificate/);
    } finally {
      await service.close();
      db.close();
    }
  });

  it('checks the TLS settings', () => {
    const db = new Database(':memory:');
    try {
      expect(() => new GraphDBService(db, { tls: { cert, key: 'not a key' } })).toThrow(/not usable/);
      expect(() => new GraphDBService(db, { tls: { cert } } as never)).toThrow(/tls.key/);
      expect(() => new GraphDBService(db, { tls: { cert, key, ca: cert } } as never)).toThrow(
        /unknown field 'ca'/,
      );
    } finally {
      db.close();
    }
  });
});
