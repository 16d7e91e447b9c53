// The LDBC SNB Interactive sample (shared/datasets) with its real schema: conversion of the
// vanilla CSVs to files both systems load with COPY, the update stream as IU1-IU8 parameters,
// and deterministic substitution parameters for IS1-IS7.

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRng } from './prng.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
export const LDBC_QUERY_DIR = path.resolve(here, '..', 'ldbc');
// shared/ sits beside the repository (the work tree and CI's clone alike).
const DEFAULT_DATASET = path.resolve(here, '../../../shared/datasets/ldbc-snb-interactive-v1-sf0.003');

export const SHORT_READS = ['is1', 'is2', 'is3', 'is4', 'is5', 'is6', 'is7'];
export const UPDATES = ['iu1', 'iu2', 'iu3', 'iu4', 'iu5', 'iu6', 'iu7', 'iu8'];

// Column types as both systems declare them. Epoch-ms dates become DATE / TIMESTAMP text and
// ';'-separated lists become STRING[] literals ('[a,b]').
const NODE_TABLES = [
  {
    name: 'Person',
    file: 'dynamic/person_0_0.csv',
    columns: [
      ['id', 'INT64'],
      ['firstName', 'STRING'],
      ['lastName', 'STRING'],
      ['gender', 'STRING'],
      ['birthday', 'DATE'],
      ['creationDate', 'TIMESTAMP'],
      ['locationIP', 'STRING'],
      ['browserUsed', 'STRING'],
      ['language', 'STRING[]'],
      ['email', 'STRING[]'],
    ],
  },
  {
    name: 'Comment',
    file: 'dynamic/comment_0_0.csv',
    columns: [
      ['id', 'INT64'],
      ['creationDate', 'TIMESTAMP'],
      ['locationIP', 'STRING'],
      ['browserUsed', 'STRING'],
      ['content', 'STRING'],
      ['length', 'INT32'],
    ],
  },
  {
    name: 'Post',
    file: 'dynamic/post_0_0.csv',
    columns: [
      ['id', 'INT64'],
      ['imageFile', 'STRING'],
      ['creationDate', 'TIMESTAMP'],
      ['locationIP', 'STRING'],
      ['browserUsed', 'STRING'],
      ['language', 'STRING'],
      ['content', 'STRING'],
      ['length', 'INT32'],
    ],
  },
  {
    name: 'Forum',
    file: 'dynamic/forum_0_0.csv',
    columns: [
      ['id', 'INT64'],
      ['title', 'STRING'],
      ['creationDate', 'TIMESTAMP'],
    ],
  },
  {
    name: 'Organisation',
    file: 'static/organisation_0_0.csv',
    columns: [
      ['id', 'INT64'],
      ['type', 'STRING'],
      ['name', 'STRING'],
      ['url', 'STRING'],
    ],
  },
  {
    name: 'Place',
    file: 'static/place_0_0.csv',
    columns: [
      ['id', 'INT64'],
      ['name', 'STRING'],
      ['url', 'STRING'],
      ['type', 'STRING'],
    ],
  },
  {
    name: 'Tag',
    file: 'static/tag_0_0.csv',
    columns: [
      ['id', 'INT64'],
      ['name', 'STRING'],
      ['url', 'STRING'],
    ],
  },
  {
    name: 'TagClass',
    file: 'static/tagclass_0_0.csv',
    columns: [
      ['id', 'INT64'],
      ['name', 'STRING'],
      ['url', 'STRING'],
    ],
  },
];

