// COPY FROM / LOAD FROM CSV options: dialect sniffing, IGNORE_ERRORS with the connection's
// warnings (show_warnings, clear_warnings, warning_limit).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Database } from '../../src/index.js';
import { rejection } from '../runtime/helpers.js';

let dir: string;
const file = (name: string, text: string): string => {
  const p = path.join(dir, name);
  fs.writeFileSync(p, text);
  return p;
};

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'graphdb-copy-options-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('IGNORE_ERRORS', () => {
  it('skips bad records and lists them in show_warnings until clear_warnings', async () => {
    const csv = file('people.csv', 'id,age\n1,20\n2,2147483650\n3,x\n4\n5,"a"b\n6,60\n');
    using db = new Database(path.join(dir, 'db1'));
    using conn = db.connect();
    await conn.query('CREATE NODE TABLE P(id INT64, age INT32, PRIMARY KEY(id))');
    const failed = await rejection(conn.query(`COPY P FROM '${csv}' (header=true)`));
    expect(failed.message).toContain(
      `Error in file ${csv} on line 3: Conversion exception: Cast failed. Could not convert "2147483650" to INT32. Line/record containing the error: '2,2147483650'`,
    );
    const copied = await conn.query(`COPY P FROM '${csv}' (header=true, ignore_errors=true)`);
    expect(copied.rows[0]).toEqual(['2 tuples have been copied to the P table.']);
    expect(String(copied.rows[1]?.[0])).toMatch(
      /^4 warnings encountered during copy\. Use 'CALL show_warnings\(\) RETURN \*' to view the actual warnings\. Query ID: \d+$/,
    );
    expect((await conn.query('MATCH (p:P) RETURN p.id, p.age ORDER BY p.id')).rows).toEqual([
      [1, 20],
      [6, 60],
    ]);
    const warnings = await conn.query(
      'CALL show_warnings() RETURN message, line_number, skipped_line_or_record ORDER BY line_number',
    );
    expect(warnings.rows).toEqual([
      ['Conversion exception: Cast failed. Could not convert "2147483650" to INT32.', 3, '2,2147483650'],
      ['Conversion exception: Cast failed. Could not convert "x" to INT32.', 4, '3,x'],
      ['expected 2 values per row, but got 1.', 5, '4'],
      ['quote should be followed by end of file, end of value, end of row or another quote.', 6, '5,"a"...'],
    ]);
    // Another connection has its own warnings.
    using other = db.connect();
    expect((await other.query('CALL show_warnings() RETURN *')).rows).toEqual([]);
    await conn.query('CALL clear_warnings()');
    expect((await conn.query('CALL show_warnings() RETURN *')).rows).toEqual([]);
  });

  it('keeps at most warning_limit warnings but counts them all, and works for LOAD FROM', async () => {
    const csv = file('bad.csv', 'a\nb\n1\nc\n');
    using db = new Database(path.join(dir, 'db2'));
    using conn = db.connect();
    await conn.query('CREATE NODE TABLE N(id INT64, PRIMARY KEY(id))');
    await conn.query('CALL warning_limit=2');
    const copied = await conn.query(`COPY N FROM '${csv}' (header=false, ignore_errors=true)`);
    expect(String(copied.rows[1]?.[0])).toMatch(/^3 warnings encountered/);
    expect((await conn.query('CALL show_warnings() RETURN count(*)')).rows).toEqual([[2]]);
    await conn.query('CALL clear_warnings()');
    const loaded = await conn.query(
      `LOAD WITH HEADERS (v INT64) FROM '${csv}' (ignore_errors=true) RETURN v`,
    );
    expect(loaded.rows).toEqual([[1]]);
    // Without a header option, a first record that does not convert to the INT64 column ('a')
    // is taken for a header, as Kùzu's sniffer does: the bad records are lines 2 and 4.
    expect((await conn.query('CALL show_warnings() RETURN line_number')).rows).toEqual([[2], [4]]);
    // 1 and 0 stand for TRUE and FALSE, as in Kùzu's (HEADER 1); other values are refused.
    const bad = await rejection(conn.query(`COPY N FROM '${csv}' (ignore_errors=2)`));
    expect(bad.message).toContain('IGNORE_ERRORS must be BOOL');
  });
});

