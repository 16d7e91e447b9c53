#include "storage/rel_table.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>

namespace graphdb::storage {
namespace {

using Edges = std::vector<std::pair<uint64_t, uint64_t>>;  // (neighbor, rel)

catalog::RelTableSchema Schema(catalog::RelMultiplicity m = catalog::RelMultiplicity::kManyMany,
                               bool with_prop = true) {
  catalog::RelTableSchema schema;
  schema.id = 3;
  schema.name = "knows";
  schema.multiplicity = m;
  schema.pairs.push_back({3, 0, 1});
  if (with_prop) schema.properties.push_back({"w", LogicalType::Int64(), std::nullopt, 1});
  return schema;
}

Edges Expand(const RelTable& t, uint64_t v, Direction dir) {
  Edges out;
  t.ForEachEdge(v, dir, [&](uint64_t n, uint64_t r) { out.emplace_back(n, r); });
  return out;
}

Edges ExpandLive(const RelTable& t, uint64_t v, Direction dir) {
  Edges out;
  t.ForEachLiveEdge(v, dir, [&](uint64_t n, uint64_t r) { out.emplace_back(n, r); });
  return out;
}

Column Ints(std::vector<int64_t> values) {
  Column c(LogicalType::Int64());
  for (int64_t v : values) c.AppendFixed<int64_t>(v);
  return c;
}

std::vector<Column> Props(std::vector<int64_t> values) {
  std::vector<Column> props;
  props.push_back(Ints(std::move(values)));
  return props;
}

TEST(RelTableTest, BulkLoadBuildsBothDirections) {
  auto schema = Schema();
  RelTable t(schema, schema.pairs[0]);
  EXPECT_EQ(t.table_id(), 3u);
  EXPECT_EQ(t.NeighborTable(Direction::kForward), 1u);
  EXPECT_EQ(t.NeighborTable(Direction::kBackward), 0u);
  ASSERT_TRUE(
      t.BulkLoadOffsets({0, 0, 2, 1, 0}, {5, 3, 5, 0, 1}, Props({10, 11, 12, 13, 14})).ok());
  EXPECT_EQ(t.NumRels(), 5u);
  EXPECT_EQ(Expand(t, 0, Direction::kForward), (Edges{{5, 0}, {3, 1}, {1, 4}}));
  EXPECT_EQ(Expand(t, 1, Direction::kForward), (Edges{{0, 3}}));
  EXPECT_EQ(Expand(t, 3, Direction::kForward), Edges{});
  EXPECT_EQ(Expand(t, 99, Direction::kForward), Edges{});  // beyond the CSR
  EXPECT_EQ(Expand(t, 5, Direction::kBackward), (Edges{{0, 0}, {2, 2}}));
  EXPECT_EQ(Expand(t, 0, Direction::kBackward), (Edges{{1, 3}}));
  EXPECT_EQ(t.Degree(0, Direction::kForward), 3u);
  EXPECT_EQ(t.CsrEdges(0, Direction::kForward).size(), 3u);
  EXPECT_EQ(t.Get(0, 2).ToString(), "12");
  EXPECT_EQ(t.create_ts(4), 0u);
  EXPECT_EQ(*t.FindEdge(2, 5), 2u);
  EXPECT_FALSE(t.FindEdge(2, 4).has_value());
}

// Each direction's CSR takes the fewest bytes per neighbour, rel and offset that hold its
// values, and no rel bytes when every rel offset is its entry's position (a load in source
// order, forward); expansion reads the same edges whatever the widths.
TEST(RelTableTest, CsrPacksToTheBytesItsValuesNeed) {
  auto schema = Schema();
  RelTable t(schema, schema.pairs[0]);
  ASSERT_TRUE(t.BulkLoadOffsets({0, 0, 1, 2}, {1, 70000, 300, 2}, Props({1, 2, 3, 4})).ok());
  EXPECT_EQ(t.csr_widths(Direction::kForward), (PackedWidths{3, 0, 1}));
  EXPECT_EQ(t.csr_widths(Direction::kBackward), (PackedWidths{1, 1, 1}));
  EXPECT_EQ(Expand(t, 0, Direction::kForward), (Edges{{1, 0}, {70000, 1}}));
  EXPECT_EQ(Expand(t, 2, Direction::kForward), (Edges{{2, 3}}));
  EXPECT_EQ(Expand(t, 70000, Direction::kBackward), (Edges{{0, 1}}));
  EXPECT_EQ(Expand(t, 2, Direction::kBackward), (Edges{{2, 3}}));
  EXPECT_EQ(Expand(t, 300, Direction::kBackward), (Edges{{1, 2}}));
  uint64_t examined = 0;
  EXPECT_EQ(t.CountEdges(0, Direction::kForward, 0, [](uint64_t) { return true; }, &examined), 2u);
  // A delete: counting goes entry by entry, reading the implicit rel offsets.
  ASSERT_TRUE(t.DeleteEdge(1, 5).ok());
  EXPECT_EQ(
      t.CountEdges(
          0, Direction::kForward, 9, [&](uint64_t rel) { return !t.IsDeleted(rel); }, &examined),
      1u);
  EXPECT_EQ(ExpandLive(t, 0, Direction::kForward), (Edges{{1, 0}}));
  // Compaction drops the deleted edge: positions shift, so the rel offsets are stored.
  t.Compact();
  EXPECT_EQ(t.csr_widths(Direction::kForward), (PackedWidths{2, 1, 1}));
  EXPECT_EQ(Expand(t, 0, Direction::kForward), (Edges{{1, 0}}));
  EXPECT_EQ(Expand(t, 1, Direction::kForward), (Edges{{300, 2}}));
  EXPECT_FALSE(t.bad_entry());
}

TEST(RelTableTest, DeltaInsertsAndEarlyExit) {
  auto schema = Schema();
  RelTable t(schema, schema.pairs[0]);
  ASSERT_TRUE(t.BulkLoadOffsets({0, 1}, {1, 2}, Props({1, 2})).ok());
  auto r = t.InsertEdge(0, 7, {Value::Int64(3)}, 5);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, 2u);
  ASSERT_TRUE(t.InsertEdge(10, 0, {Value::Null()}, 6).ok());  // a vertex beyond the CSR
  EXPECT_EQ(t.NumDeltaEntries(), 2u);
  EXPECT_EQ(Expand(t, 0, Direction::kForward), (Edges{{1, 0}, {7, 2}}));
  EXPECT_EQ(Expand(t, 10, Direction::kForward), (Edges{{0, 3}}));
  EXPECT_EQ(Expand(t, 7, Direction::kBackward), (Edges{{0, 2}}));
  EXPECT_EQ(Expand(t, 0, Direction::kBackward), (Edges{{10, 3}}));
  EXPECT_EQ(t.DeltaEdges(0, Direction::kForward).size(), 1u);
  EXPECT_EQ(t.create_ts(3), 6u);
  EXPECT_TRUE(t.Get(0, 3).is_null());
  int calls = 0;
  t.ForEachEdge(0, Direction::kForward, [&](uint64_t, uint64_t) {
    ++calls;
    return false;
  });
  EXPECT_EQ(calls, 1);
  EXPECT_FALSE(t.InsertEdge(1, 1, {}, 1).ok());                    // wrong arity
  EXPECT_FALSE(t.InsertEdge(1, 1, {Value::String("x")}, 1).ok());  // wrong type
  EXPECT_EQ(t.NumRels(), 4u);
}

TEST(RelTableTest, DeleteCompactAndStableOffsets) {
  auto schema = Schema();
  RelTable t(schema, schema.pairs[0]);
  ASSERT_TRUE(t.BulkLoadOffsets({0, 0, 0, 1}, {1, 2, 3, 3}, Props({0, 1, 2, 3})).ok());
  ASSERT_TRUE(t.InsertEdge(0, 4, {Value::Int64(4)}, 1).ok());
  ASSERT_TRUE(t.InsertEdge(2, 3, {Value::Int64(5)}, 1).ok());
  ASSERT_TRUE(t.DeleteEdge(1, 9).ok());
  ASSERT_TRUE(t.DeleteEdge(4, 9).ok());
  EXPECT_EQ(t.DeleteEdge(4, 9).code(), ErrorCode::kInvalidRequest);
  EXPECT_EQ(t.NumLiveRels(), 4u);
  EXPECT_EQ(Expand(t, 0, Direction::kForward).size(), 4u);  // physical entries remain
  EXPECT_EQ(ExpandLive(t, 0, Direction::kForward), (Edges{{1, 0}, {3, 2}}));
  EXPECT_EQ(t.LiveDegree(0, Direction::kForward), 2u);
  t.Compact();
  EXPECT_EQ(t.NumDeltaEntries(), 0u);
  EXPECT_EQ(Expand(t, 0, Direction::kForward), (Edges{{1, 0}, {3, 2}}));
  EXPECT_EQ(Expand(t, 3, Direction::kBackward), (Edges{{0, 2}, {1, 3}, {2, 5}}));
  EXPECT_EQ(Expand(t, 4, Direction::kBackward), Edges{});
  EXPECT_EQ(t.Get(0, 5).ToString(), "5");  // rel offsets and properties did not move
  EXPECT_EQ(t.NumRels(), 6u);
  auto r = t.InsertEdge(0, 9, {Value::Int64(6)}, 2);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, 6u);
  EXPECT_EQ(Expand(t, 0, Direction::kForward), (Edges{{1, 0}, {3, 2}, {9, 6}}));
  ASSERT_TRUE(t.UndoDelete(1).ok());
  EXPECT_EQ(t.NumLiveRels(), 6u);
}

