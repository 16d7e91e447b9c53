// A grammar-based generator of Cypher (Kùzu's dialect) over a small schema, and byte-level
// mutations of what it generates, for test/fuzz/query.fuzz.test.ts and scripts/fuzz.mjs.
//
// The schema (SCHEMA) has Person and City nodes, Knows and LivesIn relationships, and a Vault
// table that no generated text names: only the transfer statements (TRANSFERS) touch it, so the
// sum of its amounts is conserved whatever the generated statements do. Generated writes match
// their targets by label (never `(n)` alone), so they cannot reach the Vault either.

import fc from 'fast-check';

export const VAULT_ACCOUNTS = 16;
export const VAULT_START = 1000;

export const SCHEMA: readonly string[] = [
  'CREATE NODE TABLE Person(id INT64, name STRING, age INT64, score DOUBLE, born DATE, tags STRING[], PRIMARY KEY(id))',
  'CREATE NODE TABLE City(name STRING, pop INT64, PRIMARY KEY(name))',
  'CREATE REL TABLE Knows(FROM Person TO Person, since INT64, w DOUBLE)',
  'CREATE REL TABLE LivesIn(FROM Person TO City)',
  'CREATE NODE TABLE Vault(id INT64, amount INT64, PRIMARY KEY(id))',
  `UNWIND range(0, 29) AS i CREATE (:Person {id: i, name: 'p' + CAST(i AS STRING), age: i * 3 % 90, score: i / 7.0, born: date('1990-01-01') + to_days(i * 100), tags: ['t' + CAST(i % 4 AS STRING)]})`,
  "UNWIND ['Oslo', 'Lima', 'Pune', 'Kyiv', 'Accra'] AS n CREATE (:City {name: n, pop: size(n) * 1000})",
  'MATCH (a:Person), (b:Person) WHERE b.id = (a.id * 7 + 3) % 30 OR b.id = a.id + 1 CREATE (a)-[:Knows {since: 2000 + a.id, w: a.id / 10.0}]->(b)',
  'MATCH (a:Person), (c:City) WHERE a.id % 5 = size(c.name) % 5 CREATE (a)-[:LivesIn]->(c)',
  `UNWIND range(1, ${VAULT_ACCOUNTS}) AS i CREATE (:Vault {id: i, amount: ${VAULT_START}})`,
];

/**
 * Moves `$amount` from one Vault account to another; the second form does it around a long
 * UNWIND, so a time limit or a cancellation may stop it between its two writes (its first
 * write must then be undone).
 */
export const TRANSFERS: readonly string[] = [
  'MATCH (x:Vault {id: $from}), (y:Vault {id: $to}) SET x.amount = x.amount - $amount, y.amount = y.amount + $amount',
  'MATCH (x:Vault {id: $from}) SET x.amount = x.amount - $amount WITH x UNWIND range(1, $spin) AS i WITH count(*) AS n MATCH (y:Vault {id: $to}) SET y.amount = y.amount + $amount',
];

export const transferArb = fc
  .record({
    query: fc.constantFrom(...TRANSFERS),
    from: fc.integer({ min: 1, max: VAULT_ACCOUNTS }),
    step: fc.integer({ min: 1, max: VAULT_ACCOUNTS - 1 }),
    amount: fc.integer({ min: -50, max: 50 }),
    spin: fc.integer({ min: 1, max: 300_000 }),
    timeoutMs: fc.option(fc.integer({ min: 1, max: 40 }), { nil: undefined, freq: 2 }),
  })
  .map(({ query, from, step, amount, spin, timeoutMs }) => ({
    query,
    params: { from, to: ((from - 1 + step) % VAULT_ACCOUNTS) + 1, amount, spin },
    timeoutMs,
  }));

/** The Vault's invariant: this many accounts holding this much in all. */
export const VAULT_CHECK = 'MATCH (v:Vault) RETURN count(*) AS n, sum(v.amount) AS total';
export const VAULT_EXPECTED = { n: VAULT_ACCOUNTS, total: VAULT_ACCOUNTS * VAULT_START };

/**
 * Pairs of counts that must be equal after any statements: primary keys unique, each
 * relationship seen the same from both ends, every key found by a lookup.
 */
