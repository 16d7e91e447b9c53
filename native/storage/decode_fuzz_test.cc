// Table decoders must reject damaged input with a Status even when the bytes get past the file
// checksum (a CRC collision, or a bug on the writing side): random mutations of valid payloads
// may decode or fail, but never crash, assert or read out of bounds.

#include <gtest/gtest.h>

#include <random>

#include "storage/node_table.h"
#include "storage/rel_table.h"

namespace graphdb::storage {
namespace {

LogicalType T(std::string_view text) {
  std::string error;
  return *ParseLogicalType(text, &error);
}

template <typename Decode>
void Mutate(const std::string& valid, Decode&& decode, int rounds) {
  std::mt19937 rng(11);
  for (int i = 0; i < rounds; ++i) {
    std::string bytes = valid;
    int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits; ++e) {
      size_t pos = rng() % bytes.size();
      switch (rng() % 3) {
        case 0: bytes[pos] = static_cast<char>(rng()); break;
        case 1: bytes[pos] = static_cast<char>(bytes[pos] ^ (1 << (rng() % 8))); break;
        default: bytes.resize(pos); break;
      }
      if (bytes.empty()) break;
    }
    catalog::BinaryReader reader(bytes);
    decode(reader);  // must simply return
  }
}

TEST(DecodeFuzzTest, NodeTablePayload) {
  catalog::NodeTableSchema schema;
  schema.id = 0;
  schema.name = "n";
  schema.properties = {{"k", T("STRING"), std::nullopt, 0},
                       {"i", T("INT32"), std::nullopt, 1},
                       {"b", T("BOOL"), std::nullopt, 2},
                       {"l", T("STRUCT(a INT64[], m MAP(STRING, DOUBLE))"), std::nullopt, 3}};
  NodeTable table(schema);
  std::string error;
  for (int i = 0; i < 40; ++i) {
    Value nested = Value::Null(schema.properties[3].type);
    if (i % 2) {
      nested =
          Value::Nested(schema.properties[3].type,
                        {Value::Nested(T("INT64[]"), {Value::Int64(i), Value::Int64(-i)}),
                         Value::Nested(T("MAP(STRING, DOUBLE)"),
                                       {Value::Nested(T("MAP(STRING, DOUBLE)").child(),
                                                      {Value::String("k"), Value::Double(i)})})});
    }
    ASSERT_TRUE(table
                    .Insert({Value::String("key number " + std::to_string(i)), Value::Int64(i),
                             Value::Boolean(i % 3 == 0), nested},
                            static_cast<uint64_t>(i))
                    .ok());
  }
  ASSERT_TRUE(table.Delete(3, 99).ok());
  catalog::BinaryWriter w;
  table.Serialize(w);
  int ok = 0;
  Mutate(
      w.buffer(),
      [&](catalog::BinaryReader& r) {
        auto t = NodeTable::Deserialize(r, schema);
        if (t.ok()) {
          ++ok;
          for (uint64_t row = 0; row < (*t)->NumRows(); ++row) (void)(*t)->GetRow(row);
        } else {
          EXPECT_EQ(t.status().code(), ErrorCode::kCorruption);
        }
      },
      3000);
  SUCCEED() << ok << " mutations still decoded";
}

TEST(DecodeFuzzTest, RelTablePayload) {
  catalog::RelTableSchema schema;
  schema.id = 2;
  schema.name = "r";
  schema.pairs = {{2, 0, 1}};
  schema.properties = {{"w", T("STRING[]"), std::nullopt, 1}};
  RelTable table(schema, schema.pairs[0]);
  std::vector<uint64_t> src, dst;
  std::vector<Column> props;
  props.emplace_back(T("STRING[]"));
  for (uint64_t i = 0; i < 60; ++i) {
    src.push_back(i % 10);
    dst.push_back(i % 7);
    ASSERT_TRUE(props[0].Append(Value::Nested(T("STRING[]"), {Value::String("x")})).ok());
  }
  ASSERT_TRUE(table.BulkLoadOffsets(src, dst, std::move(props)).ok());
  ASSERT_TRUE(table.InsertEdge(3, 3, {Value::Null()}, 5).ok());
  catalog::BinaryWriter w;
  table.Serialize(w);
  Mutate(
      w.buffer(),
      [&](catalog::BinaryReader& r) {
        auto t = RelTable::Deserialize(r, schema, schema.pairs[0], 10, 7);
        if (!t.ok()) {
          EXPECT_EQ(t.status().code(), ErrorCode::kCorruption);
          return;
        }
        for (uint64_t v = 0; v < 10; ++v) {
          (*t)->ForEachEdge(v, Direction::kForward, [&](uint64_t n, uint64_t rel) {
            EXPECT_LT(n, 7u);
            (void)(*t)->Get(0, rel);
          });
        }
      },
      3000);
}

}  // namespace
}  // namespace graphdb::storage