// [from, relation, to, multiplicity or null, extra columns]; the file is
// <from>_<relation>_<to>_0_0.csv in lower case, the table <From>_<relation>_<To>.
const REL_TABLES = [
  ['Comment', 'hasCreator', 'Person', 'MANY_ONE', []],
  ['Comment', 'hasTag', 'Tag', null, []],
  ['Comment', 'isLocatedIn', 'Place', 'MANY_ONE', []],
  ['Comment', 'replyOf', 'Comment', 'MANY_ONE', []],
  ['Comment', 'replyOf', 'Post', 'MANY_ONE', []],
  ['Forum', 'containerOf', 'Post', 'ONE_MANY', []],
  ['Forum', 'hasMember', 'Person', null, [['joinDate', 'TIMESTAMP']]],
  ['Forum', 'hasModerator', 'Person', 'MANY_ONE', []],
  ['Forum', 'hasTag', 'Tag', null, []],
  ['Person', 'hasInterest', 'Tag', null, []],
  ['Person', 'isLocatedIn', 'Place', 'MANY_ONE', []],
  ['Person', 'knows', 'Person', null, [['creationDate', 'TIMESTAMP']]],
  ['Person', 'likes', 'Comment', null, [['creationDate', 'TIMESTAMP']]],
  ['Person', 'likes', 'Post', null, [['creationDate', 'TIMESTAMP']]],
  ['Person', 'studyAt', 'Organisation', null, [['classYear', 'INT32']]],
  ['Person', 'workAt', 'Organisation', null, [['workFrom', 'INT32']]],
  ['Post', 'hasCreator', 'Person', 'MANY_ONE', []],
  ['Post', 'hasTag', 'Tag', null, []],
  ['Post', 'isLocatedIn', 'Place', 'MANY_ONE', []],
  ['Organisation', 'isLocatedIn', 'Place', 'MANY_ONE', []],
  ['Place', 'isPartOf', 'Place', 'MANY_ONE', []],
  ['Tag', 'hasType', 'TagClass', 'MANY_ONE', []],
  ['TagClass', 'isSubclassOf', 'TagClass', 'MANY_ONE', []],
].map(([from, relation, to, multiplicity, columns]) => {
  const dir = from === 'Organisation' || from === 'Place' || from.startsWith('Tag') ? 'static' : 'dynamic';
  return {
    name: `${from}_${relation}_${to}`,
    file: `${dir}/${from.toLowerCase()}_${relation}_${to.toLowerCase()}_0_0.csv`,
    from,
    to,
    multiplicity,
    columns,
  };
});

export const NODE_TABLE_NAMES = NODE_TABLES.map((t) => t.name);
export const REL_TABLE_NAMES = REL_TABLES.map((t) => t.name);

export function datasetDir() {
  return process.env.GRAPHDB_BENCH_LDBC ?? DEFAULT_DATASET;
}

/** 'YYYY-MM-DD HH:MM:SS.mmm' in UTC: the TIMESTAMP literal both systems parse. */
export function timestampText(epochMs) {
  return new Date(Number(epochMs)).toISOString().replace('T', ' ').replace('Z', '');
}

export function dateText(epochMs) {
  return new Date(Number(epochMs)).toISOString().slice(0, 10);
}

function convertValue(value, type) {
  if (value === '') return '';
  if (type === 'TIMESTAMP') return timestampText(value);
  if (type === 'DATE') return dateText(value);
  if (type === 'STRING[]') return `[${value.split(';').join(',')}]`;
  return value;
}

/** The DDL statements of the schema, nodes first. */
export function schemaStatements() {
  const nodes = NODE_TABLES.map((t) => {
    const columns = t.columns.map(([name, type]) => `${name} ${type}`).join(', ');
    return `CREATE NODE TABLE ${t.name}(${columns}, PRIMARY KEY(id))`;
  });
  const rels = REL_TABLES.map((t) => {
    const parts = [`FROM ${t.from} TO ${t.to}`, ...t.columns.map(([name, type]) => `${name} ${type}`)];
    if (t.multiplicity) parts.push(t.multiplicity);
    return `CREATE REL TABLE ${t.name}(${parts.join(', ')})`;
  });
  return [...nodes, ...rels];
}