export const CONSISTENCY_CHECKS: readonly (readonly [string, string])[] = [
  ['MATCH (a:Person) RETURN count(*)', 'MATCH (a:Person) RETURN count(DISTINCT a.id)'],
  ['MATCH (c:City) RETURN count(*)', 'MATCH (c:City) RETURN count(DISTINCT c.name)'],
  [
    'MATCH (a:Person)-[r:Knows]->(b:Person) RETURN count(r)',
    'MATCH (b:Person)<-[r:Knows]-(a:Person) RETURN count(r)',
  ],
  [
    'MATCH (a:Person)-[r:LivesIn]->(c:City) RETURN count(r)',
    'MATCH (c:City)<-[r:LivesIn]-(a:Person) RETURN count(r)',
  ],
  [
    'MATCH (a:Person) RETURN count(*)',
    'MATCH (a:Person) WITH a.id AS k MATCH (b:Person {id: k}) RETURN count(b)',
  ],
];

/**
 * The whole content of the generated tables, in a fixed order (a rolled-back statement must
 * leave it exactly as it was). Whole rows, not sums: a generated SET may store 2^63 - 1.
 */
export const SNAPSHOT: readonly string[] = [
  'MATCH (a:Person) RETURN a.id, a.name, a.age, a.score, a.born, a.tags ORDER BY a.id',
  'MATCH (a:Person)-[r:Knows]->(b:Person) RETURN a.id, b.id, r.since, r.w ORDER BY a.id, b.id, r.since, r.w',
  'MATCH (c:City) RETURN c.name, c.pop ORDER BY c.name',
  'MATCH (a:Person)-[:LivesIn]->(c:City) RETURN a.id, c.name ORDER BY a.id, c.name',
];

/** Keeps the graph small: generated writes add relationships, this drops all but a few hundred. */
export const TRIM = [
  'MATCH (:Person)-[r:Knows]->(:Person) WITH r SKIP 150 DELETE r',
  'MATCH (a:Person) WHERE a.id >= 200 OR a.id < 0 DETACH DELETE a',
  'MATCH (c:City) WITH c SKIP 12 DETACH DELETE c',
];

// --- expressions --------------------------------------------------------------------------

interface Scope {
  /** Node variables with their labels, relationship variables, list variables. */
  nodes: string[];
  rels: string[];
  values: string[];
}

const INT_TEXTS = [
  '0',
  '1',
  '-1',
  '2',
  '7',
  '42',
  '100',
  '9223372036854775807',
  '-9223372036854775808',
  '9223372036854775808',
  '170141183460469231731687303715884105727',
  '4294967296',
];
const DOUBLE_TEXTS = [
  '0.5',
  '-0.0',
  '1.5e3',
  '1e308',
  '1.7976931348623157e308',
  '2.2250738585072014e-308',
  '3.14',
];
const STRING_TEXTS = [
  "'x'",
  "''",
  "'p1'",
  "'Oslo'",
  "'a\\'b'",
  "'\\u00e9t\\u00e9'",
  "'%_'",
  "'[a-z]+'",
  "'😀'",
  "'\\\\'",
];