TEST(RelTableTest, RandomGraphMatchesReference) {
  auto schema = Schema(catalog::RelMultiplicity::kManyMany, false);
  RelTable t(schema, schema.pairs[0]);
  std::mt19937 rng(3);
  const uint64_t nv = 300;
  std::vector<std::multiset<std::pair<uint64_t, uint64_t>>> fwd(nv), bwd(nv);
  std::vector<uint64_t> src, dst;
  for (int i = 0; i < 3000; ++i) {
    src.push_back(rng() % nv);
    dst.push_back(rng() % nv);
  }
  for (size_t i = 0; i < src.size(); ++i) {
    fwd[src[i]].insert({dst[i], i});
    bwd[dst[i]].insert({src[i], i});
  }
  ASSERT_TRUE(t.BulkLoadOffsets(src, dst, {}).ok());
  std::vector<bool> deleted(src.size(), false);
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < 500; ++i) {
      uint64_t s = rng() % nv;
      uint64_t d = rng() % nv;
      auto rel = t.InsertEdge(s, d, {}, 1);
      ASSERT_TRUE(rel.ok());
      fwd[s].insert({d, *rel});
      bwd[d].insert({s, *rel});
      deleted.push_back(false);
    }
    for (int i = 0; i < 300; ++i) {
      uint64_t rel = rng() % t.NumRels();
      if (deleted[rel]) continue;
      ASSERT_TRUE(t.DeleteEdge(rel, 2).ok());
      deleted[rel] = true;
    }
    if (round == 1) {
      // A second bulk load merges with CSR + deltas.
      ASSERT_TRUE(t.BulkLoadOffsets({1, 2}, {3, 4}, {}).ok());
      uint64_t base = t.NumRels() - 2;
      fwd[1].insert({3, base});
      fwd[2].insert({4, base + 1});
      bwd[3].insert({1, base});
      bwd[4].insert({2, base + 1});
      deleted.push_back(false);
      deleted.push_back(false);
    }
    if (round == 2) t.Compact();
    for (uint64_t v = 0; v < nv; ++v) {
      std::multiset<std::pair<uint64_t, uint64_t>> want_f, want_b, got_f, got_b;
      for (auto e : fwd[v]) {
        if (!deleted[e.second]) want_f.insert(e);
      }
      for (auto e : bwd[v]) {
        if (!deleted[e.second]) want_b.insert(e);
      }
      for (auto e : ExpandLive(t, v, Direction::kForward)) got_f.insert(e);
      for (auto e : ExpandLive(t, v, Direction::kBackward)) got_b.insert(e);
      ASSERT_EQ(got_f, want_f) << "round " << round << " vertex " << v;
      ASSERT_EQ(got_b, want_b) << "round " << round << " vertex " << v;
    }
  }
}

