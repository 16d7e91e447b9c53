#include "main/transaction_strategy.h"

#include "main/query_pipeline.h"

namespace graphdb {

const char* TransactionStrategyName(TransactionStrategy strategy) {
  switch (strategy) {
    case TransactionStrategy::kSnapshotRead: return "SnapshotReadTransaction";
    case TransactionStrategy::kMvccInsert: return "MvccInsertTransaction";
    case TransactionStrategy::kSnapshotCowWrite: return "SnapshotCowWriteTransaction";
    case TransactionStrategy::kCurrentCowWrite: return "CurrentCowWriteTransaction";
    case TransactionStrategy::kInPlaceCompaction: break;
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
    // Before its first write, the snapshot pinned at BEGIN; from then on the latest state (no
    // other writer runs while it holds the gate) plus its own writes, which carry its
    // uncommitted stamp until COMMIT; other sessions read the old values.
    GRAPHDB_ASSERT(!writes || transaction->writer);
    t.strategy = TransactionStrategy::kSnapshotCowWrite;
    t.snapshot.own = transaction->stamp;
    if (!transaction->writer) t.snapshot.read_ts = transaction->read_ts;
    if (writes) t.stamp = transaction->stamp;
    t.keep_versions = true;
  } else if (writes && mode == AccessMode::kInsert) {
    // Runs beside other inserts, so its commit timestamp is unknown until it commits: its rows
    // and edges carry a stamp of its own until then (CommitWrites restamps them), and it reads
    // the commits published when it started plus its own writes, never another insert's rows
    // before their commit is published.
    t.strategy = TransactionStrategy::kMvccInsert;
    t.stamp = t.snapshot.own = db.NewTransactionStamp();
    t.snapshot.read_ts = db.visible_ts();
    t.keep_versions = true;
  } else if (writes) {
    // Auto-commit, running alone among writers: stamped with the commit timestamp it will get,
    // which no reader sees until the commit is published; old values go to the version store
    // before each overwrite, for the reads running beside it and the open READ ONLY
    // transactions.
    t.strategy =
        embedded ? TransactionStrategy::kCurrentCowWrite : TransactionStrategy::kSnapshotCowWrite;
    t.stamp = t.snapshot.own = db.NextCommitTs();
    t.keep_versions = true;
  } else {
    t.strategy = TransactionStrategy::kSnapshotRead;
    t.snapshot.read_ts = db.visible_ts();
  }
  return t;
}

}  // namespace graphdb