const literal: fc.Arbitrary<string> = fc.oneof(
  fc.integer({ min: -5, max: 60 }).map(String),
  fc.constantFrom(...INT_TEXTS),
  fc.constantFrom(...DOUBLE_TEXTS),
  fc.constantFrom(...STRING_TEXTS),
  fc.string({ maxLength: 8 }).map((s) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`),
  fc.constantFrom('true', 'false', 'NULL'),
  fc.constantFrom(
    "date('2020-02-29')",
    "date('1970-01-01')",
    "timestamp('2020-01-01 12:30:00')",
    "interval('3 days')",
    "CAST('12' AS INT64)",
    'CAST(300 AS INT8)',
    "CAST('x' AS INT64)",
    'CAST(1.5 AS STRING)',
    "BLOB('\\\\xAA\\\\xBB')",
    "UUID('a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11')",
    '[]',
    '[1, 2, 3]',
    "['a', NULL, 'c']",
    '[[1], [2, 3]]',
    "{k: 1, s: 'x'}",
    '{a: [1, 2], b: {c: NULL}}',
  ),
);

const FUNCTIONS_1 = [
  'abs',
  'ceil',
  'floor',
  'round',
  'sqrt',
  'sign',
  'size',
  'lower',
  'upper',
  'trim',
  'reverse',
  'to_string',
  'list_sort',
  'list_distinct',
  'length',
  'id',
  'label',
  'labels',
  'properties',
  'nodes',
  'rels',
  'to_int64',
  'to_double',
  'cast_to_string',
  'date_part',
  'ln',
  'exp',
  'string_split',
  'list_reverse',
  'is_null',
];
const FUNCTIONS_2 = [
  'coalesce',
  'concat',
  'left',
  'right',
  'list_concat',
  'list_contains',
  'range',
  'starts_with',
  'ends_with',
  'contains',
  'regexp_matches',
  'string_split',
  'list_extract',
  'pow',
  'greatest',
  'least',
  'repeat',
  'date_part',
];
const AGGREGATES = ['count', 'sum', 'avg', 'min', 'max', 'collect'];
const BINARY = [
  '+',
  '-',
  '*',
  '/',
  '%',
  '^',
  '=',
  '<>',
  '<',
  '<=',
  '>',
  '>=',
  'AND',
  'OR',
  'XOR',
  'STARTS WITH',
  'ENDS WITH',
  'CONTAINS',
  '=~',
  'IN',
];
const PROPERTIES: Record<string, string[]> = {
  Person: ['id', 'name', 'age', 'score', 'born', 'tags'],
  City: ['name', 'pop'],
  Knows: ['since', 'w'],
  LivesIn: [],
};

/** `name:Label` entries of a scope to property accesses. */
function accesses(scope: Scope): string[] {
  const out: string[] = [];
  for (const entry of [...scope.nodes, ...scope.rels]) {
    const [name, label] = entry.split(':') as [string, string];
    out.push(name);
    for (const property of PROPERTIES[label] ?? []) out.push(`${name}.${property}`);
  }
  return out.concat(scope.values);
}

/** An untyped expression over the variables of `scope` (operands of any type: mostly binder errors). */
function chaos(scope: Scope, depth: number): fc.Arbitrary<string> {
  const refs = accesses(scope);
  const atom = fc.oneof(
    { weight: 3, arbitrary: literal },
    ...(refs.length > 0 ? [{ weight: 4, arbitrary: fc.constantFrom(...refs) }] : []),
    { weight: 1, arbitrary: fc.constantFrom('$p', '$q', '$list', '$missing') },
  );
  if (depth <= 0) return atom;
  const sub = chaos(scope, depth - 1);
  return fc.oneof(
    { weight: 4, arbitrary: atom },
    {
      weight: 4,
      arbitrary: fc.tuple(sub, fc.constantFrom(...BINARY), sub).map(([a, op, b]) => `${a} ${op} ${b}`),
    },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom('-', 'NOT '), sub).map(([op, a]) => `${op}${a}`) },
    { weight: 2, arbitrary: fc.tuple(fc.constantFrom(...FUNCTIONS_1), sub).map(([f, a]) => `${f}(${a})`) },
    {
      weight: 2,
      arbitrary: fc.tuple(fc.constantFrom(...FUNCTIONS_2), sub, sub).map(([f, a, b]) => `${f}(${a}, ${b})`),
    },
    { weight: 1, arbitrary: fc.tuple(sub, sub).map(([l, i]) => `${l}[${i}]`) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(sub, fc.constantFrom('INT64', 'INT8', 'DOUBLE', 'STRING', 'BOOL', 'DATE', 'INT64[]'))
        .map(([a, t]) => `CAST(${a} AS ${t})`),
    },
  );
}

type Kind = 'num' | 'str' | 'bool' | 'list';

const TYPED_PROPERTIES: Record<Kind, Record<string, string[]>> = {
  num: { Person: ['id', 'age', 'score'], City: ['pop'], Knows: ['since', 'w'] },
  str: { Person: ['name'], City: ['name'] },
  bool: {},
  list: { Person: ['tags'] },
};

function typedRefs(scope: Scope, kind: Kind): string[] {
  const out: string[] = [];
  for (const entry of [...scope.nodes, ...scope.rels]) {
    const [name, label] = entry.split(':') as [string, string];
    for (const property of TYPED_PROPERTIES[kind][label] ?? []) out.push(`${name}.${property}`);
  }
  if (kind === 'num') out.push(...scope.values.filter((v) => v === 'u' || v === 'c0' || v === 'x'));
  if (kind === 'list') out.push(...scope.values.filter((v) => v === 'r'));
  return out;
}

const TYPED_LITERALS: Record<Kind, fc.Arbitrary<string>> = {
  num: fc.oneof(
    { weight: 4, arbitrary: fc.integer({ min: -5, max: 60 }).map(String) },
    { weight: 1, arbitrary: fc.constantFrom(...INT_TEXTS, ...DOUBLE_TEXTS) },
    { weight: 1, arbitrary: fc.constantFrom('$p', 'size($list)', 'NULL') },
  ),
  str: fc.oneof(
    fc.constantFrom(...STRING_TEXTS),
    fc.string({ maxLength: 6 }).map((s) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`),
  ),
  bool: fc.constantFrom('true', 'false', 'NULL'),
  list: fc.constantFrom(
    '[1, 2, 3]',
    '[]',
    '$list',
    "['a', 'b']",
    'range(1, 5)',
    '[NULL, 1]',
    '[[1], [2, 3]]',
  ),
};