TEST(RelTableTest, Multiplicity) {
  auto schema = Schema(catalog::RelMultiplicity::kOneOne, false);
  schema.name = "LivesIn";
  RelTable t(schema, schema.pairs[0]);
  ASSERT_TRUE(t.InsertEdge(0, 0, {}, 1).ok());
  auto r = t.InsertEdge(1, 0, {}, 1);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kConstraintViolation);
  EXPECT_EQ(r.status().message(),
            "Runtime exception: Node(nodeOffset: 0) has more than one neighbour in table LivesIn "
            "in the bwd direction, which violates the rel multiplicity constraint.");
  r = t.InsertEdge(0, 1, {}, 1);
  EXPECT_EQ(r.status().message(),
            "Runtime exception: Node(nodeOffset: 0) has more than one neighbour in table LivesIn "
            "in the fwd direction, which violates the rel multiplicity constraint.");
  // Deleted edges do not count.
  ASSERT_TRUE(t.DeleteEdge(0, 2).ok());
  ASSERT_TRUE(t.InsertEdge(0, 1, {}, 3).ok());

  auto many_one = Schema(catalog::RelMultiplicity::kManyOne, false);
  RelTable m(many_one, many_one.pairs[0]);
  Status s = m.BulkLoadOffsets({0, 1, 1}, {5, 5, 6}, {});
  EXPECT_EQ(s.code(), ErrorCode::kConstraintViolation);
  EXPECT_EQ(s.message(),
            "Copy exception: Node(nodeOffset: 1) has more than one neighbour in table knows in "
            "the fwd direction, which violates the rel multiplicity constraint.");
  EXPECT_EQ(m.NumRels(), 0u);
  ASSERT_TRUE(m.BulkLoadOffsets({0, 1}, {5, 5}, {}).ok());   // many sources may share a target
  EXPECT_FALSE(m.BulkLoadOffsets({2, 0}, {5, 5}, {}).ok());  // 0 already has its edge
  EXPECT_EQ(m.NumRels(), 2u);
  EXPECT_FALSE(m.InsertEdge(1, 9, {}, 1).ok());
  ASSERT_TRUE(m.InsertEdge(2, 9, {}, 1).ok());
}

