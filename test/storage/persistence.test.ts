import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { Database, GraphDBError } from '../../src/index.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const ldbc = path.resolve(root, '..', 'shared', 'datasets', 'ldbc-snb-interactive-v1-sf0.003', 'vanilla');
const haveLdbc = existsSync(ldbc);
if (!haveLdbc) console.log(`persistence tests with LDBC data: SKIPPED (${ldbc} not found)`);

const tmpDirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'graphdb-persist-'));
  tmpDirs.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of tmpDirs) rmSync(dir, { recursive: true, force: true });
});

// The LDBC SNB schema, with dates as epoch milliseconds (INT64) and the ';'-separated lists
// kept as strings.
const nodeTables: Record<string, [string, string]> = {
  Person: [
    'id INT64, firstName STRING, lastName STRING, gender STRING, birthday INT64, creationDate INT64, locationIP STRING, browserUsed STRING, language STRING, email STRING',
    'dynamic/person_0_0.csv',
  ],
  Comment: [
    'id INT64, creationDate INT64, locationIP STRING, browserUsed STRING, content STRING, length INT64',
    'dynamic/comment_0_0.csv',
  ],
  Post: [
    'id INT64, imageFile STRING, creationDate INT64, locationIP STRING, browserUsed STRING, language STRING, content STRING, length INT64',
    'dynamic/post_0_0.csv',
  ],
  Forum: ['id INT64, title STRING, creationDate INT64', 'dynamic/forum_0_0.csv'],
  Organisation: ['id INT64, type STRING, name STRING, url STRING', 'static/organisation_0_0.csv'],
  Place: ['id INT64, name STRING, url STRING, type STRING', 'static/place_0_0.csv'],
  Tag: ['id INT64, name STRING, url STRING', 'static/tag_0_0.csv'],
  TagClass: ['id INT64, name STRING, url STRING', 'static/tagclass_0_0.csv'],
};

const relTables: [string, string, string, string, string][] = [
  ['commentHasCreator', 'Comment', 'Person', '', 'dynamic/comment_hasCreator_person_0_0.csv'],
  ['commentHasTag', 'Comment', 'Tag', '', 'dynamic/comment_hasTag_tag_0_0.csv'],
  ['commentIsLocatedIn', 'Comment', 'Place', '', 'dynamic/comment_isLocatedIn_place_0_0.csv'],
  ['replyOfComment', 'Comment', 'Comment', '', 'dynamic/comment_replyOf_comment_0_0.csv'],
  ['replyOfPost', 'Comment', 'Post', '', 'dynamic/comment_replyOf_post_0_0.csv'],
  ['containerOf', 'Forum', 'Post', '', 'dynamic/forum_containerOf_post_0_0.csv'],
  ['hasMember', 'Forum', 'Person', ', joinDate INT64', 'dynamic/forum_hasMember_person_0_0.csv'],
  ['hasModerator', 'Forum', 'Person', '', 'dynamic/forum_hasModerator_person_0_0.csv'],
  ['forumHasTag', 'Forum', 'Tag', '', 'dynamic/forum_hasTag_tag_0_0.csv'],
  ['hasInterest', 'Person', 'Tag', '', 'dynamic/person_hasInterest_tag_0_0.csv'],
  ['personIsLocatedIn', 'Person', 'Place', '', 'dynamic/person_isLocatedIn_place_0_0.csv'],
  ['knows', 'Person', 'Person', ', creationDate INT64', 'dynamic/person_knows_person_0_0.csv'],
  ['likesComment', 'Person', 'Comment', ', creationDate INT64', 'dynamic/person_likes_comment_0_0.csv'],
  ['likesPost', 'Person', 'Post', ', creationDate INT64', 'dynamic/person_likes_post_0_0.csv'],
  ['studyAt', 'Person', 'Organisation', ', classYear INT64', 'dynamic/person_studyAt_organisation_0_0.csv'],
  ['workAt', 'Person', 'Organisation', ', workFrom INT64', 'dynamic/person_workAt_organisation_0_0.csv'],
  ['postHasCreator', 'Post', 'Person', '', 'dynamic/post_hasCreator_person_0_0.csv'],
  ['postHasTag', 'Post', 'Tag', '', 'dynamic/post_hasTag_tag_0_0.csv'],
  ['postIsLocatedIn', 'Post', 'Place', '', 'dynamic/post_isLocatedIn_place_0_0.csv'],
  ['orgIsLocatedIn', 'Organisation', 'Place', '', 'static/organisation_isLocatedIn_place_0_0.csv'],
  ['isPartOf', 'Place', 'Place', '', 'static/place_isPartOf_place_0_0.csv'],
  ['hasType', 'Tag', 'TagClass', '', 'static/tag_hasType_tagclass_0_0.csv'],
  ['isSubclassOf', 'TagClass', 'TagClass', '', 'static/tagclass_isSubclassOf_tagclass_0_0.csv'],
];