describe('IGNORE_ERRORS and keys', () => {
  it('skips NULL and duplicate keys and rels whose ends are missing, with warnings', async () => {
    const people = file('keys.csv', '1,a\n2,b\n1,c\n,d\n3,e\n');
    const knows = file('knows.csv', '1,2\n1,9\n7,3\n2,3\n');
    using db = new Database(path.join(dir, 'db5'));
    using conn = db.connect();
    await conn.query('CREATE NODE TABLE K(id INT64, s STRING, PRIMARY KEY(id))');
    await conn.query('CREATE REL TABLE R(FROM K TO K)');
    const failed = await rejection(conn.query(`COPY K FROM '${people}'`));
    expect(failed.message).toContain('Found NULL, which violates the non-null constraint');
    const copied = await conn.query(`COPY K FROM '${people}' (ignore_errors=true)`);
    expect(copied.rows[0]).toEqual(['3 tuples have been copied to the K table.']);
    const rels = await conn.query(`COPY R FROM '${knows}' (ignore_errors=true)`);
    expect(rels.rows[0]).toEqual(['2 tuples have been copied to the R table.']);
    // A query's rows: the key 3 is taken, 4 is new.
    const query = await conn.query('COPY K FROM (UNWIND [3, 4] AS i RETURN i, "q") (ignore_errors=true)');
    expect(query.rows[0]).toEqual(['1 tuples have been copied to the K table.']);
    const warnings = await conn.query(
      'CALL show_warnings() RETURN message, file_path <> "", line_number, skipped_line_or_record',
    );
    expect(warnings.rows).toEqual([
      [
        'Found duplicated primary key value 1, which violates the uniqueness constraint of the primary key column.',
        true,
        3,
        '1,c',
      ],
      ['Found NULL, which violates the non-null constraint of the primary key column.', true, 4, ',d'],
      ['Unable to find primary key value 9.', true, 2, '1,9'],
      ['Unable to find primary key value 7.', true, 3, '7,3'],
      [
        'Found duplicated primary key value 3, which violates the uniqueness constraint of the primary key column.',
        false,
        0,
        '',
      ],
    ]);
    expect((await conn.query('MATCH (a:K)-[:R]->(b:K) RETURN a.id, b.id ORDER BY a.id')).rows).toEqual([
      [1, 2],
      [2, 3],
    ]);
  });
});

describe('COPY with a column list', () => {
  it('fills the listed properties and gives the others their defaults', async () => {
    const nodes = file('list-nodes.csv', 'x,1\ny,2\n');
    const rels = file('list-rels.csv', '1,2,hello\n');
    using db = new Database(path.join(dir, 'db6'));
    using conn = db.connect();
    await conn.query('CREATE SEQUENCE seq');
    await conn.query(
      "CREATE NODE TABLE L(id INT64 DEFAULT nextval('seq'), name STRING, n INT64, tag STRING DEFAULT 'none', PRIMARY KEY(id))",
    );
    await conn.query('CREATE REL TABLE E(FROM L TO L, w DOUBLE DEFAULT 1.5, note STRING)');
    await conn.query(`COPY L (name, n) FROM '${nodes}'`);
    expect((await conn.query('MATCH (l:L) RETURN l.id, l.name, l.n, l.tag ORDER BY l.id')).rows).toEqual([
      [1, 'x', 1, 'none'],
      [2, 'y', 2, 'none'],
    ]);
    await conn.query(`COPY E (note) FROM '${rels}'`);
    expect((await conn.query('MATCH ()-[e:E]->() RETURN e.w, e.note')).rows).toEqual([[1.5, 'hello']]);
    await conn.query('COPY E () FROM (RETURN 2, 1)');
    expect((await conn.query('MATCH (:L {id: 2})-[e:E]->() RETURN e.w, e.note')).rows).toEqual([[1.5, null]]);
    const unknown = await rejection(conn.query(`COPY L (name, nope) FROM '${nodes}'`));
    expect(unknown.message).toBe('Binder exception: Table L does not contain column nope.');
    const width = await rejection(conn.query(`COPY L (name) FROM '${nodes}' (delim=',')`));
    expect(width.message).toContain('expected 1 values per row, but got 2');
  });
});

