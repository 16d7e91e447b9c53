// The JSON type through the embedded API: its functions, casts and comparisons, a JSON column
// that persists and follows transactions, and JSON files for LOAD FROM, COPY FROM and COPY TO
// (Kùzu's own JSON tests run in the conformance suite: npm run conformance -- --tests
// extension/json).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Connection, Database } from '../../src/index.js';

describe('JSON', () => {
  let dir: string;
  let db: Database;
  let conn: Connection;

  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'quiverdb-json-'));
    db = new Database(path.join(dir, 'db'), { maxThreadNum: 1 });
    conn = db.connect();
  });

  afterEach(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const one = async (query: string) => (await conn.query(query)).rows[0];

  it('builds, reads and checks documents', async () => {
    expect(await one(`RETURN to_json({a: 1, b: [1, 2], c: NULL}), typeof(to_json(1))`)).toEqual([
      '{"a":1,"b":[1,2],"c":null}',
      'json',
    ]);
    expect(
      await one(`RETURN json_extract('{"a":{"b":[1,"x"]}}', 'a/b/1'), json_extract('{"a":2}', '$.a')`),
    ).toEqual(['"x"', '2']);
    expect(await one(`RETURN json_structure('[{"a": 1}, {"a": -1, "b": "2024-01-02"}]')`)).toEqual([
      'STRUCT(a INT16, b DATE)[]',
    ]);
    expect(
      await one(`RETURN json_contains('{"a": {"b": [1, 2]}}', '{"b": [2]}'), json_valid('{"a":1,}')`),
    ).toEqual([true, false]);
    expect(
      await one(`RETURN json_merge_patch('{"a":1,"b":2}', '{"b":null,"c":3}'), json_keys('{"y":1,"x":2}')`),
    ).toEqual(['{"a":1,"c":3}', ['y', 'x']]);
    expect(
      await one(`RETURN json_object('k', [1], NULL, 2), json_array(1, 'a', NULL), json('[ 1,  2 ]')`),
    ).toEqual(['{"k":[1]}', '[1,"a",null]', '[1,2]']);
  });

  it('casts both ways and compares with the value a document holds', async () => {
    expect(await one(`RETURN CAST('{"a":  1}' AS JSON), CAST(CAST('[1,2]' AS JSON) AS INT64[])`)).toEqual([
      '{"a":  1}',
      [1, 2],
    ]);
    expect(await one(`RETURN json_extract('{"age": 30}', 'age') < 50`)).toEqual([true]);
    await expect(conn.query(`RETURN CAST('abc' AS JSON)`)).rejects.toThrow('Cannot convert abc to JSON.');
    await expect(conn.query(`RETURN CAST(CAST('"2"' AS JSON) AS INT64)`)).rejects.toThrow(
      'Could not convert ""2"" to INT64.',
    );
    await expect(conn.query(`RETURN json_extract('{"a":', 'a')`)).rejects.toThrow(
      'Cannot convert {"a": to JSON.',
    );
  });

  it('keeps a JSON column across a rollback, a commit and a reopen', async () => {
    await conn.query('CREATE NODE TABLE doc(id INT64, body JSON, PRIMARY KEY(id))');
    await expect(conn.query('CREATE NODE TABLE bad(k JSON, PRIMARY KEY(k))')).rejects.toThrow(
      'Invalid primary key column type json',
    );
    await expect(conn.query(`CREATE (:doc {id: 1, body: 'not json'})`)).rejects.toThrow(
      'Cannot convert not json to JSON.',
    );
    await conn.query(`CREATE (:doc {id: 1, body: to_json({tags: ['a', 'b']})})`);
    await conn.query('BEGIN TRANSACTION');
    await conn.query(`MATCH (d:doc) SET d.body = '{"tags": []}'`);
    await conn.query('ROLLBACK');
    await conn.query(`MATCH (d:doc) SET d.body = json_merge_patch(d.body, '{"n": 2}')`);
    db.close();
    db = new Database(path.join(dir, 'db'), { maxThreadNum: 1 });
    conn = db.connect();
    const r = await conn.query(`MATCH (d:doc) RETURN d.body, json_extract(d.body, 'tags/1')`);
    expect(r.rows).toEqual([['{"tags":["a","b"],"n":2}', '"b"']]);
    expect(r.types[0]).toBe('json');
  });

  it('writes and reads JSON files: COPY TO, LOAD FROM, COPY FROM', async () => {
    const out = path.join(dir, 'people.json');
    await conn.query(
      `COPY (UNWIND [1, 2] AS i RETURN i AS id, 'p' + string(i) AS name, [i, i] AS scores, date('2024-01-0' + string(i)) AS born) TO '${out}'`,
    );
    expect(readFileSync(out, 'utf8')).toBe(
      '[\n{"id":1,"name":"p1","scores":[1,1],"born":"2024-01-01"},\n{"id":2,"name":"p2","scores":[2,2],"born":"2024-01-02"}\n]\n',
    );
    const loaded = await conn.query(`LOAD FROM '${out}' RETURN *`);
    expect(loaded.columns).toEqual(['id', 'name', 'scores', 'born']);
    expect(loaded.rows).toEqual([
      [1, 'p1', [1, 1], '2024-01-01'],
      [2, 'p2', [2, 2], '2024-01-02'],
    ]);
    await conn.query('CREATE NODE TABLE person(id INT64, name STRING, born DATE, PRIMARY KEY(id))');
    await conn.query('CREATE REL TABLE knows(FROM person TO person, since INT64)');
    await conn.query(`COPY person FROM '${out}'`);
    const edges = path.join(dir, 'knows.ndjson');
    writeFileSync(edges, '{"from": 1, "to": 2, "since": 2020}\n{"FROM": 2, "TO": 1}\n');
    await conn.query(`COPY knows FROM '${edges}'`);
    const r = await conn.query(
      'MATCH (a:person)-[k:knows]->(b:person) RETURN a.name, b.name, k.since ORDER BY a.id',
    );
    expect(r.rows).toEqual([
      ['p1', 'p2', 2020],
      ['p2', 'p1', null],
    ]);
  });

  it('names the file, the line and the record of malformed JSON', async () => {
    const bad = path.join(dir, 'bad.json');
    writeFileSync(bad, '[\n{"a": 1},\n{"a": }\n]\n');
    await expect(conn.query(`LOAD FROM '${bad}' RETURN *`)).rejects.toThrow(
      /Error in file .*bad\.json on line 3: Malformed JSON: .*Line\/record containing the error: '\{"a": \}/,
    );
    await expect(conn.query(`LOAD FROM '${bad}' (format = 'yaml') RETURN *`)).rejects.toThrow(
      "Unsupported JSON format 'yaml'",
    );
  });
});
