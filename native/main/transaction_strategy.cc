#include "main/transaction_strategy.h"

#include "main/query_pipeline.h"

namespace graphdb {

const char* TransactionStrategyName(TransactionStrategy strategy) {
  switch (strategy) {
    case TransactionStrategy::kSnapshotRead:
      return "SnapshotReadTransaction";
    case TransactionStrategy::kMvccInsert:
      return "MvccInsertTransaction";
    case TransactionStrategy::kSnapshotCowWrite:
      return "SnapshotCowWriteTransaction";
    case TransactionStrategy::kCurrentCowWrite:
      return "CurrentCowWriteTransaction";
    case TransactionStrategy::kInPlaceCompaction:
      break;
  }
  return "InPlaceCompactionTransaction";
}

StatementTransaction ChooseStatementTransaction(Database& db, const Transaction* transaction,
                                                AccessMode mode, bool embedded) {
  StatementTransaction t;
  const bool writes = mode != AccessMode::kRead;
  if (transaction && transaction->read_only) {
    // Every statement reads the snapshot pinned at BEGIN. The key index describes the newest
    // state; it answers for this snapshot only while nothing changed since.
    t.strategy = TransactionStrategy::kSnapshotRead;
    t.snapshot.read_ts = transaction->read_ts;
    t.snapshot.index_exact =
        transaction->read_ts == db.visible_ts() && !db.transaction_gate().HasOpenTransaction();
  } else if (transaction) {
    // The latest state (no other writer runs while it is open) plus its own writes, which
    // carry its uncommitted stamp until COMMIT; other sessions read the old values.
    t.strategy = TransactionStrategy::kSnapshotCowWrite;
    t.snapshot.own = transaction->stamp;
    if (writes) t.stamp = transaction->stamp;
    t.keep_versions = true;
  } else if (writes) {
    // Auto-commit: stamped with the commit timestamp it will get; old values are kept only
    // for read-only transactions that are open (statements never overlap a writer).
    t.strategy = mode == AccessMode::kInsert ? TransactionStrategy::kMvccInsert
                 : embedded                  ? TransactionStrategy::kCurrentCowWrite
                                             : TransactionStrategy::kSnapshotCowWrite;
    t.stamp = t.snapshot.own = db.NextCommitTs();
    t.keep_versions = t.strategy != TransactionStrategy::kMvccInsert && db.HasPinnedSnapshots();
  } else {
    t.strategy = TransactionStrategy::kSnapshotRead;
    t.snapshot.read_ts = db.visible_ts();
    t.snapshot.index_exact = !db.transaction_gate().HasOpenTransaction();
  }
  return t;
}

}  // namespace graphdb
