// COMMENT ON TABLE, EXPLAIN LOGICAL and Kùzu's extension statements.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Database } from '../../src/index.js';
import { rejection } from '../runtime/helpers.js';

describe('COMMENT ON TABLE', () => {
  it('sets a table comment that show_tables shows and a reopen keeps', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'graphdb-comment-'));
    try {
      {
        using db = new Database(path.join(dir, 'db'));
        using conn = db.connect();
        await conn.query('CREATE NODE TABLE Person(id INT64, PRIMARY KEY(id))');
        await conn.query('CREATE REL TABLE Knows(FROM Person TO Person)');
        const added = await conn.query("COMMENT ON TABLE Person IS 'people we know'");
        expect(added.rows).toEqual([['Comment added to table Person.']]);
        await conn.query("comment on table Knows is 'who knows whom'");
        const rows = (await conn.query('CALL show_tables() RETURN name, comment ORDER BY name')).rows;
        expect(rows).toEqual([
          ['Knows', 'who knows whom'],
          ['Person', 'people we know'],
        ]);
        const missing = await rejection(conn.query("COMMENT ON TABLE Nope IS 'x'"));
        expect(missing.message).toContain('Nope');
        const syntax = await rejection(conn.query('COMMENT ON TABLE Person IS 42'));
        expect(syntax.code).toBe('QUERY_SYNTAX');
      }
      using db = new Database(path.join(dir, 'db'));
      using conn = db.connect();
      const rows = (await conn.query("CALL show_tables() WHERE name = 'Person' RETURN comment")).rows;
      expect(rows).toEqual([['people we know']]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('EXPLAIN LOGICAL', () => {
  it('shows the plan as EXPLAIN does', async () => {
    using db = new Database();
    using conn = db.connect();
    const plain = await conn.query('EXPLAIN RETURN 1');
    const logical = await conn.query('EXPLAIN LOGICAL RETURN 1');
    expect(logical.rows).toEqual(plain.rows);
    expect(logical.columns).toEqual(['explain']);
  });
});

describe('extension statements', () => {
  it('parse and answer NOT_SUPPORTED, changing nothing', async () => {
    using db = new Database();
    using conn = db.connect();
    for (const statement of [
      'INSTALL duckdb',
      'UNINSTALL spatial',
      'UPDATE neo4j',
      "FORCE INSTALL httpfs FROM 'http://x'",
    ]) {
      const error = await rejection(conn.query(statement));
      expect(error.code, statement).toBe('NOT_SUPPORTED');
      expect(error.message, statement).toContain('has no extension');
    }
    expect((await rejection(conn.query('INSTALL'))).code).toBe('QUERY_SYNTAX');
  });

  it('installing or loading a built-in one does nothing', async () => {
    using db = new Database();
    using conn = db.connect();
    for (const statement of [
      'INSTALL json',
      'LOAD EXTENSION json',
      'LOAD json',
      'load extension "extension/json/build/libjson.kuzu_extension"',
    ]) {
      const r = await conn.query(statement);
      expect(r.rows[0]?.[0], statement).toMatch(/^Extension json is built in/);
    }
    for (const statement of ['INSTALL fts', 'LOAD EXTENSION fts', 'LOAD algo']) {
      const r = await conn.query(statement);
      expect(r.rows[0]?.[0], statement).toMatch(/^Extension (fts|algo) is built in/);
    }
    expect((await rejection(conn.query('UNINSTALL json'))).code).toBe('NOT_SUPPORTED');
    // LOAD FROM still reads files.
    expect((await rejection(conn.query("LOAD FROM 'missing.csv' RETURN *"))).message).toContain(
      'missing.csv',
    );
  });
});