// A version-1 .npy file (little-endian int64 or float64 values).
function npy(name: string, descr: '<i8' | '<f8', shape: number[], values: number[]): string {
  let header = `{'descr': '${descr}', 'fortran_order': False, 'shape': (${shape.join(', ')},), }`;
  while ((10 + header.length + 1) % 64 !== 0) header += ' ';
  header += '\n';
  const data = Buffer.alloc(values.length * 8);
  values.forEach((v, i) => {
    if (descr === '<i8') data.writeBigInt64LE(BigInt(v), i * 8);
    else data.writeDoubleLE(v, i * 8);
  });
  const prefix = Buffer.from([0x93, ...Buffer.from('NUMPY'), 1, 0, header.length & 0xff, header.length >> 8]);
  const p = path.join(dir, name);
  fs.writeFileSync(p, Buffer.concat([prefix, Buffer.from(header), data]));
  return p;
}

describe('NPY files', () => {
  it('COPY ... BY COLUMN reads one array per property; LOAD FROM reads one', async () => {
    const ids = npy('ids.npy', '<i8', [3], [1, 2, 3]);
    const vecs = npy('vecs.npy', '<f8', [3, 2], [1, 2, 3, 4, 5, 6]);
    using db = new Database(path.join(dir, 'db7'));
    using conn = db.connect();
    await conn.query('CREATE NODE TABLE V(id INT64, v DOUBLE[2], PRIMARY KEY(id))');
    const copied = await conn.query(`COPY V FROM ("${ids}", "${vecs}") BY COLUMN`);
    expect(copied.rows).toEqual([['3 tuples have been copied to the V table.']]);
    expect((await conn.query('MATCH (n:V) RETURN n.id, n.v ORDER BY n.id')).rows).toEqual([
      [1, [1, 2]],
      [2, [3, 4]],
      [3, [5, 6]],
    ]);
    expect((await conn.query(`LOAD FROM '${vecs}' RETURN column0`)).rows).toEqual([
      [[1, 2]],
      [[3, 4]],
      [[5, 6]],
    ]);
    const renamed = path.join(dir, 'ids.bin');
    fs.copyFileSync(ids, renamed);
    expect((await conn.query(`LOAD FROM '${renamed}' (file_format='npy') RETURN sum(column0)`)).rows).toEqual(
      [[6]],
    );
    const count = await rejection(conn.query(`COPY V FROM ("${ids}") BY COLUMN`));
    expect(count.message).toBe('Binder exception: Number of columns mismatch. Expected 2 but got 1.');
    const options = await rejection(conn.query(`COPY V FROM ("${ids}", "${vecs}") BY COLUMN (header=true)`));
    expect(options.message).toContain('cannot have options other than IGNORE_ERRORS');
  });

  it('IGNORE_ERRORS skips the rows whose key is taken, each with a warning', async () => {
    const ids = npy('dup-ids.npy', '<i8', [3], [1, 2, 1]);
    using db = new Database(path.join(dir, 'db-npy-ignore'));
    using conn = db.connect();
    await conn.query('CREATE NODE TABLE N(id INT64, PRIMARY KEY(id))');
    const failed = await rejection(conn.query(`COPY N FROM ["${ids}"]`));
    expect(failed.message).toContain('Found duplicated primary key value 1');
    const copied = await conn.query(`COPY N FROM ["${ids}"] (IGNORE_ERRORS=true)`);
    expect(copied.rows[0]).toEqual(['2 tuples have been copied to the N table.']);
    expect((await conn.query('MATCH (n:N) RETURN n.id ORDER BY n.id')).rows).toEqual([[1], [2]]);
    expect((await conn.query('CALL show_warnings() RETURN message')).rows).toEqual([
      [
        'Found duplicated primary key value 1, which violates the uniqueness constraint of the primary key column.',
      ],
    ]);
  });
});

