#include "storage/node_table.h"

#include <gtest/gtest.h>

namespace graphdb::storage {
namespace {

LogicalType T(std::string_view text) {
  std::string error;
  auto t = ParseLogicalType(text, &error);
  EXPECT_TRUE(t.has_value()) << text << ": " << error;
  return t ? *t : LogicalType::Any();
}

catalog::NodeTableSchema Schema(std::vector<std::pair<std::string, std::string>> props, uint32_t pk,
                                std::string name = "person") {
  catalog::NodeTableSchema schema;
  schema.id = 0;
  schema.name = std::move(name);
  for (auto& [n, t] : props) schema.properties.push_back({n, T(t), std::nullopt, 0});
  schema.primary_key = pk;
  return schema;
}

TEST(NodeTableTest, InsertLookupGetSet) {
  NodeTable table(Schema({{"ID", "INT64"}, {"name", "STRING"}, {"age", "INT16"}}, 0));
  auto r = table.Insert({Value::Int64(5), Value::String("Dan"), Value::Int64(20)}, 7);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(*r, 0u);
  ASSERT_TRUE(table.Insert({Value::Int64(2), Value::Null(), Value::Null()}, 8).ok());
  EXPECT_EQ(table.NumRows(), 2u);
  EXPECT_EQ(*table.LookupInt64(5), 0u);
  EXPECT_EQ(*table.Lookup(Value::Int64(2)), 1u);
  EXPECT_EQ(*table.Lookup(Value::Int(LogicalTypeId::kInt32, 2)), 1u);
  EXPECT_FALSE(table.Lookup(Value::Int64(3)).has_value());
  EXPECT_EQ(table.Get(1, 0).ToString(), "Dan");
  EXPECT_TRUE(table.Get(1, 1).is_null());
  EXPECT_EQ(table.Get(2, 0).type_id(), LogicalTypeId::kInt16);
  EXPECT_EQ(table.create_ts(1), 8u);
  EXPECT_EQ(table.delete_ts(1), kNotDeleted);
  ASSERT_TRUE(table.Set(1, 1, Value::String("Bob")).ok());
  EXPECT_EQ(table.GetRow(1)[1].ToString(), "Bob");
  EXPECT_EQ(table.Set(0, 1, Value::Int64(9)).code(), ErrorCode::kInvalidRequest);
  EXPECT_FALSE(table.Set(2, 0, Value::Int64(1 << 20)).ok());  // out of INT16 range
}

TEST(NodeTableTest, KeyConstraints) {
  NodeTable table(Schema({{"ID", "INT64"}, {"x", "INT64[]"}}, 0));
  ASSERT_TRUE(table.Insert({Value::Int64(1), Value::Null()}, 1).ok());
  auto dup = table.Insert({Value::Int64(1), Value::Null()}, 2);
  ASSERT_FALSE(dup.ok());
  EXPECT_EQ(dup.status().code(), ErrorCode::kConstraintViolation);
  EXPECT_EQ(dup.status().message(),
            "Runtime exception: Found duplicated primary key value 1, which violates the "
            "uniqueness constraint of the primary key column.");
  auto null_key = table.Insert({Value::Null(), Value::Null()}, 2);
  EXPECT_EQ(null_key.status().code(), ErrorCode::kConstraintViolation);
  EXPECT_EQ(null_key.status().message(),
            "Runtime exception: Found NULL, which violates the non-null constraint of the "
            "primary key column.");
  // A failing value leaves no partial row behind.
  auto bad = table.Insert({Value::Int64(2), Value::Int64(3)}, 2);
  EXPECT_FALSE(bad.ok());
  EXPECT_FALSE(table.Insert({Value::Int64(2)}, 2).ok());
  EXPECT_EQ(table.NumRows(), 1u);
  EXPECT_EQ(table.column(1).size(), 1u);
  EXPECT_FALSE(table.LookupInt64(2).has_value());
}

TEST(NodeTableTest, DeleteAndReinsert) {
  NodeTable table(Schema({{"name", "STRING"}}, 0));
  ASSERT_TRUE(table.Insert({Value::String("a")}, 1).ok());
  ASSERT_TRUE(table.Insert({Value::String("b")}, 1).ok());
  ASSERT_TRUE(table.Delete(0, 5).ok());
  EXPECT_EQ(table.Delete(0, 6).code(), ErrorCode::kInvalidRequest);
  EXPECT_EQ(table.Delete(9, 6).code(), ErrorCode::kInvalidRequest);
  EXPECT_TRUE(table.IsDeleted(0));
  EXPECT_EQ(table.delete_ts(0), 5u);
  EXPECT_EQ(table.NumLiveRows(), 1u);
  EXPECT_FALSE(table.LookupString("a").has_value());
  auto again = table.Insert({Value::String("a")}, 7);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, 2u);
  EXPECT_EQ(*table.LookupString("a"), 2u);
  EXPECT_EQ(table.UndoDelete(0).code(), ErrorCode::kConstraintViolation);  // key taken
  table.UndoInsert(2);                                                     // undo the re-insert
  EXPECT_FALSE(table.LookupString("a").has_value());
  ASSERT_TRUE(table.UndoDelete(0).ok());
  EXPECT_EQ(*table.LookupString("a"), 0u);
  EXPECT_EQ(table.NumLiveRows(), 2u);
}

TEST(NodeTableTest, SerialKeys) {
  NodeTable table(Schema({{"ID", "SERIAL"}, {"name", "STRING"}}, 0, "A"));
  for (int i = 0; i < 3; ++i) {
    auto r =
        table.Insert({Value::Null(), Value::String(std::string("n").append(std::to_string(i)))}, 1);
    ASSERT_TRUE(r.ok());
  }
  EXPECT_EQ(table.Get(0, 2).ToString(), "2");
  EXPECT_EQ(table.Get(0, 2).type_id(), LogicalTypeId::kSerial);
  ASSERT_TRUE(table.Insert({Value::Int64(10), Value::Null()}, 1).ok());
  auto next = table.Insert({Value::Null(), Value::Null()}, 1);
  ASSERT_TRUE(next.ok());
  EXPECT_EQ(table.Get(0, *next).GetInt(), 11);
  EXPECT_EQ(*table.LookupInt64(11), *next);
  // Bulk append draws serial values too.
  std::vector<Column> columns;
  columns.emplace_back(LogicalType(LogicalTypeId::kSerial));
  columns.emplace_back(LogicalType::String());
  columns[1].AppendString("x");
  columns[1].AppendString("y");
  ASSERT_TRUE(table.BulkAppend(std::move(columns)).ok());
  EXPECT_EQ(table.Get(0, 6).GetInt(), 13);
  EXPECT_EQ(table.next_serial(0), 14);
}

std::vector<Column> Batch(std::vector<int64_t> ids, std::vector<std::string> names) {
  std::vector<Column> columns;
  columns.emplace_back(LogicalType::Int64());
  columns.emplace_back(LogicalType::String());
  for (int64_t id : ids) columns[0].AppendFixed<int64_t>(id);
  for (const auto& n : names) columns[1].AppendString(n);
  return columns;
}

TEST(NodeTableTest, BulkAppendIsAtomic) {
  NodeTable table(Schema({{"ID", "INT64"}, {"name", "STRING"}}, 0));
  ASSERT_TRUE(table.BulkAppend(Batch({1, 2, 3}, {"a", "b", "c"})).ok());
  EXPECT_EQ(table.NumRows(), 3u);
  EXPECT_EQ(table.create_ts(2), 0u);
  // Duplicate against existing rows.
  Status s = table.BulkAppend(Batch({4, 5, 2}, {"d", "e", "f"}));
  EXPECT_EQ(s.code(), ErrorCode::kConstraintViolation);
  EXPECT_EQ(s.message(),
            "Copy exception: Found duplicated primary key value 2, which violates the "
            "uniqueness constraint of the primary key column.");
  EXPECT_EQ(table.NumRows(), 3u);
  EXPECT_FALSE(table.LookupInt64(4).has_value());
  EXPECT_EQ(table.column(1).size(), 3u);
  // Duplicate inside the batch.
  EXPECT_FALSE(table.BulkAppend(Batch({7, 7}, {"x", "y"})).ok());
  EXPECT_EQ(table.NumRows(), 3u);
  // NULL key.
  auto with_null = Batch({8}, {"x"});
  with_null[0].AppendNull();
  with_null[1].AppendString("y");
  EXPECT_EQ(table.BulkAppend(std::move(with_null)).code(), ErrorCode::kConstraintViolation);
  // Shape errors.
  EXPECT_EQ(table.BulkAppend(Batch({9, 10}, {"x"})).code(), ErrorCode::kInvalidRequest);
  std::vector<Column> wrong;
  wrong.emplace_back(LogicalType::String());
  wrong.emplace_back(LogicalType::String());
  EXPECT_EQ(table.BulkAppend(std::move(wrong)).code(), ErrorCode::kInvalidRequest);
  ASSERT_TRUE(table.BulkAppend(Batch({4, 5}, {"d", "e"}), 9).ok());
  EXPECT_EQ(*table.LookupInt64(5), 4u);
  EXPECT_EQ(table.Get(1, 4).ToString(), "e");
  EXPECT_EQ(table.create_ts(4), 9u);
  // A failed bulk append into an empty table leaves it empty and usable.
  NodeTable empty(Schema({{"ID", "INT64"}, {"name", "STRING"}}, 0));
  EXPECT_FALSE(empty.BulkAppend(Batch({1, 1}, {"a", "b"})).ok());
  EXPECT_EQ(empty.NumRows(), 0u);
  ASSERT_TRUE(empty.Insert({Value::Int64(1), Value::String("a")}, 1).ok());
}

TEST(NodeTableTest, AddAndDropColumns) {
  NodeTable table(Schema({{"a", "INT64"}, {"ID", "STRING"}}, 1));
  ASSERT_TRUE(table
                  .BulkAppend([] {
                    std::vector<Column> c;
                    c.emplace_back(LogicalType::Int64());
                    c.emplace_back(LogicalType::String());
                    for (int i = 0; i < 8; ++i) {
                      c[0].AppendFixed<int64_t>(i);
                      c[1].AppendString(std::string("k").append(std::to_string(i)));
                    }
                    return c;
                  }())
                  .ok());
  ASSERT_TRUE(table.AddColumn(T("INT64"), Value::Int64(8)).ok());
  ASSERT_TRUE(table.AddColumn(T("STRING"), Value::String("long long string")).ok());
  ASSERT_TRUE(table.AddColumn(T("INT64[3]"), Value::Null()).ok());
  EXPECT_FALSE(table.AddColumn(T("INT64"), Value::String("wrong type")).ok());
  EXPECT_EQ(table.NumColumns(), 5u);
  EXPECT_EQ(table.Get(2, 7).ToString(), "8");
  EXPECT_EQ(table.Get(3, 3).ToString(), "long long string");
  EXPECT_TRUE(table.Get(4, 0).is_null());
  EXPECT_EQ(table.DropColumn(1).code(), ErrorCode::kInvalidRequest);  // the key
  ASSERT_TRUE(table.DropColumn(0).ok());
  EXPECT_EQ(table.primary_key_column(), 0u);
  EXPECT_EQ(*table.LookupString("k3"), 3u);
  auto r = table.Insert({Value::String("k8"), Value::Int64(1), Value::Null(), Value::Null()}, 1);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*table.LookupString("k8"), 8u);
}