function dataLines(file: string): number {
  return (
    readFileSync(path.join(ldbc, file), 'utf8')
      .split('\n')
      .filter((l) => l.length > 0).length - 1
  );
}

/** Answers that must survive close and reopen: row counts of every table plus some queries. */
async function snapshot(db: Database): Promise<Record<string, unknown>> {
  using conn = db.connect();
  const out: Record<string, unknown> = {};
  for (const name of Object.keys(nodeTables)) {
    out[name] = (await conn.query(`MATCH (n:${name}) RETURN count(*)`)).rows[0]?.[0];
  }
  for (const [name] of relTables) {
    out[name] = (await conn.query(`MATCH ()-[r:${name}]->() RETURN count(*)`)).rows[0]?.[0];
  }
  out.persons = (await conn.query('MATCH (p:Person) RETURN p ORDER BY p.id')).rows;
  out.knowsRows = (
    await conn.query(
      'MATCH (a:Person)-[k:knows]->(b:Person) RETURN a.id, b.id, k.creationDate ORDER BY a.id, b.id',
    )
  ).rows;
  out.tags = (
    await conn.query(
      'MATCH (t:Tag)-[:hasType]->(c:TagClass) RETURN c.name, count(*) AS n ORDER BY n DESC, c.name LIMIT 20',
    )
  ).rows;
  return out;
}

describe.skipIf(!haveLdbc)('persistence with the LDBC sample', () => {
  it('keeps every table, row and edge across close and reopen', async () => {
    const dir = tempDir();
    let expected: Record<string, unknown>;
    {
      using db = new Database(dir);
      using conn = db.connect();
      for (const [name, [columns]] of Object.entries(nodeTables)) {
        await conn.query(`CREATE NODE TABLE ${name}(${columns}, PRIMARY KEY(id))`);
      }
      for (const [name, from, to, props] of relTables) {
        await conn.query(`CREATE REL TABLE ${name}(FROM ${from} TO ${to}${props})`);
      }
      for (const [name, [, file]] of Object.entries(nodeTables)) {
        await conn.query(`COPY ${name} FROM '${path.join(ldbc, file)}' (header=true, delim='|')`);
      }
      for (const [name, , , , file] of relTables) {
        await conn.query(`COPY ${name} FROM '${path.join(ldbc, file)}' (header=true, delim='|')`);
      }
      // Writes after the load are kept too.
      await conn.query("CREATE (:Tag {id: 999999, name: 'added', url: 'u'})");
      await conn.query('MATCH (p:Person) WITH p ORDER BY p.id LIMIT 1 SET p.browserUsed = $b', { b: 'Lynx' });
      expected = await snapshot(db);
      expect(expected.Person).toBe(dataLines('dynamic/person_0_0.csv'));
      expect(expected.knowsRows).toHaveLength(dataLines('dynamic/person_knows_person_0_0.csv'));
      expect(expected.Tag).toBe(dataLines('static/tag_0_0.csv') + 1);
      for (const [name, , , , file] of relTables) expect(expected[name]).toBe(dataLines(file));
    }
    {
      using db = new Database(dir);
      expect(await snapshot(db)).toEqual(expected);
    }
    // A second cycle with no changes in between reads the same data again.
    {
      using db = new Database(dir);
      expect(await snapshot(db)).toEqual(expected);
    }
  });
});