describe('gzip-compressed CSV', () => {
  it('COPY FROM and LOAD FROM read .csv.gz files, members one after another', async () => {
    const gz = path.join(dir, 'people.csv.gz');
    fs.writeFileSync(gz, Buffer.concat([zlib.gzipSync('1,ann\n2,bob\n'), zlib.gzipSync('3,cy\n')]));
    using db = new Database(path.join(dir, 'db8'));
    using conn = db.connect();
    await conn.query('CREATE NODE TABLE G(id INT64, name STRING, PRIMARY KEY(id))');
    await conn.query(`COPY G FROM '${gz}'`);
    expect((await conn.query('MATCH (g:G) RETURN g.name ORDER BY g.id')).rows).toEqual([
      ['ann'],
      ['bob'],
      ['cy'],
    ]);
    expect((await conn.query(`LOAD FROM '${gz}' RETURN count(*)`)).rows).toEqual([[3]]);
    // A glob: the files of the folder that match, in name order.
    fs.writeFileSync(path.join(dir, 'more-a.csv.gz'), zlib.gzipSync('1,x\n'));
    fs.writeFileSync(path.join(dir, 'more-b.csv.gz'), zlib.gzipSync('2,y\n'));
    expect((await conn.query(`LOAD FROM '${dir}/more-?.csv.gz' RETURN column1`)).rows).toEqual([
      ['x'],
      ['y'],
    ]);
    const none = await rejection(conn.query(`LOAD FROM '${dir}/nothing*.csv' RETURN *`));
    expect(none.message).toBe(
      `Binder exception: No file found that matches the pattern: ${dir}/nothing*.csv.`,
    );
    const fake = file('fake.csv.gz', '1,ann\n');
    const notGzip = await rejection(conn.query(`LOAD FROM '${fake}' RETURN *`));
    expect(notGzip.message).toBe('IO exception: Input is not a GZIP stream.');
  });
});

describe('COPY FROM a query', () => {
  it('leaves SERIAL properties to draw fresh values when the query omits them', async () => {
    using db = new Database(path.join(dir, 'db10'));
    using conn = db.connect();
    await conn.query('CREATE NODE TABLE S(num UINT64, id SERIAL PRIMARY KEY)');
    await conn.query('COPY S FROM (UNWIND range(5, 7) AS n RETURN n)');
    expect((await conn.query('MATCH (s:S) RETURN s.id, s.num ORDER BY s.id')).rows).toEqual([
      [0, 5],
      [1, 6],
      [2, 7],
    ]);
    await conn.query('COPY S FROM (RETURN 9, 10)'); // every property given
    expect((await conn.query('MATCH (s:S) WHERE s.num = 9 RETURN s.id')).rows).toEqual([[10]]);
    const width = await rejection(conn.query('COPY S FROM (RETURN 1, 2, 3)'));
    expect(width.message).toBe('Binder exception: Table S has 2 columns but the query returns 3.');
  });
});

describe('COPY TO', () => {
  it('writes with DELIM, QUOTE and ESCAPE, and LOAD FROM reads it back', async () => {
    using db = new Database(path.join(dir, 'db11'));
    using conn = db.connect();
    const out = path.join(dir, 'out.csv');
    await conn.query(
      `COPY (RETURN 100, 'kuzu is # a |graph database') TO '${out}' (delim = '|', QUOTE = '#', escape = '!')`,
    );
    expect(fs.readFileSync(out, 'utf8')).toBe('100|#kuzu is !# a |graph database#\n');
    const back = await conn.query(`LOAD FROM '${out}' (delim = '|', quote = '#', escape = '!') RETURN *`);
    expect(back.rows).toEqual([[100, 'kuzu is # a |graph database']]);
    const plain = path.join(dir, 'plain.csv');
    await conn.query(`COPY (RETURN 'say "hi"', 'a,b') TO '${plain}'`);
    expect(fs.readFileSync(plain, 'utf8')).toBe('"say ""hi""","a,b"\n');
    const bad = await rejection(conn.query(`COPY (RETURN 1) TO '${plain}' (quote = 'ab')`));
    expect(bad.message).toContain('must be a single character');
  });

  it('writes nodes, rels and paths as Kùzu does: structs with every property', async () => {
    using db = new Database(path.join(dir, 'db12'));
    using conn = db.connect();
    await conn.query('CREATE NODE TABLE N(id INT64 PRIMARY KEY, x DOUBLE)');
    await conn.query('CREATE REL TABLE R(FROM N TO N, w INT64, note STRING)');
    await conn.query('CREATE (:N {id: 1, x: 0.5})-[:R {w: 7}]->(:N {id: 2})');
    const out = path.join(dir, 'graph.csv');
    await conn.query(`COPY (MATCH p = (a:N)-[r:R]->(b) RETURN a, r, p) TO '${out}'`);
    const node = '{_ID: 0:0, _LABEL: N, id: 1, x: 0.500000}';
    const rel = '{_SRC: 0:0, _DST: 0:1, _LABEL: R, _ID: 1:0, w: 7, note: }';
    const nodes = `[${node},{_ID: 0:1, _LABEL: N, id: 2, x: }]`;
    const back = await conn.query(`LOAD WITH HEADERS (a STRING, r STRING, p STRING) FROM '${out}' RETURN *`);
    expect(back.rows).toEqual([[node, rel, `{_NODES: ${nodes}, _RELS: [${rel}]}`]]);
  });
});