TEST(NodeTableTest, SerializeRoundTrip) {
  auto schema = Schema({{"ID", "STRING"}, {"v", "DOUBLE"}, {"l", "STRING[]"}}, 0);
  NodeTable table(schema);
  for (int i = 0; i < 1000; ++i) {
    ASSERT_TRUE(
        table
            .Insert({Value::String("key" + std::to_string(i)), Value::Double(i * 0.5),
                     i % 7 ? Value::Null() : Value::Nested(T("STRING[]"), {Value::String("x")})},
                    i)
            .ok());
  }
  ASSERT_TRUE(table.Delete(10, 2000).ok());
  catalog::BinaryWriter w;
  table.Serialize(w);
  catalog::BinaryReader r(w.buffer());
  auto back = NodeTable::Deserialize(r, schema);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_TRUE(r.done());
  EXPECT_EQ((*back)->NumRows(), 1000u);
  EXPECT_EQ((*back)->NumLiveRows(), 999u);
  EXPECT_EQ((*back)->create_ts(999), 999u);
  EXPECT_EQ((*back)->delete_ts(10), 2000u);
  EXPECT_FALSE((*back)->LookupString("key10").has_value());
  EXPECT_EQ(*(*back)->LookupString("key999"), 999u);
  EXPECT_EQ((*back)->Get(1, 4).ToString(), "2.000000");
  EXPECT_EQ((*back)->Get(2, 14).ToString(), "[x]");
  EXPECT_TRUE((*back)->Get(2, 15).is_null());
  // Schema mismatch is corruption, not a crash.
  auto other = Schema({{"ID", "STRING"}, {"v", "INT64"}, {"l", "STRING[]"}}, 0);
  catalog::BinaryReader r2(w.buffer());
  auto bad = NodeTable::Deserialize(r2, other);
  EXPECT_EQ(bad.status().code(), ErrorCode::kCorruption);
}

