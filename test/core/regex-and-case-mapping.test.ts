// Regular expressions and Unicode case mapping: the engine is linear in the text with a bounded
// stack (long strings once crashed std::regex), matches code points, takes RE2's inline flags;
// upper/lower use Unicode's simple case mappings.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Connection, Database, GraphDBError } from '../../src/index.js';

const here = path.dirname(fileURLToPath(import.meta.url));

let db: Database;
let conn: Connection;

beforeEach(() => {
  db = new Database(':memory:', { maxThreadNum: 2 });
  conn = db.connect();
});

afterEach(() => {
  db.close();
});

/** The first cell of the query's first row. */
const one = (query: string, params?: Record<string, unknown>) => conn.querySync(query, params).rows[0]?.[0];

describe('regular expressions', () => {
  it('matches long strings without recursion per character', () => {
    expect(one("RETURN repeat('a', 30000) =~ '.*' AS x")).toBe(true);
    expect(one("RETURN repeat('a', 30000) =~ 'a*' AS x")).toBe(true);
    expect(one("RETURN repeat('a', 30000) =~ '(a|b)*' AS x")).toBe(true);
    expect(one("RETURN repeat('ab', 100000) =~ '(?:ab)+' AS x")).toBe(true);
    expect(one("RETURN regexp_matches(repeat('a', 30000), '.*b') AS x")).toBe(false);
    expect(one("RETURN regexp_matches(repeat('a', 100000), '(a*)*b') AS x")).toBe(false);
    expect(one("RETURN size(regexp_replace(repeat('a', 30000), '.', 'xy', 'g')) AS x")).toBe(60000);
    expect(one("RETURN regexp_replace(repeat('a', 30000), '.*', 'x') AS x")).toBe('x');
    expect(one("RETURN size(regexp_extract_all(repeat('ab', 30000), 'b')) AS x")).toBe(30000);
    expect(one("RETURN size(regexp_split_to_array(repeat('a,', 30000), ',')) AS x")).toBe(30000);
    expect(one("RETURN regexp_extract(concat(repeat('a', 30000), 'b'), 'a*b') AS x")).toHaveLength(30001);
  });

  it('filters a stored 50 KB string property', () => {
    conn.querySync('CREATE NODE TABLE Doc(id INT64, body STRING, PRIMARY KEY(id))');
    conn.querySync('CREATE (:Doc {id: 1, body: $b})', { b: `x${'y'.repeat(50000)}` });
    conn.querySync('CREATE (:Doc {id: 2, body: $b})', { b: `${'y'.repeat(50000)}x` });
    conn.querySync('CREATE (:Doc {id: 3, body: $b})', { b: `x${'y\n'.repeat(25000)}` });
    const ids = (where: string) =>
      conn.querySync(`MATCH (d:Doc) WHERE ${where} RETURN d.id ORDER BY d.id`).rows.map((r) => r[0]);
    expect(ids("d.body =~ 'x.*'")).toEqual([1]);
    expect(ids("d.body =~ '(?s)x.*'")).toEqual([1, 3]);
    expect(ids("d.body =~ '.*x'")).toEqual([2]);
    expect(ids("regexp_matches(d.body, 'x')")).toEqual([1, 2, 3]);
    expect(ids("regexp_matches(d.body, '^x')")).toEqual([1, 3]);
    expect(ids("size(regexp_replace(d.body, 'y', '', 'g')) = 1")).toEqual([1, 2]);
  });

  it('matches characters, not bytes', () => {
    expect(one("RETURN '李' =~ '.' AS x")).toBe(true);
    expect(one("RETURN '李雷' =~ '..' AS x")).toBe(true);
    expect(one("RETURN '😀' =~ '.' AS x")).toBe(true);
    expect(one("RETURN 'é' =~ '[é]' AS x")).toBe(true);
    // Without 'g' only the first match is replaced (Kùzu's and RE2's Replace).
    expect(one("RETURN regexp_replace('李雷', '.', 'x') AS x")).toBe('x雷');
    expect(one("RETURN regexp_replace('李雷', '.', 'x', 'g') AS x")).toBe('xx');
    expect(one("RETURN regexp_replace('李雷', '', '-', 'g') AS x")).toBe('-李-雷-');
    expect(one("RETURN regexp_extract_all('李雷😀', '.') AS x")).toEqual(['李', '雷', '😀']);
    expect(one("RETURN regexp_split_to_array('李,雷', ',') AS x")).toEqual(['李', '雷']);
  });

  it('takes inline flags', () => {
    expect(one("RETURN 'Ann' =~ '(?i)ann' AS x")).toBe(true);
    expect(one("RETURN 'Ann' =~ 'ann' AS x")).toBe(false);
    expect(one("RETURN 'ANN' =~ '(?i:a)nn' AS x")).toBe(false);
    expect(one("RETURN 'aNN' =~ 'a(?i)nn' AS x")).toBe(true);
    expect(one("RETURN 'ΣΊΣΥΦΟΣ' =~ '(?i)σίσυφος' AS x")).toBe(true);
    expect(one("RETURN regexp_matches('a\\nb', '(?m)^b$') AS x")).toBe(true);
    expect(one("RETURN regexp_matches('a\\nb', '^b$') AS x")).toBe(false);
    expect(one("RETURN 'a\\nb' =~ '(?s)a.b' AS x")).toBe(true);
    expect(one("RETURN regexp_extract('aaa', '(?U)a+') AS x")).toBe('a');
  });

  it('reports invalid patterns as QUERY_RUNTIME errors naming the problem', () => {
    const error = (query: string) => {
      try {
        conn.querySync(query);
      } catch (e) {
        expect(e).toBeInstanceOf(GraphDBError);
        return `${(e as GraphDBError).code}: ${(e as GraphDBError).message}`;
      }
      return 'no error';
    };
    expect(error("RETURN 'a' =~ '(a' AS x")).toMatch(
      /^QUERY_RUNTIME: .*Invalid regular expression '\(a': missing \) to close the group/,
    );
    expect(error("RETURN 'a' =~ 'a{1001}' AS x")).toMatch(/counts are at most 1000/);
    expect(error("RETURN 'a' =~ '(?:a{1000}){1000}' AS x")).toMatch(/the pattern is too large/);
    expect(error("RETURN regexp_matches('a', '(a)\\\\1') AS x")).toMatch(/backreferences are not supported/);
    expect(error(`RETURN 'a' =~ '${'('.repeat(5000)}' AS x`)).toMatch(/levels deep/);
    expect(error("RETURN regexp_replace('a', 'a', '\\\\1') AS x")).toMatch(/refers to group \\1/);
    // The connection goes on working.
    expect(one("RETURN 'ok' =~ 'o.' AS x")).toBe(true);
  });

  it('survives generated patterns on long inputs (fuzz, in a child process)', () => {
    const seed = String(Date.now() % 100000);
    const child = spawnSync(
      process.execPath,
      [path.join(here, 'fixtures', 'regex-fuzz.mjs'), '--seed', seed, '--ms', '2500'],
      { encoding: 'utf8', timeout: 60_000 },
    );
    const context = `seed ${seed}: ${child.stderr}`;
    expect(child.signal, context).toBeNull();
    expect(child.status, context).toBe(0);
    const counts = JSON.parse(child.stdout.trim().split('\n').pop() ?? '{}');
    expect(counts.queries).toBeGreaterThan(20);
    expect(counts.invalid).toBeGreaterThan(0);
  }, 90_000);
});

