// `quiverdb/langchain`: LangChain.js integrations (docs/retrieval.md). QuiverGraph is a graph
// store in the shape of @langchain/community's (GraphCypherQAChain, LLMGraphTransformer's
// GraphDocuments); QuiverVectorStore is a @langchain/core VectorStore over the HNSW vector
// index. @langchain/core is an optional peer dependency: install it to use this entry.

export type { QuiverConnectionOptions } from './common.js';
export {
  type AddGraphDocumentsConfig,
  type GraphDocumentInput,
  type GraphDocumentNode,
  type GraphDocumentRelationship,
  QuiverGraph,
  type QuiverGraphOptions,
  type StructuredSchema,
} from './graph.js';
export { QuiverVectorStore, type QuiverVectorStoreArgs, type VectorMetric } from './vectorstore.js';