/** COPY statements for the converted files in `dir`, nodes first. */
export function copyStatements(dir) {
  return [...NODE_TABLES, ...REL_TABLES].map(
    (t) => `COPY ${t.name} FROM '${path.join(dir, `${t.name}.csv`)}' (header=true, delim='|')`,
  );
}

function readRows(file) {
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  const header = lines.shift();
  return { header: header.split('|'), rows: lines.filter((l) => l !== '').map((l) => l.split('|')) };
}

/**
 * Converts the dataset once into `cacheDir/ldbc`: one CSV per table, the IS parameters and
 * the update stream. Returns the paths.
 */
export function ensureLdbc(cacheDir) {
  const source = datasetDir();
  const dir = path.join(cacheDir, 'ldbc');
  const paramsFile = path.join(dir, 'params.json');
  const updatesFile = path.join(dir, 'updates.json');
  const done = path.join(dir, 'DONE');
  const result = { dir, paramsFile, updatesFile };
  if (fs.existsSync(done)) return result;
  if (!fs.existsSync(source)) throw new Error(`LDBC dataset not found at ${source} (set GRAPHDB_BENCH_LDBC)`);
  fs.mkdirSync(dir, { recursive: true });
  const tables = {};
  for (const t of NODE_TABLES) {
    const { rows } = readRows(path.join(source, 'vanilla', t.file));
    const types = t.columns.map(([, type]) => type);
    const header = t.columns.map(([name]) => name).join('|');
    const body = rows.map((r) => r.map((v, i) => convertValue(v, types[i])).join('|'));
    fs.writeFileSync(path.join(dir, `${t.name}.csv`), `${[header, ...body].join('\n')}\n`);
    tables[t.name] = rows;
  }
  for (const t of REL_TABLES) {
    const { rows } = readRows(path.join(source, 'vanilla', t.file));
    // Edge headers repeat names (Person.id|Person.id), so columns are read by position.
    const types = ['INT64', 'INT64', ...t.columns.map(([, type]) => type)];
    const header = ['from', 'to', ...t.columns.map(([name]) => name)].join('|');
    const body = rows.map((r) => r.map((v, i) => convertValue(v, types[i])).join('|'));
    fs.writeFileSync(path.join(dir, `${t.name}.csv`), `${[header, ...body].join('\n')}\n`);
    tables[t.name] = rows;
  }
  fs.writeFileSync(paramsFile, JSON.stringify(shortReadParams(tables)));
  fs.writeFileSync(updatesFile, JSON.stringify(readUpdateStream(path.join(source, 'update_streams'))));
  fs.writeFileSync(done, `${new Date().toISOString()}\n`);
  return result;
}

/**
 * Ids for IS1-IS7 chosen deterministically: persons, and messages drawn equally from posts,
 * comments and messages that have replies (so IS7 returns rows).
 */
function shortReadParams(tables) {
  const rng = createRng(7);
  const persons = tables.Person.map((r) => Number(r[0]));
  const posts = tables.Post.map((r) => Number(r[0]));
  const comments = tables.Comment.map((r) => Number(r[0]));
  const repliedTo = [
    ...new Set([
      ...tables.Comment_replyOf_Comment.map((r) => Number(r[1])),
      ...tables.Comment_replyOf_Post.map((r) => Number(r[1])),
    ]),
  ].sort((a, b) => a - b);
  const messages = [];
  for (let i = 0; i < 3000; i++) {
    messages.push(rng.pick([posts, comments, repliedTo][i % 3]));
  }
  return { persons, messages };
}

const ms = (v) => timestampText(v);
const list = (v) => (v === '' ? [] : v.split(';'));
const ids = (v) => list(v).map(Number);
const orgYears = (v) =>
  list(v).map((pair) => {
    const [organisationId, year] = pair.split(',').map(Number);
    return { organisationId, year };
  });
const orNull = (v) => (v === '' ? null : v);