/** A typed expression: operands fit their operators, so most of these bind and run. */
export function typed(scope: Scope, kind: Kind, depth: number): fc.Arbitrary<string> {
  const refs = typedRefs(scope, kind);
  const atom =
    refs.length > 0 ? fc.oneof(TYPED_LITERALS[kind], fc.constantFrom(...refs)) : TYPED_LITERALS[kind];
  if (depth <= 0) return atom;
  const num = typed(scope, 'num', depth - 1);
  const str = typed(scope, 'str', depth - 1);
  const bool = typed(scope, 'bool', depth - 1);
  const list = typed(scope, 'list', depth - 1);
  const same = typed(scope, kind, depth - 1);
  const common = [
    { weight: 3, arbitrary: atom },
    {
      weight: 1,
      arbitrary: fc.tuple(bool, same, same).map(([c, t, e]) => `CASE WHEN ${c} THEN ${t} ELSE ${e} END`),
    },
    { weight: 1, arbitrary: fc.tuple(same, same).map(([a, b]) => `coalesce(${a}, ${b})`) },
    { weight: 1, arbitrary: same.map((a) => `(${a})`) },
  ];
  switch (kind) {
    case 'num':
      return fc.oneof(
        ...common,
        {
          weight: 4,
          arbitrary: fc
            .tuple(num, fc.constantFrom('+', '-', '*', '/', '%', '^'), num)
            .map(([a, op, b]) => `${a} ${op} ${b}`),
        },
        { weight: 1, arbitrary: num.map((a) => `-${a}`) },
        {
          weight: 2,
          arbitrary: fc
            .tuple(
              fc.constantFrom(
                'abs',
                'ceil',
                'floor',
                'round',
                'sqrt',
                'sign',
                'ln',
                'exp',
                'cos',
                'even',
                'factorial',
                'gamma',
              ),
              num,
            )
            .map(([f, a]) => `${f}(${a})`),
        },
        { weight: 1, arbitrary: fc.oneof(str, list).map((a) => `size(${a})`) },
        { weight: 1, arbitrary: list.map((l) => `${l}[1]`) },
        { weight: 1, arbitrary: fc.tuple(num, num).map(([a, b]) => `CAST(${a} + ${b} AS ${'INT32'})`) },
        {
          weight: 1,
          arbitrary: fc
            .tuple(
              num,
              fc.constantFrom(
                'INT8',
                'INT16',
                'UINT8',
                'INT64',
                'DOUBLE',
                'FLOAT',
                'INT128',
                'DECIMAL(5, 2)',
              ),
            )
            .map(([a, t]) => `CAST(${a} AS ${t})`),
        },
        {
          weight: 1,
          arbitrary: fc
            .constantFrom(...(scope.nodes.length ? scope.nodes : ['z:Person']))
            .map((e) => `COUNT { MATCH (${e.split(':')[0]})-[:Knows]->(:Person) }`),
        },
      );
    case 'str':
      return fc.oneof(
        ...common,
        { weight: 3, arbitrary: fc.tuple(str, str).map(([a, b]) => `${a} + ${b}`) },
        {
          weight: 2,
          arbitrary: fc
            .tuple(fc.constantFrom('lower', 'upper', 'trim', 'reverse', 'ltrim', 'initcap'), str)
            .map(([f, a]) => `${f}(${a})`),
        },
        { weight: 1, arbitrary: fc.tuple(str, num, num).map(([a, b, c]) => `substring(${a}, ${b}, ${c})`) },
        {
          weight: 1,
          arbitrary: fc
            .tuple(fc.constantFrom('left', 'right', 'repeat', 'lpad'), str, num)
            .map(([f, a, n]) => (f === 'lpad' ? `lpad(${a}, ${n}, '*')` : `${f}(${a}, ${n})`)),
        },
        { weight: 1, arbitrary: num.map((a) => `CAST(${a} AS STRING)`) },
        {
          weight: 1,
          arbitrary: fc.tuple(str, str, str).map(([a, b, c]) => `regexp_replace(${a}, ${b}, ${c})`),
        },
      );
    case 'bool':
      return fc.oneof(
        ...common,
        {
          weight: 4,
          arbitrary: fc
            .tuple(num, fc.constantFrom('=', '<>', '<', '<=', '>', '>='), num)
            .map(([a, op, b]) => `${a} ${op} ${b}`),
        },
        {
          weight: 2,
          arbitrary: fc
            .tuple(str, fc.constantFrom('=', '<', 'STARTS WITH', 'ENDS WITH', 'CONTAINS', '=~'), str)
            .map(([a, op, b]) => `${a} ${op} ${b}`),
        },
        {
          weight: 3,
          arbitrary: fc
            .tuple(bool, fc.constantFrom('AND', 'OR', 'XOR'), bool)
            .map(([a, op, b]) => `${a} ${op} ${b}`),
        },
        { weight: 1, arbitrary: bool.map((a) => `NOT ${a}`) },
        {
          weight: 1,
          arbitrary: fc
            .tuple(fc.oneof(num, str), fc.constantFrom('IS NULL', 'IS NOT NULL'))
            .map(([a, t]) => `${a} ${t}`),
        },
        { weight: 1, arbitrary: fc.tuple(num, list).map(([a, l]) => `${a} IN ${l}`) },
        {
          weight: 1,
          arbitrary: fc
            .tuple(
              fc.constantFrom('all', 'any', 'none', 'single'),
              list,
              typed({ ...scope, values: ['x'] }, 'bool', 0),
            )
            .map(([q, l, c]) => `${q}(x IN ${l} WHERE ${c} OR x > 1)`),
        },
        {
          weight: 1,
          arbitrary: fc
            .constantFrom(...(scope.nodes.length ? scope.nodes : ['z:Person']))
            .map((e) => `EXISTS { MATCH (${e.split(':')[0]})-[:Knows]->(:Person) }`),
        },
      );
    case 'list':
      return fc.oneof(
        ...common,
        { weight: 2, arbitrary: fc.array(num, { maxLength: 4 }).map((items) => `[${items.join(', ')}]`) },
        { weight: 1, arbitrary: fc.tuple(num, num).map(([a, b]) => `range(${a}, ${b})`) },
        { weight: 1, arbitrary: fc.tuple(list, list).map(([a, b]) => `list_concat(${a}, ${b})`) },
        {
          weight: 1,
          arbitrary: fc
            .tuple(fc.constantFrom('list_sort', 'list_distinct', 'list_reverse'), list)
            .map(([f, l]) => `${f}(${l})`),
        },
        { weight: 1, arbitrary: fc.tuple(list, num, num).map(([l, i, j]) => `${l}[${i}..${j}]`) },
        { weight: 1, arbitrary: fc.tuple(str, str).map(([a, b]) => `string_split(${a}, ${b})`) },
        {
          weight: 1,
          arbitrary: fc
            .tuple(list, typed({ ...scope, values: ['x'] }, 'num', 1))
            .map(([l, e]) => `[x IN ${l} WHERE x > 0 | ${e}]`),
        },
      );
  }
}

