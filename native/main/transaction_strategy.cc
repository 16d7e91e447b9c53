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
    // Every statement reads the snapshot pinned at BEGIN.
    t.strategy = TransactionStrategy::kSnapshotRead;
    t.snapshot.read_ts = transaction->read_ts;
  } else if (transaction) {
    // The latest state (no other writer runs while it is open) plus its own writes, which
    // carry its uncommitted stamp until COMMIT; other sessions read the old values.
    t.strategy = TransactionStrategy::kSnapshotCowWrite;
    t.snapshot.own = transaction->stamp;
    if (writes) t.stamp = transaction->stamp;
    t.keep_versions = true;
  } else if (writes) {
    // Auto-commit: stamped with the commit timestamp it will get, which no reader sees until
    // the commit is published; old values go to the version store before each overwrite, for
    // the reads running beside it and the open READ ONLY transactions.
    t.strategy = mode == AccessMode::kInsert ? TransactionStrategy::kMvccInsert
                 : embedded                  ? TransactionStrategy::kCurrentCowWrite
                                             : TransactionStrategy::kSnapshotCowWrite;
    t.stamp = t.snapshot.own = db.NextCommitTs();
    t.keep_versions = true;
  } else {
    t.strategy = TransactionStrategy::kSnapshotRead;
    t.snapshot.read_ts = db.visible_ts();
  }
  return t;
}

}  // namespace graphdb