// ---- Visibility blocks (NodeTable::RowsVisibleTo) ----

constexpr uint64_t kBlock = NodeTable::kVisibleBlockRows;

// What each block's published value should be, from the rows' stamps: the newest create stamp
// when every row is committed and not deleted, else kBlockNotClean; kBlockNotClean too for a
// block with offsets below `high_water` (the most rows the table had) that undone inserts
// dropped.
std::vector<uint64_t> ExpectedBlocks(const NodeTable& table, uint64_t high_water = 0) {
  std::vector<uint64_t> blocks((table.NumRows() + kBlock - 1) / kBlock, 0);
  for (uint64_t r = 0; r < table.NumRows(); ++r) {
    uint64_t& b = blocks[r / kBlock];
    const uint64_t created = table.create_ts(r);
    if (created >= kUncommittedBase || table.delete_ts(r) != kNotDeleted) {
      b = NodeTable::kBlockNotClean;
    } else if (b != NodeTable::kBlockNotClean) {
      b = std::max(b, created);
    }
  }
  for (uint64_t r = table.NumRows(); r < high_water; ++r) {
    if (r / kBlock < blocks.size()) blocks[r / kBlock] = NodeTable::kBlockNotClean;
  }
  return blocks;
}

std::vector<uint64_t> PublishedBlocks(const NodeTable& table) {
  std::vector<uint64_t> blocks((table.NumRows() + kBlock - 1) / kBlock);
  for (uint64_t b = 0; b < blocks.size(); ++b) blocks[b] = table.BlockVisibleFrom(b);
  return blocks;
}