TEST(RelTableTest, BulkLoadResolvesKeys) {
  catalog::NodeTableSchema person;
  person.id = 0;
  person.name = "person";
  person.properties.push_back({"ID", LogicalType::Int64(), std::nullopt, 0});
  catalog::NodeTableSchema org = person;
  org.id = 1;
  org.name = "org";
  org.properties[0].type = LogicalType::String();
  NodeTable people(person);
  NodeTable orgs(org);
  for (int64_t id : {10, 20, 30}) ASSERT_TRUE(people.Insert({Value::Int64(id)}, 0).ok());
  for (const char* name : {"uw", "mit"}) ASSERT_TRUE(orgs.Insert({Value::String(name)}, 0).ok());
  auto schema = Schema();
  RelTable t(schema, schema.pairs[0]);
  Column src = Ints({30, 10});
  Column dst(LogicalType::String());
  dst.AppendString("mit");
  dst.AppendString("uw");
  ASSERT_TRUE(t.BulkLoad(src, dst, Props({1, 2}), people, orgs).ok());
  EXPECT_EQ(Expand(t, 2, Direction::kForward), (Edges{{1, 0}}));
  EXPECT_EQ(Expand(t, 0, Direction::kBackward), (Edges{{0, 1}}));
  Column bad_dst(LogicalType::String());
  bad_dst.AppendString("mit");
  bad_dst.AppendString("cmu");
  Status s = t.BulkLoad(src, bad_dst, Props({1, 2}), people, orgs);
  EXPECT_EQ(s.message(), "Copy exception: Unable to find primary key value cmu.");
  EXPECT_EQ(t.NumRels(), 2u);
  EXPECT_FALSE(t.BulkLoad(dst, src, Props({1, 2}), people, orgs).ok());  // key types swapped
  EXPECT_FALSE(t.BulkLoad(src, dst, Props({1, 2}), orgs, people).ok());  // wrong tables
}

