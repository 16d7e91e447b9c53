// Shared by the retrieval tests: feature probes for the vector and full-text indexes, and a
// deterministic embeddings class.

import { Embeddings } from '@langchain/core/embeddings';
import { Database } from '../../src/index.js';

/** Whether `statements` all run on a fresh in-memory database. */
function runs(statements: string[]): boolean {
  const db = new Database(':memory:');
  const conn = db.connect();
  try {
    for (const statement of statements) conn.querySync(statement);
    return true;
  } catch {
    return false;
  } finally {
    conn.close();
    db.close();
  }
}

/** CALL CREATE_VECTOR_INDEX / QUERY_VECTOR_INDEX work in this build. */
export const hasVectorIndex = runs([
  'CREATE NODE TABLE P(id INT64, v FLOAT[2], PRIMARY KEY(id))',
  'CREATE (:P {id: 1, v: [1.0, 0.0]})',
  "CALL CREATE_VECTOR_INDEX('P', 'p_v', 'v', metric := 'cosine')",
  "CALL QUERY_VECTOR_INDEX('P', 'p_v', [1.0, 0.0], 1) RETURN node.id",
]);

/** CALL CREATE_FTS_INDEX / QUERY_FTS_INDEX work in this build. */
export const hasFtsIndex = runs([
  'CREATE NODE TABLE P(id INT64, t STRING, PRIMARY KEY(id))',
  "CREATE (:P {id: 1, t: 'graph'})",
  "CALL CREATE_FTS_INDEX('P', 'p_t', ['t'], stemmer := 'porter')",
  "CALL QUERY_FTS_INDEX('P', 'p_t', 'graph', top := 1) RETURN node.id, score",
]);

/** The words of a text, lower case. */
function words(text: string): string[] {
  return text.toLowerCase().match(/[a-z0-9]+/g) ?? [];
}

/**
 * Deterministic embeddings: each word adds 1 to the axis of `vocabulary` it names (words
 * outside it to a last axis), so texts sharing words are near each other by cosine.
 */
export class VocabularyEmbeddings extends Embeddings {
  readonly vocabulary: string[];

  constructor(vocabulary: string[]) {
    super({});
    this.vocabulary = vocabulary;
  }

  embed(text: string): number[] {
    const vector = new Array(this.vocabulary.length + 1).fill(0);
    for (const word of words(text)) {
      const axis = this.vocabulary.indexOf(word);
      vector[axis === -1 ? this.vocabulary.length : axis] += 1;
    }
    // A text with no word at all still needs a direction for cosine.
    if (vector.every((x) => x === 0)) vector[this.vocabulary.length] = 1;
    return vector;
  }

  async embedDocuments(texts: string[]): Promise<number[][]> {
    return texts.map((t) => this.embed(t));
  }

  async embedQuery(text: string): Promise<number[]> {
    return this.embed(text);
  }
}