// `n` rows with keys from `first`, a NULL in every 5th value.
std::vector<Column> Rows(int64_t first, uint64_t n) {
  std::vector<Column> columns;
  columns.emplace_back(LogicalType::Int64());
  columns.emplace_back(LogicalType::Int64());
  for (uint64_t i = 0; i < n; ++i) {
    columns[0].AppendFixed<int64_t>(first + static_cast<int64_t>(i));
    if (i % 5 == 0) {
      columns[1].AppendNull();
    } else {
      columns[1].AppendFixed<int64_t>(static_cast<int64_t>(i % 70));
    }
  }
  return columns;
}

std::vector<Value> Row(int64_t id) { return {Value::Int64(id), Value::Int64(id % 70)}; }

TEST(NodeTableVisibilityTest, BulkLoadedRowsAreVisibleToEverySnapshot) {
  NodeTable table(Schema({{"ID", "INT64"}, {"age", "INT64"}}, 0));
  EXPECT_TRUE(table.RowsVisibleTo(0, 0, 0));
  ASSERT_TRUE(table.BulkAppend(Rows(0, 3 * kBlock + 7)).ok());  // COPY: create_ts 0
  EXPECT_EQ(PublishedBlocks(table), ExpectedBlocks(table));
  EXPECT_TRUE(table.RowsVisibleTo(0, table.NumRows(), 0));
  EXPECT_TRUE(table.RowsVisibleTo(5, kBlock + 9, 0));
  EXPECT_FALSE(table.RowsVisibleTo(0, table.NumRows() + kBlock, 0));  // past the blocks
  // A COPY appended at timestamp 9: the new rows' blocks only from 9 on.
  ASSERT_TRUE(table.BulkAppend(Rows(1'000'000, 2 * kBlock), 9).ok());
  EXPECT_EQ(PublishedBlocks(table), ExpectedBlocks(table));
  EXPECT_TRUE(table.RowsVisibleTo(0, 3 * kBlock, 8));
  EXPECT_FALSE(table.RowsVisibleTo(0, 3 * kBlock + 8, 8));  // the shared block has a new row
  EXPECT_TRUE(table.RowsVisibleTo(0, table.NumRows(), 9));
}

