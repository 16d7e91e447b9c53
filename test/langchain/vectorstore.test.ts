// quiverdb/langchain's QuiverVectorStore: a @langchain/core VectorStore over the HNSW vector
// index, with deterministic embeddings. Skipped (visibly) in a build without the vector index.
import { Document } from '@langchain/core/documents';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Connection, Database } from '../../src/index.js';
import { QuiverVectorStore } from '../../src/langchain/index.js';
import { hasVectorIndex, VocabularyEmbeddings } from './fixtures.js';

const embeddings = new VocabularyEmbeddings(['graph', 'vector', 'pasta', 'cheese', 'river', 'boat']);
const texts = [
  'graph graph vector',
  'pasta with cheese',
  'a boat on the river',
  'vector vector graph',
  'cheese cheese pasta',
];

describe.skipIf(!hasVectorIndex)('QuiverVectorStore (needs CALL QUERY_VECTOR_INDEX)', () => {
  let db: Database;
  let conn: Connection;
  beforeEach(() => {
    db = new Database(':memory:');
    conn = db.connect();
  });
  afterEach(() => {
    conn.close();
    db.close();
  });

  it('fromTexts stores the texts and finds the nearest by the index, nearest first', async () => {
    const store = await QuiverVectorStore.fromTexts(
      texts,
      texts.map((_, i) => ({ n: i })),
      embeddings,
      { connection: conn },
    );
    const hits = await store.similaritySearchWithScore('graph', 2);
    expect(hits.map(([d]) => d.pageContent)).toEqual(['graph graph vector', 'vector vector graph']);
    expect(hits.map(([d]) => d.metadata)).toEqual([{ n: 0 }, { n: 3 }]);
    expect(hits[0][1]).toBeLessThan(hits[1][1]);
    const [[nearest]] = await store.similaritySearchWithScore('cheese and pasta', 1);
    expect(nearest.pageContent).toBe('pasta with cheese');
    // The table and index are ordinary Cypher objects.
    expect(await conn.query('MATCH (c:Chunk) RETURN count(*) AS n').then((r) => r.rows)).toEqual([[5]]);
  });

  it('addDocuments with ids replaces a stored id; delete removes by id', async () => {
    const store = new QuiverVectorStore(embeddings, { connection: conn, table: 'Passage' });
    const ids = await store.addDocuments(
      [new Document({ pageContent: 'river boat' }), new Document({ pageContent: 'graph vector' })],
      { ids: ['a', 'b'] },
    );
    expect(ids).toEqual(['a', 'b']);
    await store.addDocuments([new Document({ pageContent: 'pasta cheese', metadata: { v: 2 } })], {
      ids: ['a'],
    });
    const [[first]] = await store.similaritySearchWithScore('cheese', 1);
    expect(first.id).toBe('a');
    expect(first.pageContent).toBe('pasta cheese');
    expect(first.metadata).toEqual({ v: 2 });
    expect((await conn.query('MATCH (p:Passage) RETURN count(*)')).rows).toEqual([[2]]);
    await store.delete({ ids: ['a'] });
    const left = await store.similaritySearch('cheese', 5);
    expect(left.map((d) => d.id)).toEqual(['b']);
  });

  it('stores vectors of whole numbers and of fractions in one call', async () => {
    const store = new QuiverVectorStore(embeddings, { connection: conn });
    const unit = (axis: number, scale = 1) => Array.from({ length: 7 }, (_, i) => (i === axis ? scale : 0));
    await store.addVectors(
      [unit(0), unit(1, 0.5), unit(2, 3)],
      ['x', 'y', 'z'].map((pageContent) => new Document({ pageContent })),
      { ids: ['x', 'y', 'z'] },
    );
    const hits = await store.similaritySearchVectorWithScore(unit(1, 0.25), 3);
    expect(hits.map(([d]) => d.id)).toEqual(['y', 'x', 'z']);
    expect(hits[0][1]).toBeCloseTo(0, 6);
  });

  it('a second store on the same table reads its dimension; another dimension is refused', async () => {
    await QuiverVectorStore.fromDocuments([new Document({ pageContent: 'boat' })], embeddings, {
      connection: conn,
    });
    const again = new QuiverVectorStore(embeddings, { connection: conn });
    expect((await again.similaritySearch('boat', 1))[0].pageContent).toBe('boat');
    await expect(again.similaritySearchVectorWithScore([1, 0, 0], 1)).rejects.toThrow(
      /3 dimensions, but table Chunk holds 7/,
    );
  });

  it('refuses bad filters and bad arguments with clear errors', async () => {
    const store = await QuiverVectorStore.fromTexts(texts, {}, embeddings, { database: db });
    await expect(store.similaritySearchVectorWithScore(await embeddings.embedQuery('x'), 0)).rejects.toThrow(
      /k must be a positive integer/,
    );
    await expect(store.addVectors([[1]], [])).rejects.toThrow(/as many vectors as documents/);
    const q = await embeddings.embedQuery('x');
    await expect(store.similaritySearchVectorWithScore(q, 1, { 'a.b': 1 })).rejects.toThrow(
      /not a plain name/,
    );
    await expect(store.similaritySearchVectorWithScore(q, 1, { a: [1] as never })).rejects.toThrow(
      /must be a string, a finite number or a boolean/,
    );
    await expect(store.similaritySearchVectorWithScore(q, 1, { a: Number.NaN })).rejects.toThrow(
      /finite number/,
    );
    store.close();
  });

  it('filters by metadata values, searching only the matching documents', async () => {
    const metadatas = [
      { kind: 'tech', n: 0, draft: false },
      { kind: 'food', n: 1 },
      { kind: 'travel', n: 2 },
      { kind: "tech'quoted", n: 3 },
      { kind: 'food', n: 4, draft: true },
    ];
    const store = await QuiverVectorStore.fromTexts(texts, metadatas, embeddings, { connection: conn });
    // The nearest to 'graph' among food documents, then among documents of n 3 and kind tech'quoted.
    const food = await store.similaritySearch('graph', 5, { kind: 'food' });
    expect(food.map((d) => d.metadata.n).sort()).toEqual([1, 4]);
    const quoted = await store.similaritySearch('graph', 5, { kind: "tech'quoted", n: 3 });
    expect(quoted.map((d) => d.metadata.n)).toEqual([3]);
    expect((await store.similaritySearch('cheese', 5, { draft: true })).map((d) => d.metadata.n)).toEqual([
      4,
    ]);
    expect(await store.similaritySearch('cheese', 5, { kind: 'none' })).toEqual([]);
    // An empty filter matches everything; the filter's projected graph is gone afterwards.
    expect(await store.similaritySearch('graph', 5, {})).toHaveLength(5);
    expect((await conn.query('CALL SHOW_PROJECTED_GRAPHS() RETURN *')).rows).toEqual([]);
  });
});