describe('PARALLEL', () => {
  it('refuses quoted line breaks unless PARALLEL=FALSE, as Kùzu does', async () => {
    const csv = file('multiline.csv', '1,"two\nlines"\n2,one\n');
    using db = new Database(path.join(dir, 'db4'));
    using conn = db.connect();
    await conn.query('CREATE NODE TABLE M(id INT64, s STRING, PRIMARY KEY(id))');
    const refused = await rejection(conn.query(`COPY M FROM '${csv}'`));
    expect(refused.message).toContain(
      'on line 1: Quoted newlines are not supported in parallel CSV reader. Please specify PARALLEL=FALSE in the options.',
    );
    await conn.query(`COPY M FROM '${csv}' (parallel=false)`);
    expect((await conn.query('MATCH (m:M) RETURN m.s ORDER BY m.id')).rows).toEqual([
      ['two\nlines'],
      ['one'],
    ]);
  });
});

describe('LOAD FROM headers and sniffing', () => {
  it('reads typed headers and sniffs types from SAMPLE_SIZE records', async () => {
    const typed = file('typed.csv', 'name,age:UINT64,height:INT64\nAlice,12,144\n');
    const late = file('late.csv', 'a\n1\n2\nx\n');
    using db = new Database(path.join(dir, 'db9'));
    using conn = db.connect();
    const rows = await conn.query(`LOAD FROM '${typed}' (header=true) RETURN name, age + 1, height & 3`);
    expect(rows.rows).toEqual([['Alice', 13, 0]]);
    // Sniffed from the first two data records: INT64, and the third does not convert.
    const failed = await rejection(conn.query(`LOAD FROM '${late}' (header=true, sample_size=2) RETURN *`));
    expect(failed.message).toContain('Could not convert "x" to INT64');
    expect((await conn.query(`LOAD FROM '${late}' (header=true) RETURN count(*)`)).rows).toEqual([[3]]);
  });
});

describe('dialect sniffing', () => {
  it('reads tab, pipe and single-quoted files without options', async () => {
    const tab = file('tab.csv', 'a\tb\nc\td\n');
    const pipe = file('pipe.csv', "x|y\n1|'p|q'\n");
    using db = new Database(path.join(dir, 'db3'));
    using conn = db.connect();
    await conn.query('CREATE NODE TABLE T(a STRING, b STRING, PRIMARY KEY(a))');
    await conn.query(`COPY T FROM '${tab}'`);
    expect((await conn.query('MATCH (t:T) RETURN t.a, t.b ORDER BY t.a')).rows).toEqual([
      ['a', 'b'],
      ['c', 'd'],
    ]);
    expect((await conn.query(`LOAD FROM '${pipe}' RETURN *`)).rows).toEqual([[1, 'p|q']]);
    // Sniffing off: the file is one column.
    const off = await rejection(conn.query(`COPY T FROM '${tab}' (auto_detect=false)`));
    expect(off.message).toContain('expected 2 values per row, but got 1');
  });
});

describe('COPY counters', () => {
  it('count the rows copied as nodes or relationships created, in and out of a transaction', async () => {
    const people = file('counted-people.csv', 'id\n1\n2\n3\n');
    const knows = file('counted-knows.csv', '1,2\n2,3\n');
    using db = new Database(path.join(dir, 'counters'));
    using conn = db.connect();
    await conn.query('CREATE NODE TABLE P(id INT64, PRIMARY KEY(id))');
    await conn.query('CREATE REL TABLE K(FROM P TO P)');
    const nodes = await conn.query(`COPY P FROM '${people}' (header=true)`);
    expect(nodes.summary.counters).toMatchObject({ nodesCreated: 3, relationshipsCreated: 0 });
    await conn.query('BEGIN TRANSACTION');
    const rels = await conn.query(`COPY K FROM '${knows}'`);
    await conn.query('COMMIT');
    expect(rels.summary.counters).toMatchObject({ nodesCreated: 0, relationshipsCreated: 2 });
    await conn.query('CREATE NODE TABLE Q(id INT64, PRIMARY KEY(id))');
    const fromQuery = await conn.query('COPY Q FROM (MATCH (p:P) WHERE p.id > 1 RETURN p.id)');
    expect(fromQuery.summary.counters.nodesCreated).toBe(2);
  });
});