TEST(NodeTableVisibilityTest, DeletesWithdrawTheirBlockUntilUndone) {
  NodeTable table(Schema({{"ID", "INT64"}, {"age", "INT64"}}, 0));
  ASSERT_TRUE(table.BulkAppend(Rows(0, 3 * kBlock)).ok());
  const uint64_t row = kBlock + 17;
  ASSERT_TRUE(table.Delete(row, kUncommittedBase + 1).ok());
  EXPECT_EQ(PublishedBlocks(table), ExpectedBlocks(table));
  EXPECT_TRUE(table.RowsVisibleTo(0, kBlock, kUncommittedBase - 1));
  EXPECT_FALSE(table.RowsVisibleTo(kBlock, kBlock + 1, 5));  // whole block, not only the row
  EXPECT_TRUE(table.RowsVisibleTo(2 * kBlock, 3 * kBlock, 0));
  ASSERT_TRUE(table.UndoDelete(row).ok());  // rollback
  EXPECT_EQ(PublishedBlocks(table), ExpectedBlocks(table));
  EXPECT_TRUE(table.RowsVisibleTo(0, table.NumRows(), 0));
  // A committed delete keeps the block unclean for every snapshot.
  ASSERT_TRUE(table.Delete(row, kUncommittedBase + 2).ok());
  table.SetDeleteTs(row, 4);
  EXPECT_EQ(PublishedBlocks(table), ExpectedBlocks(table));
  EXPECT_FALSE(table.RowsVisibleTo(kBlock, 2 * kBlock, 3));
  EXPECT_FALSE(table.RowsVisibleTo(kBlock, 2 * kBlock, 100));
  EXPECT_TRUE(table.RowsVisibleTo(2 * kBlock, 3 * kBlock, 100));
}

