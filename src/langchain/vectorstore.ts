// A LangChain vector store over QuiverDB's HNSW vector index: documents are nodes of one table
// (id STRING primary key, text, metadata as JSON text, embedding FLOAT[dimension]) with a
// vector index on the embedding; searches run CALL QUERY_VECTOR_INDEX.

import { randomUUID } from 'node:crypto';
import { Document, type DocumentInterface } from '@langchain/core/documents';
import type { EmbeddingsInterface } from '@langchain/core/embeddings';
import { VectorStore } from '@langchain/core/vectorstores';
import { GraphDBError } from '../core/errors.js';
import { ConnectionHolder, identifier, literal, type QuiverConnectionOptions } from './common.js';

export type VectorMetric = 'cosine' | 'l2' | 'l2sq' | 'dotproduct';

/**
 * A metadata filter: each key names a top-level metadata field (letters, digits and `_`), and a
 * document matches when every named field holds that value (a string, a finite number or a
 * boolean, compared as JSON). `{}` matches every document.
 */
export type QuiverMetadataFilter = Record<string, string | number | boolean>;

/** The filter as a node predicate over the table's `metadata` JSON text (project_graph's form). */
function filterPredicate(filter: QuiverMetadataFilter): string | null {
  if (filter === null || typeof filter !== 'object' || Array.isArray(filter)) {
    throw new GraphDBError(
      'QuiverVectorStore: a filter must be an object of metadata values',
      'INVALID_REQUEST',
    );
  }
  const terms: string[] = [];
  for (const [key, value] of Object.entries(filter)) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(key)) {
      throw new GraphDBError(
        `QuiverVectorStore: filter key ${JSON.stringify(key)} is not a plain name (letters, digits, _)`,
        'INVALID_REQUEST',
      );
    }
    const ok =
      typeof value === 'string' ||
      typeof value === 'boolean' ||
      (typeof value === 'number' && Number.isFinite(value));
    if (!ok) {
      throw new GraphDBError(
        `QuiverVectorStore: filter value of ${key} must be a string, a finite number or a boolean`,
        'INVALID_REQUEST',
      );
    }
    terms.push(
      `CAST(json_extract(n.metadata, ${literal(`$.${key}`)}) AS STRING) = ${literal(JSON.stringify(value))}`,
    );
  }
  return terms.length === 0 ? null : terms.join(' AND ');
}

export interface QuiverVectorStoreArgs extends QuiverConnectionOptions {
  /** The node table holding the documents (default `Chunk`); created on the first add. */
  table?: string;
  /** The vector index's name (default `<table>_embedding_index`). */
  indexName?: string;
  /** The index's distance (default cosine). */
  metric?: VectorMetric;
  /** The candidate list size of a search (QUERY_VECTOR_INDEX's efs; default 200). */
  efs?: number;
  /** More CREATE_VECTOR_INDEX options (mu, ml, efc, pu, alpha), passed as given. */
  indexOptions?: Record<string, number>;
}

/** The score similaritySearchVectorWithScore gives: the index's distance (lower is closer). */
export class QuiverVectorStore extends VectorStore {
  declare FilterType: QuiverMetadataFilter;
  readonly table: string;
  readonly indexName: string;
  readonly metric: VectorMetric;
  efs: number;
  readonly #indexOptions: Record<string, number>;
  readonly #db: ConnectionHolder;
  #dimension: number | undefined;

  _vectorstoreType(): string {
    return 'quiverdb';
  }