describe('COPY FROM a table function', () => {
  it('copies the rows of the call, and takes no options', async () => {
    using db = new Database(path.join(dir, 'db-table-function'));
    using conn = db.connect();
    await conn.query('CREATE NODE TABLE P(id INT64, name STRING, PRIMARY KEY(id))');
    await conn.query(
      'CREATE NODE TABLE Info(rowid SERIAL, id INT64, name STRING, type STRING, dflt STRING, pk BOOL, PRIMARY KEY(rowid))',
    );
    await conn.query("COPY Info FROM table_info('P')");
    expect(
      (await conn.query('MATCH (i:Info) RETURN i.rowid, i.id, i.name, i.type, i.pk ORDER BY i.rowid')).rows,
    ).toEqual([
      [0, 0, 'id', 'INT64', true],
      [1, 1, 'name', 'STRING', false],
    ]);
    const failed = await rejection(conn.query("COPY Info FROM table_info('P') (header=true)"));
    expect(failed.message).toContain('No option is supported when copying from table functions.');
  });
});

describe('COPY into a table whose only column is SERIAL', () => {
  it('adds a row per record and reads none of its fields', async () => {
    const csv = file('serial-only.csv', '7,a\n8,b\n9,c\n');
    using db = new Database(path.join(dir, 'db-serial-only'));
    using conn = db.connect();
    await conn.query('CREATE NODE TABLE S(id SERIAL, PRIMARY KEY(id))');
    const copied = await conn.query(`COPY S FROM '${csv}'`);
    expect(copied.rows[0]).toEqual(['3 tuples have been copied to the S table.']);
    expect((await conn.query('MATCH (s:S) RETURN s.id ORDER BY s.id')).rows).toEqual([[0], [1], [2]]);
  });
});

describe('MAP keys read from a file', () => {
  it('refuse a key twice or a NULL key, as Kùzu does', async () => {
    const dup = file('dup-map.csv', '1,"{a=1,b=2}"\n2,"{a=1,a=2}"\n');
    const nul = file('null-map.csv', '1,"{=1,b=2}"\n');
    using db = new Database(path.join(dir, 'db-map-keys'));
    using conn = db.connect();
    await conn.query('CREATE NODE TABLE M(id INT64, m MAP(STRING, INT64), PRIMARY KEY(id))');
    const twice = await rejection(conn.query(`COPY M FROM '${dup}'`));
    expect(twice.message).toBe(
      `Copy exception: Error in file ${dup} on line 2: Conversion exception: Map does not allow duplicate keys. Line/record containing the error: '2,"{a=1,a=2}"'`,
    );
    const none = await rejection(
      conn.query(`LOAD WITH HEADERS (id INT64, m MAP(STRING, INT64)) FROM '${nul}' RETURN *`),
    );
    expect(none.message).toContain('Conversion exception: Map does not allow null as key.');
    expect((await conn.query('MATCH (m:M) RETURN count(*)')).rows).toEqual([[0]]);
  });
});