TEST(NodeTableVisibilityTest, UncommittedRowsKeepTheirBlockUncleanUntilCommitted) {
  NodeTable table(Schema({{"ID", "INT64"}, {"age", "INT64"}}, 0));
  ASSERT_TRUE(table.BulkAppend(Rows(0, kBlock + 10)).ok());
  const uint64_t own = kUncommittedBase + 3;
  auto row = table.Insert(Row(-1), own);
  ASSERT_TRUE(row.ok());
  EXPECT_EQ(PublishedBlocks(table), ExpectedBlocks(table));
  EXPECT_TRUE(table.RowsVisibleTo(0, kBlock, 0));
  // Not for any snapshot: its own writer reads it through the stamps, others skip it.
  EXPECT_FALSE(table.RowsVisibleTo(kBlock, table.NumRows(), own));
  EXPECT_FALSE(table.RowsVisibleTo(kBlock, table.NumRows(), kUncommittedBase - 1));
  // Commit: the create stamp is raised to the commit timestamp.
  table.SetCreateTs(*row, 12);
  EXPECT_EQ(PublishedBlocks(table), ExpectedBlocks(table));
  EXPECT_FALSE(table.RowsVisibleTo(kBlock, table.NumRows(), 11));
  EXPECT_TRUE(table.RowsVisibleTo(kBlock, table.NumRows(), 12));
  // A failed insert (duplicate key) drops its row: the block stays unclean for a reader that
  // loaded the larger row count, until the offset is filled again.
  EXPECT_FALSE(table.Insert(Row(5), own).ok());
  EXPECT_EQ(PublishedBlocks(table), ExpectedBlocks(table, table.NumRows() + 1));
  EXPECT_FALSE(table.RowsVisibleTo(kBlock, table.NumRows(), 12));
  // A row stamped with its commit timestamp directly (an auto-committed insert) fills it.
  ASSERT_TRUE(table.Insert(Row(-2), 20).ok());
  EXPECT_EQ(PublishedBlocks(table), ExpectedBlocks(table));
  EXPECT_FALSE(table.RowsVisibleTo(kBlock, table.NumRows(), 19));
  EXPECT_TRUE(table.RowsVisibleTo(0, table.NumRows(), 20));
}

TEST(NodeTableVisibilityTest, UndoneInsertsAndPlaceholders) {
  NodeTable table(Schema({{"ID", "INT64"}, {"age", "INT64"}}, 0));
  ASSERT_TRUE(table.BulkAppend(Rows(0, kBlock - 2)).ok());
  auto a = table.Insert(Row(-1), kUncommittedBase + 1);
  auto b = table.Insert(Row(-2), kUncommittedBase + 2);
  auto c = table.Insert(Row(-3), kUncommittedBase + 3);  // the next block's first row
  ASSERT_TRUE(a.ok() && b.ok() && c.ok());
  EXPECT_FALSE(table.RowsVisibleTo(0, kBlock, kUncommittedBase - 1));
  // Writer 1 aborts under later rows: its row stays as a placeholder, seen by nobody.
  table.UndoInsert(*a);
  EXPECT_TRUE(table.IsPlaceholder(*a));
  EXPECT_EQ(PublishedBlocks(table), ExpectedBlocks(table));
  // Writer 3 aborts its last row: dropped. A reader that loaded the larger row count may still
  // read it: its block stays unclean until an append fills the offset again.
  table.UndoInsert(*c);
  EXPECT_EQ(table.NumRows(), kBlock);
  EXPECT_EQ(PublishedBlocks(table), ExpectedBlocks(table));
  EXPECT_FALSE(table.RowsVisibleTo(kBlock, kBlock + 1, kUncommittedBase - 1));
  table.SetCreateTs(*b, 30);
  EXPECT_FALSE(table.RowsVisibleTo(0, kBlock, 40));  // the placeholder
  // Write-ahead-log replay fills the placeholder: clean again.
  ASSERT_TRUE(table.FillPlaceholder(*a, Row(-1), 25).ok());
  EXPECT_EQ(PublishedBlocks(table), ExpectedBlocks(table));
  EXPECT_TRUE(table.RowsVisibleTo(0, kBlock, 30));
  EXPECT_FALSE(table.RowsVisibleTo(0, kBlock, 29));
  // Replay's placeholders for offsets a later record fills (delete_ts 0).
  table.AppendPlaceholders(kBlock + 3);
  EXPECT_EQ(PublishedBlocks(table), ExpectedBlocks(table));
  EXPECT_FALSE(table.RowsVisibleTo(kBlock, kBlock + 1, 40));
  for (uint64_t r = kBlock; r < table.NumRows(); ++r) {
    ASSERT_TRUE(table.FillPlaceholder(r, Row(static_cast<int64_t>(r) + 10'000'000), 35).ok());
  }
  EXPECT_EQ(PublishedBlocks(table), ExpectedBlocks(table));
  EXPECT_TRUE(table.RowsVisibleTo(0, table.NumRows(), 35));
}

