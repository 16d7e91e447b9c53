// The web console's parts that need no browser: value parsing and printing, what the graph
// view draws of a result, the EXPLAIN tree, completion, and error positions.
import { describe, expect, it } from 'vitest';
import { completeCypher, openBracket, type Schema, tableOfVariable } from '../../src/console/completion.js';
import { extractGraph, hasGraphValues } from '../../src/console/graph-model.js';
import { isExplainAnswer, parsePlan } from '../../src/console/plan.js';
import { errorRange } from '../../src/console/positions.js';
import { parseJson, shortText, toJson, type Value, valueText } from '../../src/console/values.js';

const alice = { _id: '0:0', _label: 'Person', id: 1, name: 'Alice' };
const bob = { _id: '0:1', _label: 'Person', id: 2, name: 'Bob' };
const berlin = { _id: '1:0', _label: 'City', id: 1, name: 'Berlin' };
const knows = { _id: '2:0', _label: 'Knows', _src: '0:0', _dst: '0:1', since: 2001 };
const livesIn = { _id: '3:0', _label: 'LivesIn', _src: '0:1', _dst: '1:0' };

const schema: Schema = {
  nodeTables: [
    {
      name: 'Person',
      primaryKey: 'id',
      properties: [
        { name: 'id', type: 'INT64' },
        { name: 'name', type: 'STRING' },
        { name: 'age', type: 'INT64' },
      ],
    },
    { name: 'City', primaryKey: 'id', properties: [{ name: 'country', type: 'STRING' }] },
    { name: 'Odd Name', properties: [] },
  ],
  relTables: [
    { name: 'Knows', from: 'Person', to: 'Person', properties: [{ name: 'since', type: 'INT64' }] },
    { name: 'LivesIn', from: 'Person', to: 'City', properties: [] },
  ],
};

// JSON.parse gives revivers the source text from V8 11.4 (Node 22, Chrome 114); the browser
// test checks the console keeps big integers exact in Chromium.
const reviverSource =
  (
    JSON.parse as (
      text: string,
      reviver: (k: string, v: unknown, c?: { source?: string }) => unknown,
    ) => unknown
  )('1', (_k, _v, context) => context?.source) === '1';

describe('values', () => {
  it.skipIf(!reviverSource)('keeps integers past 2^53 exact and leaves the others as numbers', () => {
    const parsed = parseJson(
      '{"big": 9007199254740993, "neg": -12345678901234567890, "small": 42, "d": 1.5e300}',
    ) as Record<string, Value>;
    expect(parsed.big).toBe(9007199254740993n);
    expect(parsed.neg).toBe(-12345678901234567890n);
    expect(parsed.small).toBe(42);
    expect(parsed.d).toBe(1.5e300);
  });

  it('writes BigInts back as exact JSON numbers, strings that look alike untouched', () => {
    const value: Value = { big: 9007199254740993n, list: [1n, 'x'], text: '9007199254740993', nul: null };
    const text = toJson(value);
    expect(text).toBe('{"big":9007199254740993,"list":[1,"x"],"text":"9007199254740993","nul":null}');
    if (reviverSource) expect(parseJson(text)).toEqual({ ...value, list: [1, 'x'] });
    expect(toJson({ a: [1, { b: 2 }] }, 2)).toBe(JSON.stringify({ a: [1, { b: 2 }] }, null, 2));
    expect(toJson([])).toBe('[]');
    expect(toJson({})).toBe('{}');
  });

  it('prints nodes, relationships, paths, lists and maps as Cypher-like text', () => {
    expect(valueText(alice)).toBe('(:Person {id: 1, name: "Alice"})');
    expect(valueText(knows)).toBe('[:Knows {since: 2001}]');
    expect(valueText({ _nodes: [alice, bob], _rels: [knows] })).toBe(
      '(:Person {id: 1, name: "Alice"})-[:Knows {since: 2001}]->(:Person {id: 2, name: "Bob"})',
    );
    // Walked against the relationship's direction.
    expect(valueText({ _nodes: [bob, alice], _rels: [knows] })).toBe(
      '(:Person {id: 2, name: "Bob"})<-[:Knows {since: 2001}]-(:Person {id: 1, name: "Alice"})',
    );
    expect(valueText('top level')).toBe('top level');
    expect(valueText(['a', null, 3n, { k: true }])).toBe('["a", null, 3, {k: true}]');
    expect(shortText('x'.repeat(300), 10)).toBe(`${'x'.repeat(9)}…`);
  });
});