describe('file_search_path', () => {
  it('resolves a relative COPY FROM path in each of its folders', async () => {
    fs.mkdirSync(path.join(dir, 'search-a'));
    fs.mkdirSync(path.join(dir, 'search-b'));
    fs.writeFileSync(path.join(dir, 'search-a', 'part1.csv'), '1\n2\n');
    fs.writeFileSync(path.join(dir, 'search-b', 'part2.csv'), '3\n');
    using db = new Database(path.join(dir, 'db-search-path'));
    using conn = db.connect();
    await conn.query('CREATE NODE TABLE F(id INT64, PRIMARY KEY(id))');
    const missing = await rejection(conn.query(`COPY F FROM 'part*.csv'`));
    expect(missing.message).toContain('No file found that matches the pattern: part*.csv.');
    await conn.query(`CALL file_search_path='${path.join(dir, 'search-a')},${path.join(dir, 'search-b')}'`);
    await conn.query(`COPY F FROM 'part*.csv'`);
    expect((await conn.query('MATCH (f:F) RETURN f.id ORDER BY f.id')).rows).toEqual([[1], [2], [3]]);
  });

  it('resolves a relative LOAD FROM path too, and a plain name only in a folder that has it', async () => {
    fs.mkdirSync(path.join(dir, 'load-a'));
    fs.mkdirSync(path.join(dir, 'load-b'));
    fs.writeFileSync(path.join(dir, 'load-a', 'one.csv'), '1,ann\n');
    fs.writeFileSync(path.join(dir, 'load-b', 'two.csv'), '2,bob\n3,cy\n');
    using db = new Database(path.join(dir, 'db-load-search-path'));
    using conn = db.connect();
    const missing = await rejection(conn.query(`LOAD FROM 'two.csv' RETURN *`));
    expect(missing.message).toContain('two.csv');
    await conn.query(`CALL file_search_path='${path.join(dir, 'load-a')},${path.join(dir, 'load-b')}'`);
    expect((await conn.query(`LOAD FROM 'two.csv' RETURN column0, column1`)).rows).toEqual([
      [2, 'bob'],
      [3, 'cy'],
    ]);
    expect((await conn.query(`LOAD FROM '*.csv' RETURN column0 ORDER BY column0`)).rows).toEqual([
      [1],
      [2],
      [3],
    ]);
    // COPY FROM a query that loads, and a COPY with a column list, search the same folders.
    await conn.query('CREATE NODE TABLE P(id INT64, name STRING, PRIMARY KEY(id))');
    await conn.query(`COPY P FROM (LOAD FROM 'one.csv' RETURN column0, column1)`);
    await conn.query(`COPY P (id, name) FROM 'two.csv'`);
    expect((await conn.query('MATCH (p:P) RETURN p.id, p.name ORDER BY p.id')).rows).toEqual([
      [1, 'ann'],
      [2, 'bob'],
      [3, 'cy'],
    ]);
  });
});

describe('SERIAL properties of rel tables', () => {
  it('number the rels by their offsets, through CREATE, COPY FROM files and queries, and a reopen', async () => {
    const nodes = file('serial-rel-nodes.csv', '1\n2\n3\n');
    const rels = file('serial-rel-rels.csv', '1,2,a\n2,3,b\n3,1,c\n');
    const where = path.join(dir, 'db-serial-rel');
    {
      using db = new Database(where);
      using conn = db.connect();
      await conn.query('CREATE NODE TABLE N(id INT64, PRIMARY KEY(id))');
      await conn.query(`COPY N FROM '${nodes}'`);
      await conn.query('CREATE REL TABLE R(FROM N TO N, n SERIAL, tag STRING)');
      await conn.query(`COPY R FROM '${rels}'`);
      await conn.query('MATCH (a:N {id: 1}), (b:N {id: 3}) CREATE (a)-[:R {tag: "d"}]->(b)');
      await conn.query(`COPY R FROM (RETURN 2, 1, 'e')`);
      await conn.query('COPY R (tag) FROM (RETURN 3, 2, "f")');
      expect((await conn.query('MATCH ()-[r:R]->() RETURN r.tag, r.n ORDER BY r.n')).rows).toEqual([
        ['a', 0],
        ['b', 1],
        ['c', 2],
        ['d', 3],
        ['e', 4],
        ['f', 5],
      ]);
      const nested = await rejection(conn.query('CREATE REL TABLE Q(FROM N TO N, s SERIAL[])'));
      expect(nested.message).toBe('Binder exception: Serial property in rel table is not supported.');
      await conn.query('ALTER TABLE R ADD m SERIAL');
    }
    using db = new Database(where);
    using conn = db.connect();
    await conn.query('MATCH (a:N {id: 2}), (b:N {id: 2}) CREATE (a)-[:R {tag: "g"}]->(b)');
    expect((await conn.query('MATCH ()-[r:R]->() RETURN r.tag, r.n, r.m ORDER BY r.n')).rows).toEqual([
      ['a', 0, 0],
      ['b', 1, 1],
      ['c', 2, 2],
      ['d', 3, 3],
      ['e', 4, 4],
      ['f', 5, 5],
      ['g', 6, 6],
    ]);
  });
});
