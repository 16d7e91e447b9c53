import { spawnSync } from 'node:child_process';
import {
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { splitStatements } from '../../src/cli/script.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const bin = path.join(root, 'bin', 'quiverdb.js');

function graphdb(...args: string[]) {
  return spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', cwd: os.tmpdir() });
}

describe('quiverdb CLI', () => {
  it('lists every command in --help', () => {
    const r = graphdb('--help');
    expect(r.status).toBe(0);
    for (const command of ['serve', 'query', 'shell', 'import']) expect(r.stdout).toContain(command);
  });

  it('prints the package version with --version and -V', () => {
    const { version } = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as {
      version: string;
    };
    for (const flag of ['--version', '-V']) {
      const r = graphdb(flag);
      expect(r.status).toBe(0);
      expect(r.stdout).toBe(`${version}\n`);
    }
    expect(graphdb('--help').stdout).toContain('-V, --version');
  });

  it('prints a one-row table for RETURN 1 + 2 AS x', () => {
    const r = graphdb('query', ':memory:', 'RETURN 1 + 2 AS x');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/│ x │|\| x \|| x /);
    expect(r.stdout).toMatch(/ 3 /);
    expect(r.stdout).toContain('(1 row)');
  });

  it('supports --param and --format json and csv', () => {
    const json = graphdb(
      'query',
      ':memory:',
      'RETURN $a + 1 AS y, $s AS s',
      '--param',
      'a=41',
      '--param',
      's=hi',
      '--format',
      'json',
    );
    expect(json.status).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual([{ y: 42, s: 'hi' }]);
    const csv = graphdb('query', ':memory:', 'RETURN "a,b" AS s, 2 AS n', '--format', 'csv');
    expect(csv.stdout.trim()).toBe('s,n\n"a,b",2');
  });

  it('exits non-zero with the error code on stderr for a bad query', () => {
    const r = graphdb('query', ':memory:', 'RETURN (');
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain('QUERY_SYNTAX');
  });

  it('rejects malformed options', () => {
    expect(graphdb('query', ':memory:', 'RETURN 1', '--param', 'novalue').stderr).toMatch(/name=value/);
    expect(graphdb('query', ':memory:', 'RETURN 1', '--format', 'xml').status).not.toBe(0);
    expect(graphdb('query').status).not.toBe(0);
    expect(graphdb('nosuchcommand').status).not.toBe(0);
  });

  it('refuses `query DB_DIR` without query text, with usage help, creating nothing', () => {
    const cwd = mkdtempSync(path.join(os.tmpdir(), 'graphdb-cli-cwd-'));
    try {
      for (const args of [[':memory:'], [cwd]]) {
        const r = spawnSync(process.execPath, [bin, 'query', ...args], { encoding: 'utf8', cwd });
        expect(r.status, r.stderr).toBe(1);
        expect(r.stderr).toContain('names a database, but the query text is missing');
        expect(r.stderr).toContain('Usage: quiverdb query');
        expect(readdirSync(cwd)).toEqual([]); // no ./quiverdb-data
      }
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  });

  it('ends in CORRUPTION, not an abort, when a data file is padded to 100 GB', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'graphdb-cli-huge-'));
    try {
      const created = graphdb('query', dir, 'CREATE NODE TABLE P(id INT64, PRIMARY KEY(id))');
      expect(created.status, created.stderr).toBe(0);
      const data = readdirSync(dir).filter((name) => /^(node|catalog)-.*\.gdb$/.test(name));
      expect(data.length).toBeGreaterThanOrEqual(2);
      for (const name of data) {
        const file = path.join(dir, name);
        const size = statSync(file).size;
        truncateSync(file, 100 * 2 ** 30); // sparse
        const r = graphdb('query', dir, 'MATCH (p:P) RETURN count(p)');
        expect(r.signal, r.stderr).toBeNull();
        expect(r.status, r.stderr).toBe(1);
        expect(r.stderr).toContain('CORRUPTION');
        expect(r.stderr).toContain(name);
        truncateSync(file, size);
      }
      expect(graphdb('query', dir, 'MATCH (p:P) RETURN count(p)').status).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('runs a script with import, printing the rows its statements return', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'graphdb-cli-'));
    const file = path.join(dir, 'script.cypher');
    writeFileSync(
      file,
      'CREATE NODE TABLE P(id INT64, PRIMARY KEY(id));\nCREATE (:P {id: 7});\n// comment; with semicolon\nMATCH (p:P) RETURN p.id AS found, "x;y" AS s;\n',
    );
    const r = graphdb('import', ':memory:', file);
    expect(r.status).toBe(0);
    expect(r.stderr).toContain('imported 3 statements');
    expect(r.stderr).toContain('Table P has been created.');
    expect(r.stdout).toMatch(/found[\s\S]*7 .*x;y/);
    expect(r.stdout).not.toContain('Table P');
    rmSync(dir, { recursive: true, force: true });
  });

  it('says when it creates the default folder ./quiverdb-data, and opens ./graphdb-data when only that is there', () => {
    const cwd = mkdtempSync(path.join(os.tmpdir(), 'graphdb-cli-cwd-'));
    const query = (text: string) =>
      spawnSync(process.execPath, [bin, 'query', text], { encoding: 'utf8', cwd });
    try {
      const created = query('CREATE NODE TABLE P(id INT64, PRIMARY KEY(id))');
      expect(created.status, created.stderr).toBe(0);
      expect(created.stderr).toContain(`creating the database folder ${path.join(cwd, 'quiverdb-data')}`);
      expect(readdirSync(cwd)).toEqual(['quiverdb-data']);
      const again = query('MATCH (p:P) RETURN count(p)');
      expect(again.stderr).toBe('');
      renameSync(path.join(cwd, 'quiverdb-data'), path.join(cwd, 'graphdb-data'));
      const legacy = query('MATCH (p:P) RETURN count(p) AS n');
      expect(legacy.status, legacy.stderr).toBe(0);
      expect(legacy.stderr).toBe('');
      expect(readdirSync(cwd)).toEqual(['graphdb-data']);
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  });
});

describe('splitStatements', () => {
  it('splits on top-level semicolons only', () => {
    expect(splitStatements("RETURN 'a;b'; /* x; */ RETURN `c;d`;\n// e;\nRETURN 1")).toEqual([
      "RETURN 'a;b'",
      'RETURN `c;d`',
      'RETURN 1',
    ]);
  });
});