describe('graph of a result', () => {
  it('finds nodes and relationships in cells, lists, maps and paths, each once', () => {
    const rows: Value[][] = [
      [alice, knows, bob],
      [{ _nodes: [bob, berlin], _rels: [livesIn] }],
      [[alice, bob], { friend: bob }],
    ];
    expect(hasGraphValues(rows)).toBe(true);
    const g = extractGraph(rows);
    expect(g.nodes.map((n) => n.id)).toEqual(['0:0', '0:1', '1:0']);
    expect(g.nodes[0]).toEqual({ id: '0:0', label: 'Person', properties: { id: 1, name: 'Alice' } });
    expect(g.rels).toEqual([
      { id: '2:0', type: 'Knows', source: '0:0', target: '0:1', properties: { since: 2001 } },
      { id: '3:0', type: 'LivesIn', source: '0:1', target: '1:0', properties: {} },
    ]);
    expect(g.nodesLeftOut).toBe(0);
    expect(g.relsLeftOut).toBe(0);
  });

  it('counts what it leaves out: nodes past the limit, relationships without their ends', () => {
    const g = extractGraph([[alice], [bob], [berlin], [knows], [livesIn]], 2);
    expect(g.nodes.map((n) => n.id)).toEqual(['0:0', '0:1']);
    expect(g.nodesLeftOut).toBe(1);
    expect(g.rels.map((r) => r.id)).toEqual(['2:0']);
    expect(g.relsLeftOut).toBe(1);
    expect(extractGraph([[knows]]).relsLeftOut).toBe(1);
  });

  it('sees no graph in scalar results or in maps that only look alike', () => {
    expect(hasGraphValues([[1, 'a', null], [[1, 2]]])).toBe(false);
    expect(hasGraphValues([[{ _id: 3, _label: 'x' }]])).toBe(false);
    expect(extractGraph([]).nodes).toEqual([]);
  });
});

describe('EXPLAIN plan', () => {
  const text =
    'PROJECTION\n  EXPAND from=0 to=2\n    FILTER a.age > 30\n      SCAN_NODE slot=0 tables=0\n        SINGLE_ROW\n';

  it('is recognised by its one explain column', () => {
    expect(isExplainAnswer(['explain'], [[text]])).toBe(true);
    expect(isExplainAnswer(['explain'], [[1]])).toBe(false);
    expect(isExplainAnswer(['explain', 'x'], [[text, 1]])).toBe(false);
  });

  it('becomes a tree by indentation, details kept', () => {
    const [root] = parsePlan(text);
    expect(root?.operator).toBe('PROJECTION');
    const expand = root?.children[0];
    expect(expand).toMatchObject({ operator: 'EXPAND', details: 'from=0 to=2' });
    const filter = expand?.children[0];
    expect(filter).toMatchObject({ operator: 'FILTER', details: 'a.age > 30' });
    expect(filter?.children[0]?.children[0]).toEqual({ operator: 'SINGLE_ROW', details: '', children: [] });
  });

  it('keeps siblings (joins) under the same parent', () => {
    const [root] = parsePlan('HASH_JOIN\n  SCAN_NODE a\n  SCAN_NODE b\n    SINGLE_ROW\nEXTRA\n');
    expect(root?.children.map((c) => c.details)).toEqual(['a', 'b']);
    expect(root?.children[1]?.children[0]?.operator).toBe('SINGLE_ROW');
    expect(parsePlan('HASH_JOIN\n  A\n  B\nEXTRA\n').map((n) => n.operator)).toEqual(['HASH_JOIN', 'EXTRA']);
  });
});