TEST(RelTableTest, SerializeRoundTripFoldsDeltas) {
  auto schema = Schema();
  RelTable t(schema, schema.pairs[0]);
  ASSERT_TRUE(t.BulkLoadOffsets({0, 1}, {1, 0}, Props({1, 2})).ok());
  ASSERT_TRUE(t.InsertEdge(0, 2, {Value::Int64(3)}, 4).ok());
  ASSERT_TRUE(t.DeleteEdge(1, 5).ok());
  catalog::BinaryWriter w;
  t.Serialize(w);
  catalog::BinaryReader r(w.buffer());
  auto back = RelTable::Deserialize(r, schema, schema.pairs[0], 3, 3);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_TRUE(r.done());
  EXPECT_EQ((*back)->NumDeltaEntries(), 0u);
  EXPECT_EQ(Expand(**back, 0, Direction::kForward), (Edges{{1, 0}, {2, 2}}));
  EXPECT_EQ(Expand(**back, 0, Direction::kBackward), (Edges{{1, 1}}));
  EXPECT_TRUE((*back)->IsDeleted(1));
  EXPECT_EQ((*back)->create_ts(2), 4u);
  EXPECT_EQ((*back)->Get(0, 2).ToString(), "3");
  // Neighbour offsets beyond the node tables are corruption.
  catalog::BinaryReader r2(w.buffer());
  EXPECT_EQ(RelTable::Deserialize(r2, schema, schema.pairs[0], 3, 2).status().code(),
            ErrorCode::kCorruption);
}

TEST(RelTableTest, AllDeletedAndCompactedRoundTrips) {
  auto schema = Schema(catalog::RelMultiplicity::kManyMany, false);
  RelTable t(schema, schema.pairs[0]);
  for (uint64_t i = 0; i < 100; ++i) ASSERT_TRUE(t.InsertEdge(i % 5, i % 3, {}, 1).ok());
  for (uint64_t i = 0; i < 100; ++i) ASSERT_TRUE(t.DeleteEdge(i, 7).ok());
  t.Compact();
  EXPECT_EQ(t.Degree(0, Direction::kForward), 0u);
  catalog::BinaryWriter w;
  t.Serialize(w);
  catalog::BinaryReader r(w.buffer());
  auto back = RelTable::Deserialize(r, schema, schema.pairs[0], 5, 3);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ((*back)->NumRels(), 100u);
  EXPECT_EQ((*back)->NumLiveRels(), 0u);
}

TEST(RelTableTest, AlterColumns) {
  auto schema = Schema();
  RelTable t(schema, schema.pairs[0]);
  ASSERT_TRUE(t.BulkLoadOffsets({0, 1}, {1, 0}, Props({1, 2})).ok());
  ASSERT_TRUE(t.AddColumn(LogicalType::String(), Value::String("x")).ok());
  EXPECT_EQ(t.Get(1, 1).ToString(), "x");
  ASSERT_TRUE(t.DropColumn(0).ok());
  EXPECT_EQ(t.NumColumns(), 1u);
  ASSERT_TRUE(t.InsertEdge(2, 2, {Value::String("y")}, 1).ok());
  EXPECT_EQ(t.Get(0, 2).ToString(), "y");
}