/** An expression over the variables of `scope`, `depth` levels deep at most: mostly typed. */
export function expression(scope: Scope, depth: number): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 3, arbitrary: typed(scope, 'num', depth) },
    { weight: 2, arbitrary: typed(scope, 'str', depth) },
    { weight: 2, arbitrary: typed(scope, 'bool', depth) },
    { weight: 1, arbitrary: typed(scope, 'list', depth) },
    { weight: 1, arbitrary: literal },
    ...(accesses(scope).length > 0 ? [{ weight: 1, arbitrary: fc.constantFrom(...accesses(scope)) }] : []),
    { weight: 1, arbitrary: chaos(scope, Math.min(depth, 2)) },
  );
}

/** A condition for WHERE. */
export function condition(scope: Scope, depth: number): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 6, arbitrary: typed(scope, 'bool', depth) },
    { weight: 1, arbitrary: chaos(scope, 1) },
  );
}

// --- clauses ------------------------------------------------------------------------------

interface Pattern {
  text: string;
  scope: Scope;
}

const READ_PATTERNS: readonly Pattern[] = [
  { text: '(a:Person)', scope: { nodes: ['a:Person'], rels: [], values: [] } },
  { text: '(c:City)', scope: { nodes: ['c:City'], rels: [], values: [] } },
  {
    text: '(a:Person)-[r:Knows]->(b:Person)',
    scope: { nodes: ['a:Person', 'b:Person'], rels: ['r:Knows'], values: [] },
  },
  {
    text: '(a:Person)<-[r:Knows]-(b:Person)',
    scope: { nodes: ['a:Person', 'b:Person'], rels: ['r:Knows'], values: [] },
  },
  { text: '(a:Person)-[:LivesIn]->(c:City)', scope: { nodes: ['a:Person', 'c:City'], rels: [], values: [] } },
  { text: '(a:Person), (b:Person)', scope: { nodes: ['a:Person', 'b:Person'], rels: [], values: [] } },
  {
    text: '(a:Person)-[r:Knows*1..3]->(b:Person)',
    scope: { nodes: ['a:Person', 'b:Person'], rels: [], values: ['r'] },
  },
  {
    text: 'p = (a:Person)-[:Knows*1..2]-(b:Person)',
    scope: { nodes: ['a:Person', 'b:Person'], rels: [], values: ['p'] },
  },
  {
    text: '(a:Person)-[:Knows]->(:Person)-[:LivesIn]->(c:City)',
    scope: { nodes: ['a:Person', 'c:City'], rels: [], values: [] },
  },
  { text: '(n)', scope: { nodes: ['n:Any'], rels: [], values: [] } },
  { text: '(n)-[e]->(m)', scope: { nodes: ['n:Any', 'm:Any'], rels: ['e:Any'], values: [] } },
];

