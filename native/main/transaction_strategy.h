// The five internal transaction strategies of the service specification, and how the slot
// picks one for a statement: from what the statement does (its access mode), whether it runs
// inside an explicit transaction, and whether the slot belongs to an embedded connection or
// to the service's pool. Clients never choose. docs/concurrency.md describes each.
//
// Thread-safety: ChooseStatementTransaction reads the database's MVCC state; the caller
// holds the locks that fit the statement (ExecuteBound in main/query_pipeline.cc).
#pragma once

#include <cstdint>

#include "exec/graph_store.h"
#include "main/database.h"
#include "main/request.h"

namespace graphdb {

struct Transaction;  // main/query_pipeline.h

enum class TransactionStrategy : uint8_t {
  kSnapshotRead,       // reads, and READ ONLY transactions (pinned snapshot)
  kMvccInsert,         // auto-commit statements that only add nodes and edges
  kSnapshotCowWrite,   // explicit read-write transactions, and the service's updates
  kCurrentCowWrite,    // updates of embedded connections, on the current graph
  kInPlaceCompaction,  // compaction (Database::Compact), not statements
};

const char* TransactionStrategyName(TransactionStrategy strategy);

// How one statement runs.
struct StatementTransaction {
  TransactionStrategy strategy = TransactionStrategy::kSnapshotRead;
  exec::Snapshot snapshot;                       // what it reads
  uint64_t stamp = exec::GraphStore::kReadOnly;  // the stamp of its writes
  bool keep_versions = false;                    // SET keeps old values for other snapshots
};

// `mode`: what the statement needs (StatementAccessMode). `transaction`: the session's open
// explicit transaction, or null. `embedded`: the slot of an embedded connection.
StatementTransaction ChooseStatementTransaction(Database& db, const Transaction* transaction,
                                                AccessMode mode, bool embedded);

}  // namespace graphdb
