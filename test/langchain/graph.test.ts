// quiverdb/langchain's QuiverGraph: the graph-store shape of @langchain/community (query,
// getSchema, refreshSchema, addGraphDocuments with includeSource).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Connection, Database } from '../../src/index.js';
import { type GraphDocumentInput, QuiverGraph } from '../../src/langchain/index.js';

const alice = { id: 'alice', type: 'Person', properties: { age: 41, role: 'engineer' } };
const acme = { id: 'acme', type: 'Company', properties: { founded: 1999 } };
const paris = { id: 'paris', type: 'City' };

const documents: GraphDocumentInput[] = [
  {
    nodes: [alice, acme],
    relationships: [{ source: alice, target: acme, type: 'WORKS_AT', properties: { since: 2020 } }],
    source: { pageContent: 'Alice works at Acme since 2020.', metadata: { id: 'doc-1', page: 3 } },
  },
  {
    nodes: [acme, paris],
    relationships: [
      { source: acme, target: paris, type: 'LOCATED_IN' },
      { source: alice, target: paris, type: 'LOCATED_IN' },
    ],
    source: { pageContent: 'Acme is in Paris; so is Alice.' },
  },
];

describe('QuiverGraph', () => {
  let db: Database;
  let conn: Connection;
  let graph: QuiverGraph;
  beforeEach(async () => {
    db = new Database(':memory:');
    conn = db.connect();
    graph = await QuiverGraph.initialize({ connection: conn });
  });
  afterEach(() => {
    graph.close();
    conn.close();
    db.close();
  });

  it('runs Cypher with parameters and returns rows as objects', async () => {
    await graph.query('CREATE NODE TABLE T(id INT64, name STRING, PRIMARY KEY(id))');
    await graph.query('CREATE (:T {id: $id, name: $name})', { id: 7, name: 'seven' });
    expect(await graph.query('MATCH (t:T) RETURN t.id AS id, t.name AS name')).toEqual([
      { id: 7, name: 'seven' },
    ]);
  });

  it('stores graph documents as tables, nodes and relationships, and reads the schema', async () => {
    expect(graph.getSchema()).not.toContain('Person');
    await graph.addGraphDocuments(documents);
    const people = await graph.query('MATCH (p:Person) RETURN p.id AS id, p.age AS age, p.role AS role');
    expect(people).toEqual([{ id: 'alice', age: 41, role: 'engineer' }]);
    const edges = await graph.query(
      'MATCH (a)-[r]->(b) RETURN label(r) AS type, a.id AS a, b.id AS b ORDER BY type, a',
    );
    expect(edges).toEqual([
      { type: 'LOCATED_IN', a: 'acme', b: 'paris' },
      { type: 'LOCATED_IN', a: 'alice', b: 'paris' },
      { type: 'WORKS_AT', a: 'alice', b: 'acme' },
    ]);
    expect(await graph.query('MATCH ()-[r:WORKS_AT]->() RETURN r.since AS since')).toEqual([{ since: 2020 }]);
    const schema = graph.getStructuredSchema();
    expect(Object.keys(schema.nodeProps).sort()).toEqual(['City', 'Company', 'Person']);
    expect(schema.nodeProps.Person).toEqual([
      { property: 'id', type: 'STRING' },
      { property: 'age', type: 'INT64' },
      { property: 'role', type: 'STRING' },
    ]);
    expect(schema.relationships).toContainEqual({ start: 'Company', type: 'LOCATED_IN', end: 'City' });
    expect(schema.relationships).toContainEqual({ start: 'Person', type: 'LOCATED_IN', end: 'City' });
    expect(graph.getSchema()).toContain('(:Person)-[:WORKS_AT]->(:Company)');
    expect(graph.getSchema()).toContain('Person {id: STRING, age: INT64, role: STRING}');
  });

  it('merges: adding the same documents again adds no node or relationship', async () => {
    await graph.addGraphDocuments(documents);
    await graph.addGraphDocuments(documents);
    expect(await graph.query('MATCH (n) RETURN count(*) AS n')).toEqual([{ n: 3 }]);
    expect(await graph.query('MATCH ()-[r]->() RETURN count(*) AS n')).toEqual([{ n: 3 }]);
  });

  it('includeSource stores each source as a Document that MENTIONS its nodes', async () => {
    await graph.addGraphDocuments(documents, { includeSource: true });
    const mentions = await graph.query(
      'MATCH (d:Document)-[:MENTIONS]->(n) RETURN d.id AS doc, n.id AS node ORDER BY doc, node',
    );
    const second = mentions.find((m) => m.doc !== 'doc-1')?.doc;
    expect(second).toMatch(/^[0-9a-f]{32}$/);
    expect(mentions).toEqual(
      [
        { doc: 'doc-1', node: 'acme' },
        { doc: 'doc-1', node: 'alice' },
        { doc: second, node: 'acme' },
        { doc: second, node: 'paris' },
      ].sort((a, b) => String(a.doc).localeCompare(String(b.doc)) || a.node.localeCompare(b.node)),
    );
    const [doc] = await graph.query(
      "MATCH (d:Document {id: 'doc-1'}) RETURN d.text AS text, d.metadata AS m",
    );
    expect(doc.text).toBe('Alice works at Acme since 2020.');
    expect(JSON.parse(String(doc.m))).toEqual({ id: 'doc-1', page: 3 });
  });

  it('refuses baseEntityLabel and names with backquotes', async () => {
    await expect(graph.addGraphDocuments(documents, { baseEntityLabel: true })).rejects.toThrow(
      /baseEntityLabel is not supported/,
    );
    await expect(
      graph.addGraphDocuments([{ nodes: [{ id: 'x', type: 'Bad`Type' }], relationships: [] }]),
    ).rejects.toThrow(/without backquotes/);
  });

  it('needs a database or a connection', () => {
    expect(() => new QuiverGraph({})).toThrow(/pass \{ database \} or \{ connection \}/);
  });
});
