// The secondary-index infrastructure (exec/secondary_index.h) end to end, through a small
// index kind of the test's own: an equality index over one property (CALL
// create_eq_index(table, name, property), query_eq_index(table, name, value) -> node,
// drop_eq_index(table, name)). It checks what every real kind (full-text, vector) relies on:
// commits, COPY, snapshots, a transaction's own changes, rollback, reopen, DDL rules, export.
#include "exec/secondary_index.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <shared_mutex>

#include "cypher/binder/table_functions.h"
#include "exec/exec_context.h"
#include "exec/table_functions.h"
#include "main/slot_test_util.h"

namespace graphdb {
namespace {

constexpr uint64_t kOpen = ~uint64_t{0};

class EqContents final : public exec::IndexContents {
 public:
  struct Version {
    uint64_t offset;
    std::string value;
    uint64_t begin;
    uint64_t end;
  };
  void Put(uint64_t offset, const std::vector<Value>& values, uint64_t ts) override {
    std::unique_lock lock(mu_);
    End(offset, ts);
    if (!values[0].is_null()) versions_.push_back({offset, values[0].ToString(), ts, kOpen});
  }
  void Remove(uint64_t offset, uint64_t ts) override {
    std::unique_lock lock(mu_);
    End(offset, ts);
  }
  void Prune(uint64_t oldest) override {
    std::unique_lock lock(mu_);
    std::erase_if(versions_, [&](const Version& v) { return v.end <= oldest; });
  }
  uint64_t MemoryBytes() const override {
    std::shared_lock lock(mu_);
    return versions_.size() * sizeof(Version);
  }
  // The committed rows holding `value` at `snapshot`, leaving out `skip`.
  std::vector<uint64_t> Find(const std::string& value, const exec::Snapshot& snapshot,
                             const std::vector<uint64_t>& skip) const {
    std::shared_lock lock(mu_);
    std::vector<uint64_t> rows;
    for (const Version& v : versions_) {
      if (v.value != value || v.begin > snapshot.read_ts ||
          (v.end != kOpen && v.end <= snapshot.read_ts)) {
        continue;
      }
      if (!std::binary_search(skip.begin(), skip.end(), v.offset)) rows.push_back(v.offset);
    }
    return rows;
  }
  size_t NumVersions() const {
    std::shared_lock lock(mu_);
    return versions_.size();
  }