const skipLimit = fc
  .record(
    {
      skip: fc.oneof(
        fc.integer({ min: 0, max: 5 }).map(String),
        fc.constantFrom('-1', '$p', '9223372036854775807'),
      ),
      limit: fc.oneof(fc.integer({ min: 0, max: 10 }).map(String), fc.constantFrom('-1', '$q', '1 + 1')),
    },
    { requiredKeys: [] },
  )
  .map(
    ({ skip, limit }) =>
      `${skip === undefined ? '' : ` SKIP ${skip}`}${limit === undefined ? '' : ` LIMIT ${limit}`}`,
  );

function projection(scope: Scope, aggregate: boolean): fc.Arbitrary<string[]> {
  const item = expression(scope, 2);
  const agg = fc
    .tuple(fc.constantFrom(...AGGREGATES), fc.boolean(), expression(scope, 1))
    .map(([f, distinct, e]) => `${f}(${distinct ? 'DISTINCT ' : ''}${e})`);
  const items = fc.array(aggregate ? fc.oneof(item, agg, fc.constant('count(*)')) : item, {
    minLength: 1,
    maxLength: 4,
  });
  return items.map((list) => list.map((e, i) => `${e} AS c${i}`));
}

/** A read query: MATCH/OPTIONAL MATCH/UNWIND, WHERE, WITH, RETURN, ORDER BY, SKIP/LIMIT, UNION. */
export const readQuery: fc.Arbitrary<string> = fc
  .record({
    pattern: fc.constantFrom(...READ_PATTERNS),
    optional: fc.constantFrom('', '', '', 'OPTIONAL '),
    unwind: fc.boolean(),
    withClause: fc.boolean(),
    aggregate: fc.boolean(),
    union: fc.constantFrom('', '', '', '', ' UNION ', ' UNION ALL '),
  })
  .chain(({ pattern, optional, unwind, withClause, aggregate, union }) => {
    const scope: Scope = { ...pattern.scope, values: [...pattern.scope.values] };
    if (unwind) scope.values.push('u');
    return fc
      .record({
        unwindList: typed({ nodes: [], rels: [], values: [] }, 'list', 1),
        where: fc.option(condition(scope, 3), { nil: undefined }),
        withItems: projection(scope, aggregate),
        returnItems: projection({ nodes: [], rels: [], values: ['c0'] }, aggregate),
        plainReturn: projection(scope, aggregate),
        order: fc.option(fc.constantFrom('c0', 'c0 DESC', 'c0, c0 DESC'), { nil: undefined }),
        paging: skipLimit,
        other: fc.constantFrom(
          'RETURN 1 AS c0',
          'MATCH (z:City) RETURN z.name AS c0',
          'UNWIND [1, 2] AS c0 RETURN c0',
        ),
      })
      .map((p) => {
        let text = `${optional}MATCH ${pattern.text}`;
        if (unwind) text = `UNWIND ${p.unwindList} AS u ${text}`;
        if (p.where !== undefined) text += ` WHERE ${p.where}`;
        if (withClause) {
          text += ` WITH ${p.withItems.join(', ')} RETURN ${p.returnItems.join(', ')}`;
        } else {
          text += ` RETURN ${p.plainReturn.join(', ')}`;
        }
        if (p.order !== undefined) text += ` ORDER BY ${p.order}`;
        text += p.paging;
        if (union) text += `${union}${p.other}`;
        return text;
      });
  });