describe('completion', () => {
  const labels = (text: string, pos = text.length) =>
    completeCypher(text, pos, schema)?.options.map((o) => o.label);

  it('offers node labels after ( x: and relationship types after [ r: and |', () => {
    expect(labels('MATCH (p:')).toEqual(['Person', 'City', 'Odd Name']);
    expect(labels('MATCH (p: Pe')).toEqual(['Person', 'City', 'Odd Name']);
    expect(completeCypher('MATCH (p:Pe', 11, schema)?.from).toBe(9);
    expect(labels('MATCH (a)-[r:')).toEqual(['Knows', 'LivesIn']);
    expect(labels('MATCH (a)-[:Knows|')).toEqual(['Knows', 'LivesIn']);
    // A name that needs quoting is inserted with backticks.
    expect(completeCypher('MATCH (x:', 9, schema)?.options.find((o) => o.label === 'Odd Name')?.apply).toBe(
      '`Odd Name`',
    );
  });

  it("offers the properties of the variable's table after x.", () => {
    expect(labels('MATCH (p:Person) RETURN p.')).toEqual(['id', 'name', 'age']);
    expect(labels('MATCH (p:Person)-[k:Knows]->(q) RETURN k.si')).toEqual(['since']);
    // Unknown variable: every property once, with its tables.
    const all = completeCypher('MATCH (q) RETURN q.', 19, schema)?.options;
    expect(all?.map((o) => o.label)).toEqual(['id', 'name', 'age', 'country', 'since']);
    expect(all?.[0]?.detail).toBe('Person');
  });

  it('offers parameters after $ and keywords elsewhere, nothing inside a map value', () => {
    expect(completeCypher('RETURN $', 8, schema, ['id', 'name'])?.options.map((o) => o.label)).toEqual([
      'id',
      'name',
    ]);
    expect(labels('MAT')).toContain('MATCH');
    expect(labels('RETURN co')).toContain('count');
    expect(completeCypher('MATCH (p:Person {name: ', 23, schema)).toBeNull();
    expect(completeCypher('MATCH ', 6, schema)).toBeNull();
    expect(completeCypher('MATCH ', 6, schema, [], true)?.options.length).toBeGreaterThan(10);
  });

  it('offers the variables the query binds, not keywords after brackets', () => {
    const text =
      'MATCH path = (person:Person)-[knows]->(other) WITH count(DISTINCT other) AS total RETURN pe';
    const offered = completeCypher(text, text.length, schema)?.options.filter((o) => o.type === 'variable');
    expect(offered?.map((o) => o.label)).toEqual(['path', 'person', 'knows', 'other', 'total']);
  });

  it('reads brackets past strings, backticks and comments', () => {
    expect(openBracket('MATCH (a {s: "(["})-[r', 22)).toBe('[');
    expect(openBracket('RETURN `a(b` // (\n', 18)).toBeUndefined();
    expect(openBracket('RETURN /* [ */ (', 16)).toBe('(');
    expect(tableOfVariable('MATCH (`my var`:X), (b : `Odd Name`)', 'b')).toBe('Odd Name');
    expect(tableOfVariable('MATCH (b)', 'b')).toBeUndefined();
  });
});

describe('error positions', () => {
  it('marks the word at a 1-based line and column', () => {
    const text = 'MATCH (a:Person)\nRETRN a';
    expect(errorRange(text, 2, 1)).toEqual({ from: 17, to: 22 });
    expect(text.slice(17, 22)).toBe('RETRN');
    expect(errorRange(text, 1, 7)).toEqual({ from: 6, to: 7 });
  });

  it('counts columns in code points, as the engine does', () => {
    const text = 'RETURN "😀" AS x RETRN';
    const { from, to } = errorRange(text, 1, 17);
    expect(text.slice(from, to)).toBe('RETRN');
  });

  it('pulls positions past the end back onto the text', () => {
    expect(errorRange('RETURN', 1, 99)).toEqual({ from: 6, to: 6 });
    expect(errorRange('a\nb', 7, 1)).toEqual({ from: 2, to: 3 });
    expect(errorRange('', 1, 1)).toEqual({ from: 0, to: 0 });
  });
});