  constructor(embeddings: EmbeddingsInterface, args: QuiverVectorStoreArgs) {
    super(embeddings, args);
    this.#db = new ConnectionHolder(args, 'QuiverVectorStore');
    this.table = args.table ?? 'Chunk';
    identifier(this.table, 'table');
    this.indexName = args.indexName ?? `${this.table}_embedding_index`;
    this.metric = args.metric ?? 'cosine';
    this.efs = args.efs ?? 200;
    this.#indexOptions = args.indexOptions ?? {};
    for (const [name, value] of Object.entries(this.#indexOptions)) {
      if (!/^[a-z_]+$/.test(name) || typeof value !== 'number' || !Number.isFinite(value)) {
        throw new GraphDBError(`QuiverVectorStore: bad index option ${name}`, 'INVALID_REQUEST');
      }
    }
  }

  /**
   * The table's embedding dimension, creating the table and its index with `dimension` when
   * the table does not exist yet; an existing table of another dimension is an error.
   */
  async #ensure(dimension: number): Promise<number> {
    if (this.#dimension === undefined) {
      const tables = await this.#db.rows('CALL show_tables() RETURN name');
      if (tables.some((t) => t.name === this.table)) {
        const info = await this.#db.rows(`CALL table_info(${literal(this.table)}) RETURN *`);
        const embedding = info.map((row) => Object.values(row)).find((row) => row[1] === 'embedding');
        const match = /\[(\d+)\]$/.exec(String(embedding?.[2] ?? ''));
        if (!match) {
          throw new GraphDBError(
            `QuiverVectorStore: table ${this.table} has no embedding FLOAT[n] column`,
            'INVALID_REQUEST',
          );
        }
        this.#dimension = Number(match[1]);
      } else {
        const table = identifier(this.table, 'table');
        await this.#db.rows(
          `CREATE NODE TABLE ${table}(id STRING, text STRING, metadata STRING, embedding FLOAT[${dimension}], PRIMARY KEY(id))`,
        );
        const options = Object.entries({ ...this.#indexOptions })
          .map(([name, value]) => `, ${name} := ${value}`)
          .join('');
        await this.#db.rows(
          `CALL CREATE_VECTOR_INDEX(${literal(this.table)}, ${literal(this.indexName)}, 'embedding', metric := ${literal(this.metric)}${options})`,
        );
        this.#dimension = dimension;
      }
    }
    if (dimension !== this.#dimension) {
      throw new GraphDBError(
        `QuiverVectorStore: embeddings of ${dimension} dimensions, but table ${this.table} holds ${this.#dimension}`,
        'INVALID_REQUEST',
      );
    }
    return this.#dimension;
  }

  /** Stores documents with their vectors; an id already stored is replaced. Returns the ids. */
  async addVectors(
    vectors: number[][],
    documents: DocumentInterface[],
    options?: { ids?: string[] },
  ): Promise<string[]> {
    if (vectors.length !== documents.length) {
      throw new GraphDBError('QuiverVectorStore: as many vectors as documents are needed', 'INVALID_REQUEST');
    }
    if (options?.ids && options.ids.length !== documents.length) {
      throw new GraphDBError('QuiverVectorStore: as many ids as documents are needed', 'INVALID_REQUEST');
    }
    if (documents.length === 0) return [];
    const dimension = await this.#ensure(vectors[0].length);
    const ids = documents.map((d, i) => String(options?.ids?.[i] ?? d.id ?? randomUUID()));
    const rows = documents.map((d, i) => {
      if (vectors[i].length !== dimension) {
        throw new GraphDBError(
          `QuiverVectorStore: vector ${i} has ${vectors[i].length} dimensions, not ${dimension}`,
          'INVALID_REQUEST',
        );
      }
      return {
        id: ids[i],
        text: d.pageContent,
        metadata: JSON.stringify(d.metadata ?? {}),
        embedding: vectors[i],
      };
    });
    const table = identifier(this.table, 'table');
    // One list: a batch whose vectors mix whole numbers and fractions widens to DOUBLE.
    const create =
      `UNWIND $rows AS r CREATE (:${table} {id: r.id, text: r.text, metadata: r.metadata, ` +
      `embedding: CAST(r.embedding AS FLOAT[${dimension}])})`;
    // A replaced document is deleted, then created again, in one transaction (the statements
    // of one text).
    await this.#db.rows(`MATCH (c:${table}) WHERE c.id IN $ids DELETE c; ${create}`, { ids, rows });
    return ids;
  }