 private:
  void End(uint64_t offset, uint64_t ts) {
    for (Version& v : versions_) {
      if (v.offset == offset && v.end == kOpen) v.end = ts;
    }
  }
  mutable std::shared_mutex mu_;
  std::vector<Version> versions_;
};

class EqKind final : public exec::IndexKind {
 public:
  std::unique_ptr<exec::IndexContents> NewContents(const catalog::IndexDefinition&,
                                                   const catalog::Catalog&) const override {
    return std::make_unique<EqContents>();
  }
  std::string DefinitionText(const catalog::IndexDefinition& def,
                             const catalog::Catalog& catalog) const override {
    const auto* schema = catalog.GetNodeTable(def.table);
    std::string property;
    for (const auto& p : schema->properties) {
      if (p.id == def.properties[0]) property = p.name;
    }
    return "CALL create_eq_index('" + schema->name + "', '" + def.name + "', '" + property + "');";
  }
};

class EqBinding final : public binder::TableFunctionBinding {
 public:
  bool Bind(binder::BoundTableFunction* fn, const catalog::Catalog& catalog) const override {
    if (fn->name == "create_eq_index" || fn->name == "drop_eq_index") return true;
    if (fn->name != "query_eq_index") return false;
    fn->column_names = {"node"};
    fn->column_types = {LogicalType(LogicalTypeId::kNode)};
    std::vector<uint64_t> tables;
    for (const auto* t : catalog.NodeTables()) tables.push_back(t->id);
    fn->column_tables = {tables};
    return true;
  }
};

class EqExtension final : public exec::TableFunctionExtension {
 public:
  std::unique_ptr<exec::TableFunctionRowSource> Open(const binder::BoundTableFunction& fn,
                                                     exec::GraphStore& store,
                                                     exec::ExecContext& ctx) const override {
    if (fn.name != "create_eq_index" && fn.name != "drop_eq_index" && fn.name != "query_eq_index") {
      return nullptr;
    }
    const catalog::Catalog& catalog = store.catalog();
    const auto* schema = catalog.GetNodeTable(fn.args[0].GetString());
    if (!schema) ThrowBinding("Binder exception: no table");
    const std::string name(fn.args[1].GetString());
    auto rows = std::make_shared<std::vector<uint64_t>>();
    if (fn.name == "create_eq_index") {
      EXPECT_NE(ctx.index_ddl, nullptr);
      catalog::IndexDefinition def;
      def.name = name;
      def.kind = "EQ";
      def.table = schema->id;
      for (const auto& p : schema->properties) {
        if (p.name == fn.args[2].GetString()) def.properties.push_back(p.id);
      }
      ctx.index_ddl->create(std::move(def));
    } else if (fn.name == "drop_eq_index") {
      const Status dropped = ctx.index_ddl->drop(schema->id, name);
      if (!dropped.ok()) throw GraphDBException(dropped);
    } else {
      const catalog::IndexDefinition* def = catalog.GetIndex(schema->id, name);
      if (!def) ThrowBinding("Binder exception: no index");
      auto contents = ctx.indexes->Get(*def, store, ctx);
      const std::string value = fn.args[2].ToString();
      const std::vector<uint64_t> own = exec::OwnChangedRows(store, schema->id);
      *rows = static_cast<EqContents&>(*contents).Find(value, store.snapshot(), own);
      const storage::NodeTable& table = store.node_table(schema->id);
      for (uint64_t offset : own) {
        if (store.NodeRowVisible(table, offset) &&
            exec::IndexedValues(*def, store, offset)[0].ToString() == value) {
          rows->push_back(offset);
        }
      }
    }
    const uint64_t table_id = schema->id;
    struct Rows final : exec::TableFunctionRowSource {
      std::shared_ptr<std::vector<uint64_t>> rows;
      uint64_t table;
      size_t next = 0;
      bool Next(std::vector<Value>* row) override {
        if (next >= rows->size()) return false;
        *row = {Value::Id(InternalId{table, (*rows)[next++]})};
        return true;
      }
    };
    auto source = std::make_unique<Rows>();
    source->rows = rows;
    source->table = table_id;
    return source;
  }
};

void RegisterEqIndex() {
  static EqKind kind;
  static EqBinding binding;
  static EqExtension extension;
  exec::RegisterIndexKind("EQ", &kind);
  binder::RegisterTableFunctionBinding(&binding);
  exec::RegisterTableFunctionExtension(&extension);
  exec::RegisterIndexDdlFunction("create_eq_index");
  exec::RegisterIndexDdlFunction("drop_eq_index");
}

class SecondaryIndexTest : public testing_util::QueryFixture {
 protected:
  void SetUp() override {
    RegisterEqIndex();
    QueryFixture::SetUp();
    CreateIndexedTable();
  }
  void CreateIndexedTable() {
    Exec("CREATE NODE TABLE P(id INT64, tag STRING, other STRING, PRIMARY KEY(id))");
    Exec("CREATE (:P {id: 1, tag: 'a'}), (:P {id: 2, tag: 'b'}), (:P {id: 3, tag: 'a'})");
    Exec("CALL create_eq_index('P', 'by_tag', 'tag')");
  }
  std::vector<std::string> Ids(const std::string& tag, Session* session = nullptr) {
    const std::string q =
        "CALL query_eq_index('P', 'by_tag', '" + tag + "') RETURN node.id ORDER BY node.id";
    return session ? testing_util::OrderedRows(*db_, *session, q) : Rows(q);
  }
  using Rows_ = std::vector<std::string>;
};

TEST_F(SecondaryIndexTest, BuildsFromTheRowsAndFollowsCommits) {
  EXPECT_EQ(Ids("a"), (Rows_{"1", "3"}));
  Exec("CREATE (:P {id: 4, tag: 'a'})");
  EXPECT_EQ(Ids("a"), (Rows_{"1", "3", "4"}));
  Exec("MATCH (p:P {id: 1}) SET p.tag = 'b'");
  EXPECT_EQ(Ids("a"), (Rows_{"3", "4"}));
  EXPECT_EQ(Ids("b"), (Rows_{"1", "2"}));
  Exec("MATCH (p:P {id: 3}) DELETE p");
  EXPECT_EQ(Ids("a"), (Rows_{"4"}));
  // A property the index does not cover changes nothing in it.
  Exec("MATCH (p:P {id: 4}) SET p.other = 'x'");
  EXPECT_EQ(Ids("a"), (Rows_{"4"}));
}

TEST_F(SecondaryIndexTest, ATransactionSeesItsOwnChangesAndRollbackUndoesThem) {
  Session other;
  Exec("BEGIN TRANSACTION");
  Exec("MATCH (p:P {id: 1}) SET p.tag = 'c'");
  Exec("CREATE (:P {id: 5, tag: 'c'})");
  Exec("MATCH (p:P {id: 3}) DELETE p");
  EXPECT_EQ(Ids("c"), (Rows_{"1", "5"}));
  EXPECT_EQ(Ids("a"), Rows_{});
  // Another session sees the committed state only.
  EXPECT_EQ(Ids("a", &other), (Rows_{"1", "3"}));
  EXPECT_EQ(Ids("c", &other), Rows_{});
  Exec("ROLLBACK");
  EXPECT_EQ(Ids("a"), (Rows_{"1", "3"}));
  EXPECT_EQ(Ids("c"), Rows_{});
  Exec("BEGIN TRANSACTION");
  Exec("MATCH (p:P {id: 2}) SET p.tag = 'a'");
  Exec("COMMIT");
  EXPECT_EQ(Ids("a", &other), (Rows_{"1", "2", "3"}));
}

TEST_F(SecondaryIndexTest, AnOlderSnapshotReadsTheVersionsItSees) {
  Session reader;
  (void)testing_util::OrderedRows(*db_, reader, "BEGIN TRANSACTION READ ONLY");
  Exec("MATCH (p:P {id: 1}) SET p.tag = 'z'");
  Exec("CREATE (:P {id: 6, tag: 'a'})");
  EXPECT_EQ(Ids("a", &reader), (Rows_{"1", "3"}));
  EXPECT_EQ(Ids("a"), (Rows_{"3", "6"}));
  (void)testing_util::OrderedRows(*db_, reader, "COMMIT");
}

TEST_F(SecondaryIndexTest, DdlRules) {
  EXPECT_EQ(Error("DROP TABLE P"),
            "Binder exception: Cannot delete node table P because it is referenced by index "
            "by_tag.");
  EXPECT_EQ(Error("ALTER TABLE P DROP tag"),
            "Binder exception: Cannot drop property tag in table P because it is used in one or "
            "more indexes. Please remove the associated indexes before attempting to drop this "
            "property.");
  Exec("ALTER TABLE P DROP other");  // not indexed
  EXPECT_EQ(Error("CALL create_eq_index('P', 'BY_TAG', 'tag')"),
            "Binder exception: Index BY_TAG already exists in table P.");
  EXPECT_EQ(Rows("CALL SHOW_INDEXES() RETURN *"),
            Rows_{"P|by_tag|EQ|[tag]|True|CALL create_eq_index('P', 'by_tag', 'tag');"});
  Exec("BEGIN TRANSACTION");
  EXPECT_EQ(Error("CALL create_eq_index('P', 'x', 'tag')"),
            "Binder exception: CREATE_EQ_INDEX is only supported in auto transaction mode.");
  // As in Kùzu, the error ended the transaction.
  EXPECT_EQ(Error("ROLLBACK"), "Transaction exception: No active transaction for ROLLBACK.");
  Exec("CALL drop_eq_index('P', 'by_tag')");
  EXPECT_EQ(Rows("CALL SHOW_INDEXES() RETURN *"), Rows_{});
  Exec("DROP TABLE P");
}

TEST_F(SecondaryIndexTest, CopyReopenExportAndImport) {
  const std::filesystem::path root = TempFolder("secondary-index");
  Open((root / "db").string());
  CreateIndexedTable();
  {
    std::ofstream csv(root / "more.csv");
    csv << "7,a,x\n8,b,y\n";
  }
  Exec("COPY P FROM '" + (root / "more.csv").string() + "'");
  EXPECT_EQ(Ids("a"), (Rows_{"1", "3", "7"}));
  Exec("MATCH (p:P {id: 3}) SET p.tag = 'q'");
  // Reopened: the definition came back with the catalog, the contents from the rows (the
  // last SET replayed from the log).
  Open((root / "db").string());
  EXPECT_EQ(Ids("a"), (Rows_{"1", "7"}));
  EXPECT_EQ(Ids("q"), (Rows_{"3"}));
  Exec("EXPORT DATABASE '" + (root / "out").string() + "'");
  std::ifstream index_file(root / "out" / "index.cypher");
  std::string text((std::istreambuf_iterator<char>(index_file)), {});
  EXPECT_EQ(text, "CALL create_eq_index('P', 'by_tag', 'tag');\n");
  Open((root / "imported").string());
  Exec("IMPORT DATABASE '" + (root / "out").string() + "'");
  EXPECT_EQ(Ids("a"), (Rows_{"1", "7"}));
}

TEST_F(SecondaryIndexTest, PruneDropsVersionsNoSnapshotReads) {
  for (int i = 0; i < 5; ++i) Exec("MATCH (p:P {id: 2}) SET p.tag = 'v" + std::to_string(i) + "'");
  db_->PruneVersions();
  EXPECT_EQ(Ids("v4"), (Rows_{"2"}));
  EXPECT_EQ(Ids("b"), Rows_{});
  const auto* def = db_->catalog().GetIndex(db_->catalog().GetNodeTable("P")->id, "by_tag");
  exec::GraphStore store(db_->catalog(), *db_, exec::GraphStore::kReadOnly);
  exec::ExecContext ctx;
  auto contents = db_->indexes().Get(*def, store, ctx);
  EXPECT_EQ(static_cast<EqContents&>(*contents).NumVersions(), 3u);  // a, a, v4
}

}  // namespace
}  // namespace graphdb
