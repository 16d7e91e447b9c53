// The full-text search functions (docs/fts.md), with Kùzu's FTS extension's names, parameters,
// results and errors, built in:
//
//   CREATE_FTS_INDEX(table, index, [properties], stemmer := 'english', stopWords := 'default',
//                    ignore_pattern := <Kùzu's>, tokenizer := 'simple')      -> result
//   QUERY_FTS_INDEX(table, index, query, conjunctive := false, K := 1.2, B := 0.75, top := n)
//                                                                            -> node, score
//   DROP_FTS_INDEX(table, index)                                             -> result
//
// The index is a secondary index of kind "FTS" (exec/secondary_index.h): its definition lives
// in the catalog, its contents (fts/inverted_index.h) are built from the table's rows and kept
// up to date by every commit.
#pragma once

namespace graphdb::fts {

// Makes the functions and the "FTS" index kind known to the binder and the executor.
// Idempotent; thread-safe.
void RegisterFullText();

}  // namespace graphdb::fts