describe('persistence', () => {
  function makeDatabase(): string {
    const dir = tempDir();
    using db = new Database(dir);
    using conn = db.connect();
    conn.querySync('CREATE NODE TABLE P(id INT64, name STRING, PRIMARY KEY(id))');
    conn.querySync('CREATE REL TABLE R(FROM P TO P, w DOUBLE)');
    conn.querySync("UNWIND range(1, 200) AS i CREATE (:P {id: i, name: 'p' + CAST(i AS STRING)})");
    conn.querySync('MATCH (a:P), (b:P) WHERE b.id = a.id + 1 CREATE (a)-[:R {w: 0.5}]->(b)');
    return dir;
  }

  it('reopens a checkpointed database', () => {
    const dir = makeDatabase();
    using db = new Database(dir);
    using conn = db.connect();
    expect(conn.querySync('MATCH (a:P)-[r:R]->(b:P) RETURN count(*), sum(r.w)').rows).toEqual([[199, 99.5]]);
    expect(conn.querySync('MATCH (p:P {id: 150}) RETURN p.name').rows).toEqual([['p150']]);
  });

  it('checkpoint() writes without closing', async () => {
    const dir = tempDir();
    const db = new Database(dir);
    const conn = db.connect();
    conn.querySync('CREATE NODE TABLE T(id INT64, PRIMARY KEY(id))');
    conn.querySync('CREATE (:T {id: 7})');
    await db.checkpoint();
    expect(readdirSync(dir)).toContain('MANIFEST');
    db.close();
    using again = new Database(dir);
    expect(again.connect().querySync('MATCH (t:T) RETURN t.id').rows).toEqual([[7]]);
  });

  function dataFiles(dir: string): string[] {
    return readdirSync(dir).filter((f) => f.endsWith('.gdb') && f.startsWith('node-'));
  }

  it('reports a flipped byte as CORRUPTION naming the file', async () => {
    // In the metadata at the end of the file (descriptor, section table): found at open.
    let dir = makeDatabase();
    let file = path.join(dir, dataFiles(dir)[0] as string);
    let bytes = readFileSync(file);
    const i = bytes.length - 30;
    bytes[i] = (bytes[i] as number) ^ 0xff;
    writeFileSync(file, bytes);
    expect(() => new Database(dir)).toThrow(GraphDBError);
    expect(() => new Database(dir)).toThrow(
      expect.objectContaining({
        code: 'CORRUPTION',
        message: expect.stringContaining(path.basename(file)),
      }),
    );
    // In the middle, a mapped section that opening does not read: CALL verify_storage().
    dir = makeDatabase();
    file = path.join(dir, dataFiles(dir)[0] as string);
    bytes = readFileSync(file);
    const j = Math.floor(bytes.length / 2);
    bytes[j] = (bytes[j] as number) ^ 0xff;
    writeFileSync(file, bytes);
    const db = new Database(dir);
    await expect(db.connect().query('CALL verify_storage() RETURN file')).rejects.toThrow(
      expect.objectContaining({
        code: 'CORRUPTION',
        message: expect.stringContaining(`${path.basename(file)}: checksum mismatch in section`),
      }),
    );
    db.close();
  });

  it('reports a truncated file as CORRUPTION', () => {
    const dir = makeDatabase();
    const file = path.join(dir, dataFiles(dir)[0] as string);
    truncateSync(file, 10);
    expect(() => new Database(dir)).toThrow(expect.objectContaining({ code: 'CORRUPTION' }));
  });

  it('reports a damaged MANIFEST as CORRUPTION', () => {
    const dir = makeDatabase();
    writeFileSync(path.join(dir, 'MANIFEST'), 'not a manifest');
    expect(() => new Database(dir)).toThrow(expect.objectContaining({ code: 'CORRUPTION' }));
  });

  it('refuses a path that is a file', () => {
    const dir = tempDir();
    const file = path.join(dir, 'plain-file');
    writeFileSync(file, 'x');
    expect(() => new Database(file)).toThrow(GraphDBError);
  });
});