  /** Embeds the documents' text with the store's embeddings, then addVectors. */
  async addDocuments(documents: DocumentInterface[], options?: { ids?: string[] }): Promise<string[]> {
    const vectors = await this.embeddings.embedDocuments(documents.map((d) => d.pageContent));
    return this.addVectors(vectors, documents, options);
  }

  /** The k nearest documents to `query` with their distances (lower is closer), nearest first. */
  async similaritySearchVectorWithScore(
    query: number[],
    k: number,
    filter?: this['FilterType'],
  ): Promise<[Document, number][]> {
    if (!Number.isInteger(k) || k < 1)
      throw new GraphDBError('QuiverVectorStore: k must be a positive integer', 'INVALID_REQUEST');
    const predicate = filter === undefined ? null : filterPredicate(filter);
    // Checks the dimension (and reads it from an existing table).
    await this.#ensure(query.length);
    // A filter becomes a projected graph of the matching rows, which the index searches alone
    // (docs/vector.md, filtered search); the graph is dropped after the search.
    const graph = predicate === null ? null : `_quiver_filter_${randomUUID().replaceAll('-', '')}`;
    if (graph !== null) {
      await this.#db.rows(
        `CALL PROJECT_GRAPH(${literal(graph)}, {${literal(this.table)}: ${literal(predicate as string)}}, [])`,
      );
    }
    let rows: Record<string, unknown>[];
    try {
      rows = await this.#db.rows(
        `CALL QUERY_VECTOR_INDEX(${literal(graph ?? this.table)}, ${literal(this.indexName)}, $q, $k, efs := $efs) ` +
          'RETURN node.id AS id, node.text AS text, node.metadata AS metadata, distance ORDER BY distance, id',
        { q: query, k, efs: Math.max(this.efs, k) },
      );
    } finally {
      if (graph !== null) await this.#db.rows(`CALL DROP_PROJECTED_GRAPH(${literal(graph)})`);
    }
    return rows.map((row) => [
      new Document({
        id: String(row.id),
        pageContent: String(row.text ?? ''),
        metadata: JSON.parse(String(row.metadata ?? '{}')),
      }),
      Number(row.distance),
    ]);
  }

  /** Deletes the documents with these ids. */
  override async delete(params: { ids: string[] }): Promise<void> {
    if (!params || !Array.isArray(params.ids)) {
      throw new GraphDBError('QuiverVectorStore: delete({ ids }) takes the ids to delete', 'INVALID_REQUEST');
    }
    const tables = await this.#db.rows('CALL show_tables() RETURN name');
    if (!tables.some((t) => t.name === this.table)) return;
    await this.#db.rows(`MATCH (c:${identifier(this.table, 'table')}) WHERE c.id IN $ids DELETE c`, {
      ids: params.ids.map(String),
    });
  }

  static override async fromTexts(
    texts: string[],
    metadatas: object[] | object,
    embeddings: EmbeddingsInterface,
    args: QuiverVectorStoreArgs,
  ): Promise<QuiverVectorStore> {
    const documents = texts.map(
      (text, i) =>
        new Document({
          pageContent: text,
          metadata: (Array.isArray(metadatas) ? metadatas[i] : metadatas) as Record<string, unknown>,
        }),
    );
    return QuiverVectorStore.fromDocuments(documents, embeddings, args);
  }

  static override async fromDocuments(
    documents: DocumentInterface[],
    embeddings: EmbeddingsInterface,
    args: QuiverVectorStoreArgs,
  ): Promise<QuiverVectorStore> {
    const store = new QuiverVectorStore(embeddings, args);
    await store.addDocuments(documents);
    return store;
  }

  /** Closes the connection the store opened (not one it was given). */
  close(): void {
    this.#db.close();
  }
}
