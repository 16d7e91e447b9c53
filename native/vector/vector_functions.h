// The vector index's table functions (docs/vector.md), with Kùzu's names, parameters, defaults,
// result columns and errors:
//
//   CREATE_VECTOR_INDEX(table, index, property, mu := 30, ml := 60, pu := 0.05,
//                       metric := 'cosine', alpha := 1.1, efc := 200, cache_embeddings := true,
//                       skip_if_exists := false)
//   QUERY_VECTOR_INDEX(table or projected graph, index, query vector, k, efs := 200)
//                                            node, distance (the k nearest, nearest first)
//   DROP_VECTOR_INDEX(table, index, skip_if_not_exists := false)
//
// CREATE and DROP are index DDL (exec/secondary_index.h: the pipeline runs them outside
// transactions, with the database to itself); QUERY reads the index's contents at the
// statement's snapshot, the statement's own uncommitted rows by their stored values.
#pragma once

namespace graphdb::vector {

// Registers the functions with the binder and the executor, the HNSW index kind, and the DDL
// functions. Idempotent; thread-safe.
void RegisterVectorIndex();

}  // namespace graphdb::vector