describe('Unicode case mapping', () => {
  it('uses the simple case mappings of every script', () => {
    expect(one("RETURN upper('ǆ') AS x")).toBe('Ǆ');
    expect(one("RETURN lower('Ǆ') AS x")).toBe('ǆ');
    // The simple lowercase of U+0130 is U+0069 'i' (the full mapping adds U+0307), never 'ı'.
    expect(one("RETURN lower('İ') AS x")).toBe('i');
    expect(one("RETURN lower('İSTANBUL') AS x")).toBe('istanbul');
    expect(one("RETURN upper('straße') AS x")).toBe('STRAßE');
    expect(one("RETURN upper('σίσυφος') AS x")).toBe('ΣΊΣΥΦΟΣ'); // Greek
    expect(one("RETURN lower('ΣΊΣΥΦΟΣ') AS x")).toBe('σίσυφοσ'); // simple: no final-sigma rule
    expect(one("RETURN upper('привет, ёж') AS x")).toBe('ПРИВЕТ, ЁЖ'); // Cyrillic
    expect(one("RETURN lower('ԲԱՐԵՒ') AS x")).toBe('բարեւ'); // Armenian
    expect(one("RETURN upper('ქართული') AS x")).toBe('ᲥᲐᲠᲗᲣᲚᲘ'); // Georgian
    expect(one("RETURN lower('𐐀𐐁𐐂') AS x")).toBe('𐐨𐐩𐐪'); // Deseret
    expect(one("RETURN upper('𐐨𐐩𐐪') AS x")).toBe('𐐀𐐁𐐂');
    expect(one("RETURN upper('李雷 😀 123') AS x")).toBe('李雷 😀 123');
    expect(one("RETURN initcap('ǆEMAL') AS x")).toBe('ǅemal');
    expect(one("RETURN toUpper('ⱥ') AS x")).toBe('Ⱥ');
  });
});