/** A standalone RETURN / UNWIND of expressions (no graph). */
export const expressionQuery: fc.Arbitrary<string> = fc.oneof(
  projection({ nodes: [], rels: [], values: [] }, false).map((items) => `RETURN ${items.join(', ')}`),
  fc
    .tuple(
      typed({ nodes: [], rels: [], values: [] }, 'list', 2),
      projection({ nodes: [], rels: [], values: ['u'] }, true),
    )
    .map(([list, items]) => `UNWIND ${list} AS u RETURN ${items.join(', ')}`),
);

const person = { nodes: ['a:Person'], rels: [], values: [] } satisfies Scope;
const pair = { nodes: ['a:Person', 'b:Person'], rels: [], values: [] } satisfies Scope;
const personId = fc.oneof(
  fc.integer({ min: -3, max: 210 }).map(String),
  fc.constantFrom('$p', 'NULL', "'7'", '1.5'),
);

/** A write that never touches the Vault: CREATE, SET, DELETE, MERGE on labelled targets. */
export const writeQuery: fc.Arbitrary<string> = fc.oneof(
  fc
    .tuple(
      personId,
      expression({ nodes: [], rels: [], values: [] }, 1),
      expression({ nodes: [], rels: [], values: [] }, 1),
    )
    .map(([id, name, age]) => `CREATE (:Person {id: ${id}, name: ${name}, age: ${age}})`),
  fc
    .tuple(
      condition(person, 2),
      fc.constantFrom('age', 'name', 'score', 'tags', 'born', 'id'),
      expression(person, 2),
    )
    .map(([cond, property, value]) => `MATCH (a:Person) WHERE ${cond} SET a.${property} = ${value}`),
  fc
    .tuple(condition(person, 2), fc.constantFrom('DELETE', 'DETACH DELETE'))
    .map(([cond, del]) => `MATCH (a:Person) WHERE ${cond} ${del} a`),
  condition({ nodes: ['a:Person', 'b:Person'], rels: ['r:Knows'], values: [] }, 2).map(
    (cond) => `MATCH (a:Person)-[r:Knows]->(b:Person) WHERE ${cond} DELETE r`,
  ),
  fc
    .tuple(condition(pair, 2), typed(pair, 'num', 1))
    .map(
      ([cond, since]) =>
        `MATCH (a:Person), (b:Person) WHERE ${cond} WITH a, b LIMIT 3 CREATE (a)-[:Knows {since: ${since}}]->(b)`,
    ),
  fc
    .tuple(personId, expression(person, 1), expression(person, 1))
    .map(
      ([id, onCreate, onMatch]) =>
        `MERGE (a:Person {id: ${id}}) ON CREATE SET a.name = ${onCreate} ON MATCH SET a.age = ${onMatch}`,
    ),
  fc
    .tuple(
      fc.constantFrom("'Oslo'", "'Rome'", "'x'", "''", 'NULL', '$p'),
      expression({ nodes: ['c:City'], rels: [], values: [] }, 1),
    )
    .map(([name, pop]) => `MERGE (c:City {name: ${name}}) SET c.pop = ${pop} RETURN c.name`),
  fc
    .tuple(personId, fc.constantFrom("'Oslo'", "'Lima'", "'Nowhere'"))
    .map(([id, city]) => `MATCH (a:Person {id: ${id}}), (c:City {name: ${city}}) MERGE (a)-[:LivesIn]->(c)`),
  fc
    .tuple(fc.integer({ min: 100, max: 190 }), fc.integer({ min: 0, max: 5 }))
    .map(
      ([base, n]) =>
        `UNWIND range(0, ${n}) AS i CREATE (:Person {id: ${base} + i, name: 'u' + CAST(i AS STRING)})`,
    ),
  fc
    .tuple(personId, personId)
    .map(([x, y]) => `CREATE (:Person {id: ${x}})-[:Knows {since: 1}]->(:Person {id: ${y}})`),
);

