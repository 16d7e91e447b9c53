// GraphRAG end to end (docs/retrieval.md): the query of docs/retrieval.md takes the top-k
// chunks by vector and by keywords, fuses the two rankings by reciprocal rank in Cypher, and
// expands from the best chunks to the entities they mention and the entities related to those.
// Skipped (visibly) in a build without the vector or full-text index.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Connection, Database } from '../../src/index.js';
import { hasFtsIndex, hasVectorIndex } from '../langchain/fixtures.js';

/** The GraphRAG query as docs/retrieval.md gives it (the cypher block after its marker). */
function documentedQuery(): string {
  const text = fs.readFileSync(path.resolve(__dirname, '../../docs/retrieval.md'), 'utf8');
  const match = /<!-- graphrag-query -->\s*(?:<!--.*-->\s*)?```cypher\n([\s\S]*?)```/.exec(text);
  if (!match) throw new Error('docs/retrieval.md has no cypher block after <!-- graphrag-query -->');
  return match[1];
}

const CHUNKS: [number, string, number[]][] = [
  [1, 'HNSW builds a layered graph index', [1, 0, 0, 0]],
  [2, 'vector search finds nearest neighbours', [0.9, 0.2, 0, 0]],
  [3, 'an inverted index ranks documents by BM25', [0, 1, 0, 0]],
  [4, 'HNSW index and BM25 index fused', [0.6, 0.6, 0, 0]],
  [5, 'pasta recipes for busy evenings', [0, 0, 1, 0]],
  [6, 'rivers and boats', [0, 0, 0, 1]],
];
const MENTIONS: [number, string][] = [
  [1, 'HNSW'],
  [2, 'Nearest neighbour search'],
  [3, 'BM25'],
  [4, 'HNSW'],
  [4, 'BM25'],
  [5, 'Pasta'],
];
const RELATED: [string, string][] = [
  ['HNSW', 'Graph'],
  ['BM25', 'Inverted index'],
  ['Nearest neighbour search', 'HNSW'],
];

describe.skipIf(!hasVectorIndex || !hasFtsIndex)(
  'GraphRAG: vector + keyword search fused, then expanded',
  () => {
    let db: Database;
    let conn: Connection;
    beforeAll(async () => {
      db = new Database(':memory:');
      conn = db.connect();
      await conn.query('CREATE NODE TABLE Chunk(id INT64, text STRING, embedding FLOAT[4], PRIMARY KEY(id))');
      await conn.query('CREATE NODE TABLE Entity(name STRING, PRIMARY KEY(name))');
      await conn.query('CREATE REL TABLE MENTIONS(FROM Chunk TO Entity)');
      await conn.query('CREATE REL TABLE RELATED(FROM Entity TO Entity)');
      // One statement per chunk: a list parameter cannot mix [1, 0, 0, 0] (INT64[]) with
      // [0.9, 0.2, 0, 0] (DOUBLE[]).
      for (const [id, text, embedding] of CHUNKS) {
        await conn.query('CREATE (:Chunk {id: $id, text: $text, embedding: $embedding})', {
          id,
          text,
          embedding,
        });
      }
      const names = [...new Set([...MENTIONS.map(([, e]) => e), ...RELATED.flat()])];
      await conn.query('UNWIND $names AS n CREATE (:Entity {name: n})', { names });
      await conn.query(
        'UNWIND $pairs AS p MATCH (c:Chunk {id: p.chunk}), (e:Entity {name: p.entity}) CREATE (c)-[:MENTIONS]->(e)',
        { pairs: MENTIONS.map(([chunk, entity]) => ({ chunk, entity })) },
      );
      await conn.query(
        'UNWIND $pairs AS p MATCH (a:Entity {name: p[1]}), (b:Entity {name: p[2]}) CREATE (a)-[:RELATED]->(b)',
        { pairs: RELATED },
      );
      await conn.query("CALL CREATE_FTS_INDEX('Chunk', 'chunk_text', ['text'], stemmer := 'porter')");
      await conn.query(
        "CALL CREATE_VECTOR_INDEX('Chunk', 'chunk_embedding', 'embedding', metric := 'cosine')",
      );
    });
    afterAll(() => {
      conn?.close();
      db?.close();
    });

    const params = { text: 'hnsw index', embedding: [1, 0.1, 0, 0], k: 3, efs: 64, top: 3 };

    it('each index ranks on its own as expected', async () => {
      const keyword = await conn.query(
        "CALL QUERY_FTS_INDEX('Chunk', 'chunk_text', $text, top := $k) RETURN node.id ORDER BY score DESC",
        { text: params.text, k: params.k },
      );
      expect(keyword.rows.flat()).toEqual([4, 1, 3]);
      const semantic = await conn.query(
        "CALL QUERY_VECTOR_INDEX('Chunk', 'chunk_embedding', $embedding, $k, efs := $efs) RETURN node.id ORDER BY distance",
        { embedding: params.embedding, k: params.k, efs: params.efs },
      );
      expect(semantic.rows.flat()).toEqual([1, 2, 4]);
    });

    it('fuses the two rankings by reciprocal rank and expands to entities', async () => {
      const result = await conn.query(documentedQuery(), params);
      const rows = result.toObjects();
      // semantic [1, 2, 4], keyword [4, 1, 3]: 1 = 1/61 + 1/62, 4 = 1/63 + 1/61, 2 = 1/62, 3 = 1/63.
      expect(rows.map((r) => r.chunk)).toEqual([1, 4, 2]);
      expect(rows.map((r) => r.rrf)).toEqual([
        expect.closeTo(1 / 61 + 1 / 62, 12),
        expect.closeTo(1 / 63 + 1 / 61, 12),
        expect.closeTo(1 / 62, 12),
      ]);
      const sorted = (v: unknown) => [...((v as string[] | null) ?? [])].sort();
      expect(rows.map((r) => sorted(r.entities))).toEqual([
        ['HNSW'],
        ['BM25', 'HNSW'],
        ['Nearest neighbour search'],
      ]);
      expect(rows.map((r) => sorted(r.related))).toEqual([
        ['Graph', 'Nearest neighbour search'],
        ['Graph', 'Inverted index', 'Nearest neighbour search'],
        ['HNSW'],
      ]);
    });

    it('with no keyword match the vector ranking alone decides', async () => {
      const rows = (await conn.query(documentedQuery(), { ...params, text: 'zeppelin' })).toObjects();
      expect(rows.map((r) => r.chunk)).toEqual([1, 2, 4]);
      expect(rows.map((r) => r.rrf)).toEqual([
        expect.closeTo(1 / 61, 12),
        expect.closeTo(1 / 62, 12),
        expect.closeTo(1 / 63, 12),
      ]);
    });
  },
);