TEST(NodeTableVisibilityTest, LoadingRecountsTheBlocks) {
  auto schema = Schema({{"ID", "INT64"}, {"age", "INT64"}}, 0);
  NodeTable table(schema);
  ASSERT_TRUE(table.BulkAppend(Rows(0, 2 * kBlock)).ok());
  ASSERT_TRUE(table.Insert(Row(-1), 7).ok());
  ASSERT_TRUE(table.Delete(3, 8).ok());
  catalog::BinaryWriter w;
  table.Serialize(w);
  catalog::BinaryReader r(w.buffer());
  auto back = NodeTable::Deserialize(r, schema);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(PublishedBlocks(**back), ExpectedBlocks(table));
  EXPECT_FALSE((*back)->RowsVisibleTo(0, kBlock, 100));
  EXPECT_TRUE((*back)->RowsVisibleTo(kBlock, 2 * kBlock + 1, 7));
  EXPECT_FALSE((*back)->RowsVisibleTo(kBlock, 2 * kBlock + 1, 6));
}

// Random writes and aborts: a block published clean is clean by the stamps, and every block
// is published as its stamps say.
TEST(NodeTableVisibilityTest, RandomWritesKeepTheBlocksExact) {
  NodeTable table(Schema({{"ID", "INT64"}, {"age", "INT64"}}, 0));
  ASSERT_TRUE(table.BulkAppend(Rows(0, 2 * kBlock)).ok());
  uint64_t seed = 42, ts = 1;
  auto next = [&seed] {
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    return seed >> 33;
  };
  int64_t key = 1'000'000;
  uint64_t high_water = table.NumRows();
  for (int step = 0; step < 3000; ++step) {
    const uint64_t rows = table.NumRows();
    switch (next() % 6) {
      case 0:
      case 1: {  // insert, committed at once or later, or undone
        const uint64_t own = kUncommittedBase + 100 + (next() % 5);
        auto r = table.Insert(Row(key++), own);
        ASSERT_TRUE(r.ok());
        high_water = std::max(high_water, table.NumRows());
        if (next() % 3 == 0) {
          table.UndoInsert(*r);
        } else {
          table.SetCreateTs(*r, ++ts);
        }
        break;
      }
      case 2: {  // delete, then commit or undo
        const uint64_t row = next() % rows;
        if (table.IsDeleted(row)) break;
        ASSERT_TRUE(table.Delete(row, kUncommittedBase + 7).ok());
        if (next() % 2 == 0) {
          ASSERT_TRUE(table.UndoDelete(row).ok());
        } else {
          table.SetDeleteTs(row, ++ts);
        }
        break;
      }
      case 3:
        table.AppendPlaceholders(1 + next() % 3);
        high_water = std::max(high_water, table.NumRows());
        break;
      default: {  // fill a placeholder
        const uint64_t row = next() % rows;
        if (table.IsPlaceholder(row)) {
          ASSERT_TRUE(table.FillPlaceholder(row, Row(key++), ++ts).ok());
        }
        break;
      }
    }
    if (step % 100 == 0) {
      ASSERT_EQ(PublishedBlocks(table), ExpectedBlocks(table, high_water)) << step;
    }
  }
  ASSERT_EQ(PublishedBlocks(table), ExpectedBlocks(table, high_water));
}

}  // namespace
}  // namespace graphdb::storage