// CountEdges counts a vertex's entries that a snapshot sees: from the CSR offsets while every
// CSR entry is visible to it, entry by entry otherwise (and always for delta entries).
TEST(RelTableTest, CountEdgesUsesOffsetsOnlyWhileTheCsrIsClean) {
  auto schema = Schema();
  RelTable t(schema, schema.pairs[0]);
  // Parallel edges 0 -> 1 twice, a self-loop on 2, all bulk loaded at stamp 5.
  ASSERT_TRUE(t.BulkLoadOffsets({0, 0, 0, 2, 1}, {1, 1, 2, 2, 0}, Props({1, 2, 3, 4, 5}), 5).ok());
  const uint64_t kReadAll = kUncommittedBase - 1;
  uint64_t examined = 0;  // entries checked one by one, over every count below
  auto count = [&t, &examined](uint64_t v, Direction dir, uint64_t read_ts, uint64_t own = 0) {
    return t.CountEdges(
        v, dir, read_ts,
        [&](uint64_t rel) {
          auto visible = [&](uint64_t stamp) { return stamp <= read_ts || (own && stamp == own); };
          return visible(t.create_ts(rel)) && !visible(t.delete_ts(rel));
        },
        &examined);
  };
  auto reference = [&t](uint64_t v, Direction dir, uint64_t read_ts) {
    uint64_t n = 0;
    t.ForEachEdge(v, dir, [&](uint64_t, uint64_t rel) {
      n += t.create_ts(rel) <= read_ts && t.delete_ts(rel) > read_ts;
    });
    return n;
  };
  EXPECT_TRUE(t.CsrVisibleTo(Direction::kForward, 5));
  EXPECT_FALSE(t.CsrVisibleTo(Direction::kForward, 4));  // a snapshot before the load
  EXPECT_EQ(count(0, Direction::kForward, kReadAll), 3u);
  EXPECT_EQ(count(0, Direction::kForward, 4), 0u);
  EXPECT_EQ(count(2, Direction::kBackward, kReadAll), 2u);  // from 0 and the self-loop
  EXPECT_EQ(count(7, Direction::kForward, kReadAll), 0u);   // beyond the CSR
  EXPECT_EQ(examined, 3u);  // only the stale snapshot's look at vertex 0's CSR range

  // A delta edge is counted by its stamps; the CSR stays clean.
  auto rel = t.InsertEdge(0, 2, {Value::Int64(6)}, kUncommittedBase + 1);
  ASSERT_TRUE(rel.ok());
  EXPECT_TRUE(t.CsrVisibleTo(Direction::kForward, kReadAll));
  EXPECT_EQ(count(0, Direction::kForward, kReadAll), 3u);
  EXPECT_EQ(count(0, Direction::kForward, kReadAll, kUncommittedBase + 1), 4u);
  EXPECT_EQ(examined, 5u);  // the delta entry, twice
  t.SetCreateTs(*rel, 9);   // the commit
  EXPECT_TRUE(t.CsrVisibleTo(Direction::kForward, kReadAll));
  EXPECT_EQ(count(0, Direction::kForward, 9), 4u);
  EXPECT_EQ(count(0, Direction::kForward, 8), 3u);

  // A delete stamp on any edge withdraws the offsets until the next rebuild, even undone.
  ASSERT_TRUE(t.DeleteEdge(1, 10).ok());
  EXPECT_FALSE(t.CsrVisibleTo(Direction::kForward, kReadAll));
  EXPECT_FALSE(t.CsrVisibleTo(Direction::kBackward, kReadAll));
  for (uint64_t v = 0; v < 3; ++v) {
    for (Direction dir : {Direction::kForward, Direction::kBackward}) {
      for (uint64_t ts : {uint64_t{8}, uint64_t{9}, uint64_t{10}, kReadAll}) {
        EXPECT_EQ(count(v, dir, ts), reference(v, dir, ts)) << v << " " << ts;
      }
    }
  }
  EXPECT_EQ(count(0, Direction::kForward, 10), 3u);
  ASSERT_TRUE(t.UndoDelete(1).ok());
  EXPECT_FALSE(t.CsrVisibleTo(Direction::kForward, kReadAll));
  EXPECT_EQ(count(0, Direction::kForward, kReadAll), 4u);

  // Compaction folds the delta in and records the newest stamp again.
  t.Compact();
  EXPECT_TRUE(t.CsrVisibleTo(Direction::kForward, 9));
  EXPECT_FALSE(t.CsrVisibleTo(Direction::kForward, 8));  // the folded edge is newer
  EXPECT_EQ(count(0, Direction::kForward, 9), 4u);
  EXPECT_EQ(count(0, Direction::kForward, 8), 3u);

  // Raising a CSR edge's create stamp (an aborted writer keeps its row unseen) withdraws them.
  t.SetCreateTs(0, 20);
  EXPECT_FALSE(t.CsrVisibleTo(Direction::kForward, kReadAll));
  EXPECT_EQ(count(0, Direction::kForward, 9), 3u);

  // An edge deleted before the rebuild that stays in the CSR (a snapshot may see it) keeps
  // the CSR unclean after it.
  ASSERT_TRUE(t.DeleteEdge(2, 30).ok());
  t.Compact(/*deleted_up_to=*/29);
  EXPECT_FALSE(t.CsrVisibleTo(Direction::kForward, kReadAll));
  EXPECT_EQ(count(0, Direction::kForward, 29), reference(0, Direction::kForward, 29));
}