// Update stream columns after `time|dependencyTime|type`, as parameters of ldbc/iuN.cypher.
const UPDATE_PARAMS = {
  1: (f) => ({
    personId: Number(f[0]),
    personFirstName: f[1],
    personLastName: f[2],
    gender: f[3],
    birthday: dateText(f[4]),
    creationDate: ms(f[5]),
    locationIP: f[6],
    browserUsed: f[7],
    cityId: Number(f[8]),
    languages: list(f[9]),
    emails: list(f[10]),
    tagIds: ids(f[11]),
    studyAt: orgYears(f[12]),
    workAt: orgYears(f[13]),
  }),
  2: (f) => ({ personId: Number(f[0]), postId: Number(f[1]), creationDate: ms(f[2]) }),
  3: (f) => ({ personId: Number(f[0]), commentId: Number(f[1]), creationDate: ms(f[2]) }),
  4: (f) => ({
    forumId: Number(f[0]),
    forumTitle: f[1],
    creationDate: ms(f[2]),
    moderatorPersonId: Number(f[3]),
    tagIds: ids(f[4]),
  }),
  5: (f) => ({ forumId: Number(f[0]), personId: Number(f[1]), joinDate: ms(f[2]) }),
  6: (f) => ({
    postId: Number(f[0]),
    imageFile: orNull(f[1]),
    creationDate: ms(f[2]),
    locationIP: f[3],
    browserUsed: f[4],
    language: orNull(f[5]),
    content: orNull(f[6]),
    length: Number(f[7]),
    authorPersonId: Number(f[8]),
    forumId: Number(f[9]),
    countryId: Number(f[10]),
    tagIds: ids(f[11]),
  }),
  7: (f) => ({
    commentId: Number(f[0]),
    creationDate: ms(f[1]),
    locationIP: f[2],
    browserUsed: f[3],
    content: orNull(f[4]),
    length: Number(f[5]),
    authorPersonId: Number(f[6]),
    countryId: Number(f[7]),
    replyToPostId: Number(f[8]),
    replyToCommentId: Number(f[9]),
    tagIds: ids(f[10]),
  }),
  8: (f) => ({ person1Id: Number(f[0]), person2Id: Number(f[1]), creationDate: ms(f[2]) }),
};

/** Both stream files merged in time order: [{ query: 'iuN', params }]. */
function readUpdateStream(dir) {
  const events = [];
  for (const file of fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.csv'))
    .sort()) {
    for (const line of fs.readFileSync(path.join(dir, file), 'utf8').split('\n')) {
      if (line === '') continue;
      const fields = line.split('|');
      const type = Number(fields[2]);
      events.push({
        time: Number(fields[0]),
        query: `iu${type}`,
        params: UPDATE_PARAMS[type](fields.slice(3)),
      });
    }
  }
  events.sort((a, b) => a.time - b.time);
  return events.map(({ query, params }) => ({ query, params }));
}

/**
 * Reads ldbc/<name>.cypher as a list of statements: full-line `//` comments dropped, split at
 * a `;` that ends a line.
 */
export function loadQuery(name) {
  const text = fs.readFileSync(path.join(LDBC_QUERY_DIR, `${name}.cypher`), 'utf8');
  const body = text
    .split('\n')
    .filter((line) => !line.trimStart().startsWith('//'))
    .join('\n');
  return body
    .split(/;\s*(?:\n|$)/)
    .map((s) => s.trim())
    .filter((s) => s !== '')
    .map((text) => ({ text, params: [...new Set([...text.matchAll(/\$(\w+)/g)].map((m) => m[1]))] }));
}

/** The parameters a statement names, or null when one of its lists is empty (skip it). */
export function statementParams(statement, params) {
  const picked = {};
  for (const name of statement.params) {
    const value = params[name];
    if (Array.isArray(value) && value.length === 0) return null;
    picked[name] = value;
  }
  return picked;
}