/** A generated statement: mostly reads, some expressions, some writes. */
export const generatedQuery: fc.Arbitrary<string> = fc.oneof(
  { weight: 5, arbitrary: readQuery },
  { weight: 2, arbitrary: expressionQuery },
  { weight: 2, arbitrary: writeQuery },
);

/** Parameters for generated statements ($p, $q, $list), of any JSON shape. */
export const queryParams: fc.Arbitrary<Record<string, unknown>> = fc.record({
  p: fc.oneof(
    { weight: 6, arbitrary: fc.integer({ min: -2, max: 40 }) },
    {
      weight: 1,
      arbitrary: fc.oneof(fc.string({ maxLength: 4 }), fc.constant(null), fc.double(), fc.boolean()),
    },
  ),
  q: fc.oneof(
    { weight: 6, arbitrary: fc.integer({ min: -2, max: 40 }) },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
  ),
  list: fc.array(fc.integer({ min: -5, max: 50 }), { maxLength: 5 }),
});

/**
 * Byte-level mutations of generated statements: deletions, duplications, splices with another
 * statement, random unicode insertions, replaced bytes. The result is read as UTF-8, so broken
 * sequences become U+FFFD.
 */
export const mutatedQuery: fc.Arbitrary<string> = fc
  .tuple(
    generatedQuery,
    generatedQuery,
    fc.array(
      fc.record({
        kind: fc.constantFrom('delete', 'duplicate', 'splice', 'unicode', 'byte', 'keyword'),
        at: fc.nat(),
        to: fc.nat(),
        length: fc.integer({ min: 1, max: 12 }),
        text: fc.oneof(
          fc.string({ unit: 'grapheme', minLength: 1, maxLength: 3 }),
          fc.string({ unit: 'binary', minLength: 1, maxLength: 3 }),
        ),
        byte: fc.integer({ min: 0, max: 255 }),
        keyword: fc.constantFrom(
          'MATCH ',
          'RETURN ',
          '(',
          ')',
          '[',
          ']',
          '{',
          '}',
          ',',
          '-->',
          '*',
          '$p',
          'WITH ',
          "'",
          '"',
          '`',
          '//',
          '/*',
          '\\',
          'NULL',
        ),
      }),
      { minLength: 1, maxLength: 3 },
    ),
  )
  .map(([text, donor, edits]) => {
    let bytes = Buffer.from(text, 'utf8');
    const other = Buffer.from(donor, 'utf8');
    for (const e of edits) {
      const at = e.at % (bytes.length + 1);
      const end = Math.min(bytes.length, at + e.length);
      switch (e.kind) {
        case 'delete':
          bytes = Buffer.concat([bytes.subarray(0, at), bytes.subarray(end)]);
          break;
        case 'duplicate':
          bytes = Buffer.concat([bytes.subarray(0, end), bytes.subarray(at)]);
          break;
        case 'splice':
          bytes = Buffer.concat([bytes.subarray(0, at), other.subarray(e.to % (other.length + 1))]);
          break;
        case 'unicode':
          bytes = Buffer.concat([bytes.subarray(0, at), Buffer.from(e.text, 'utf8'), bytes.subarray(at)]);
          break;
        case 'keyword':
          bytes = Buffer.concat([bytes.subarray(0, at), Buffer.from(e.keyword), bytes.subarray(at)]);
          break;
        case 'byte':
          if (at < bytes.length) {
            bytes = Buffer.from(bytes);
            bytes[at] = e.byte;
          }
          break;
      }
    }
    return bytes.toString('utf8');
  });