// The table of SerializeRoundTripFoldsDeltas as format version 1 wrote it (adjacency entries
// always {u64, u64}, no width byte): still read.
TEST(RelTableTest, ReadsFormatVersion1) {
  const std::string hex =
      "03000100030105494e5436340403000100000000000000020000000000000003000000000000000100000000"
      "000000000000000000000000040000000000000001ffffffffffffffff0500000000000000ffffffffffffffff"
      "0203020101000000000000000000000000000000020000000000000002000000000000000000000000000000"
      "0100000000000000030301010101000000000000000100000000000000000000000000000000000000000000"
      "0000000000000000000200000000000000";
  std::string bytes;
  for (size_t i = 0; i < hex.size(); i += 2) {
    bytes += static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16));
  }
  auto schema = Schema();
  catalog::BinaryReader r(bytes);
  auto back = RelTable::Deserialize(r, schema, schema.pairs[0], 3, 3, /*format_version=*/1);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_TRUE(r.done());
  EXPECT_EQ(Expand(**back, 0, Direction::kForward), (Edges{{1, 0}, {2, 2}}));
  EXPECT_EQ(Expand(**back, 0, Direction::kBackward), (Edges{{1, 1}}));
  EXPECT_TRUE((*back)->IsDeleted(1));
  EXPECT_EQ((*back)->Get(0, 2).ToString(), "3");
  // The same bytes are no version 2 file (the width byte would be a degree).
  catalog::BinaryReader r2(bytes);
  EXPECT_FALSE(RelTable::Deserialize(r2, schema, schema.pairs[0], 3, 3, 2).ok());
  // With a width byte of 16 after each adjacency's vertex and entry counts they are a version 2
  // file with {u64, u64} entries (what offsets of 2^32 and more need), and read the same.
  std::string wide = bytes;
  size_t fwd = wide.find(std::string("\x02\x03\x02\x01", 4));
  ASSERT_NE(fwd, std::string::npos);
  wide.insert(fwd + 2, 1, '\x10');
  size_t bwd = wide.find(std::string("\x03\x03\x01\x01\x01", 5), fwd + 3 + 2 + 3 * 16);
  ASSERT_NE(bwd, std::string::npos);
  wide.insert(bwd + 2, 1, '\x10');
  catalog::BinaryReader r3(wide);
  auto v2 = RelTable::Deserialize(r3, schema, schema.pairs[0], 3, 3, 2);
  ASSERT_TRUE(v2.ok()) << v2.status().ToString();
  EXPECT_TRUE(r3.done());
  EXPECT_EQ(Expand(**v2, 0, Direction::kForward), (Edges{{1, 0}, {2, 2}}));
  EXPECT_EQ(Expand(**v2, 0, Direction::kBackward), (Edges{{1, 1}}));
  // Any other width is corruption.
  wide[fwd + 2] = 4;
  catalog::BinaryReader r4(wide);
  auto bad = RelTable::Deserialize(r4, schema, schema.pairs[0], 3, 3, 2);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("bad adjacency entry width 4"), std::string::npos);
}

// Offsets below 2^32 (every graph that fits in memory today) are stored in 8 bytes an entry.
TEST(RelTableTest, AdjacencyEntriesTakeEightBytesWhenOffsetsFit) {
  auto schema = Schema(catalog::RelMultiplicity::kManyMany, false);
  auto round_trip = [&](uint64_t far, size_t* size) {
    RelTable t(schema, schema.pairs[0]);
    std::vector<uint64_t> src, dst;
    for (uint64_t i = 0; i < 5000; ++i) {  // more than one 4,096-entry block
      src.push_back(i % 7);
      dst.push_back(i % 11);
    }
    EXPECT_TRUE(t.BulkLoadOffsets(src, dst, {}).ok());
    EXPECT_TRUE(t.InsertEdge(3, far, {}, 2).ok());  // a delta entry
    catalog::BinaryWriter w;
    t.Serialize(w);
    *size = w.buffer().size();
    catalog::BinaryReader r(w.buffer());
    auto back = RelTable::Deserialize(r, schema, schema.pairs[0], 7, far + 1);
    EXPECT_TRUE(back.ok()) << back.status().ToString();
    if (!back.ok()) return;
    EXPECT_TRUE(r.done());
    for (uint64_t v = 0; v < 7; ++v) {
      EXPECT_EQ(Expand(**back, v, Direction::kForward), Expand(t, v, Direction::kForward)) << v;
    }
    EXPECT_EQ(Expand(**back, far, Direction::kBackward), (Edges{{3, 5000}}));
  };
  size_t size = 0;
  round_trip(20, &size);
  // Two directions of 8-byte entries and the raw create stamps (one rel is not bulk-loaded),
  // where 16-byte entries would take 5001 * (32 + 8).
  EXPECT_LT(size, 5001 * (16 + 8) + 200);
}

}  // namespace
}  // namespace graphdb::storage
