#include "vector/vector_functions.h"

#include <algorithm>
#include <cctype>
#include <mutex>
#include <optional>

#include "algo/projected_graph.h"
#include "catalog/catalog.h"
#include "common/status.h"
#include "common/text.h"
#include "cypher/binder/binder.h"
#include "cypher/binder/table_functions.h"
#include "cypher/parser/parser.h"
#include "cypher/planner/planner.h"
#include "exec/executor.h"
#include "exec/secondary_index.h"
#include "exec/table_functions.h"
#include "function/cast.h"
#include "vector/vector_index.h"

namespace graphdb::vector {

namespace {

constexpr const char* kCreate = "create_vector_index";
constexpr const char* kQuery = "query_vector_index";
constexpr const char* kDrop = "drop_vector_index";
constexpr int64_t kMaxDegree = 26213;
// The largest ml: a node's layer-0 neighbours (4 bytes each, with their count) within 6.4 KiB,
// Kùzu's bound.
constexpr int64_t kMaxMl = 1638;

std::string TypeList(const std::vector<Value>& args) {
  std::string text = "(";
  for (size_t i = 0; i < args.size(); ++i) text += (i ? "," : "") + args[i].type().ToString();
  return text + ")";
}

// The named arguments of a call: each must be one `allowed` (case-insensitive), else Kùzu's
// error. Returned by lower-case name.
std::unordered_map<std::string, Value> Named(const binder::BoundTableFunction& fn,
                                             std::initializer_list<const char*> allowed) {
  std::unordered_map<std::string, Value> out;
  for (const auto& [name, value] : fn.named_args) {
    const std::string lower = catalog::FoldName(name);
    if (std::find_if(allowed.begin(), allowed.end(), [&](const char* a) { return lower == a; }) ==
        allowed.end()) {
      ThrowBinding("Binder exception: Unrecognized optional parameter " + name + " in " +
                   ToUpperAscii(fn.name) + ".");
    }
    out[lower] = value;
  }
  return out;
}

void TypeMismatch(const Value& v, const char* expected) {
  ThrowBinding("Binder exception: " + v.ToString() + " has data type " + v.type().ToString() +
               " but " + expected + " was expected.");
}

std::optional<int64_t> IntArg(const std::unordered_map<std::string, Value>& named,
                              const char* name) {
  auto it = named.find(name);
  if (it == named.end()) return std::nullopt;
  if (it->second.is_null() || !it->second.type().IsInteger()) TypeMismatch(it->second, "INT64");
  return function::CastValue(it->second, LogicalType::Int64()).GetInt();
}

std::optional<double> DoubleArg(const std::unordered_map<std::string, Value>& named,
                                const char* name) {
  auto it = named.find(name);
  if (it == named.end()) return std::nullopt;
  if (it->second.is_null() || !it->second.type().IsNumeric()) TypeMismatch(it->second, "DOUBLE");
  return function::CastValue(it->second, LogicalType::Double()).GetDouble();
}

std::optional<bool> BoolArg(const std::unordered_map<std::string, Value>& named, const char* name) {
  auto it = named.find(name);
  if (it == named.end()) return std::nullopt;
  if (it->second.is_null() || it->second.type_id() != LogicalTypeId::kBool) {
    TypeMismatch(it->second, "BOOL");
  }
  return it->second.GetBool();
}

std::optional<std::string> StringArg(const std::unordered_map<std::string, Value>& named,
                                     const char* name) {
  auto it = named.find(name);
  if (it == named.end()) return std::nullopt;
  if (it->second.is_null() || it->second.type_id() != LogicalTypeId::kString) {
    TypeMismatch(it->second, "STRING");
  }
  return std::string(it->second.GetString());
}

void CheckStrings(const binder::BoundTableFunction& fn, size_t count, const char* expected) {
  bool ok = fn.args.size() == count;
  for (size_t i = 0; ok && i < count; ++i) {
    ok = !fn.args[i].is_null() && fn.args[i].type_id() == LogicalTypeId::kString;
  }
  if (!ok) {
    ThrowBinding("Binder exception: Function " + ToUpperAscii(fn.name) +
                 " did not receive correct arguments:\nActual:   " + TypeList(fn.args) +
                 "\nExpected: " + expected);
  }
}

const catalog::NodeTableSchema& NodeTable(const catalog::Catalog& catalog,
                                          const std::string& name) {
  const catalog::NodeTableSchema* table = catalog.GetNodeTable(name);
  if (table == nullptr) ThrowBinding("Binder exception: Table " + name + " does not exist.");
  return *table;
}

const catalog::IndexDefinition& Index(const catalog::Catalog& catalog,
                                      const catalog::NodeTableSchema& table,
                                      const std::string& name) {
  const catalog::IndexDefinition* def = catalog.GetIndex(table.id, name);
  if (def == nullptr || def->kind != "HNSW") {
    ThrowBinding("Binder exception: Table " + table.name + " doesn't have an index with name " +
                 name + ".");
  }
  return *def;
}

// ---- CREATE_VECTOR_INDEX ----

// The definition a CREATE_VECTOR_INDEX call asks for (Kùzu's checks, in its order).
catalog::IndexDefinition CreateDefinition(const binder::BoundTableFunction& fn,
                                          const catalog::Catalog& catalog) {
  CheckStrings(fn, 3, "(STRING,STRING,STRING)");
  const auto named =
      Named(fn, {"mu", "ml", "pu", "metric", "alpha", "efc", "cache_embeddings", "skip_if_exists"});
  const catalog::NodeTableSchema& table = NodeTable(catalog, std::string(fn.args[0].GetString()));
  const std::string property(fn.args[2].GetString());
  auto column = table.PropertyIndex(property);
  if (!column) {
    ThrowBinding("Binder exception: Column " + property + " does not exist in table " + table.name +
                 ".");
  }
  const LogicalType& type = table.properties[*column].type;
  if (type.id() != LogicalTypeId::kArray ||
      (type.child().id() != LogicalTypeId::kFloat && type.child().id() != LogicalTypeId::kDouble)) {
    ThrowBinding("Binder exception: VECTOR_INDEX only supports FLOAT/DOUBLE ARRAY columns.");
  }
  HnswParams params;
  if (auto mu = IntArg(named, "mu")) {
    if (*mu < 1 || *mu > kMaxDegree) {
      ThrowBinding("Binder exception: Mu must be a positive integer between 1 and 26213.");
    }
    params.mu = static_cast<uint32_t>(*mu);
  }
  if (auto ml = IntArg(named, "ml")) {
    if (*ml < 1 || *ml > kMaxDegree) {
      ThrowBinding("Binder exception: Ml must be a positive integer between 1 and 26213.");
    }
    if (*ml > kMaxMl) {
      ThrowBinding("Binder exception: Unsupported configured ml value " + std::to_string(*ml) +
                   ", the maximum supported value is " + std::to_string(kMaxMl) + ".");
    }
    params.ml = static_cast<uint32_t>(*ml);
  }
  if (auto pu = DoubleArg(named, "pu")) {
    if (!(*pu >= 0 && *pu <= 1)) {
      ThrowBinding("Binder exception: Pu must be a double between 0 and 1.");
    }
    params.pu = *pu;
  }
  if (auto metric = StringArg(named, "metric")) {
    if (!ParseMetric(*metric, &params.metric)) {
      ThrowBinding("Binder exception: Metric must be one of COSINE, L2, L2SQ or DOTPRODUCT.");
    }
  }
  if (auto alpha = DoubleArg(named, "alpha")) {
    if (!(*alpha >= 1)) {
      ThrowBinding("Binder exception: Alpha must be a double greater than or equal to 1.");
    }
    params.alpha = *alpha;
  }
  if (auto efc = IntArg(named, "efc")) {
    if (*efc < 1) ThrowBinding("Binder exception: Efc must be a positive integer.");
    params.efc = static_cast<uint32_t>(*efc);
  }
  BoolArg(named, "cache_embeddings");  // the vectors are always held in memory here
  catalog::IndexDefinition def;
  def.name = std::string(fn.args[1].GetString());
  def.kind = "HNSW";
  def.table = table.id;
  def.properties = {table.properties[*column].id};
  def.options = OptionsText(params);
  return def;
}

// ---- QUERY_VECTOR_INDEX ----

struct QueryArgs {
  std::vector<double> vector;
  uint32_t k = 0;
  uint32_t efs = 200;
};

// Checks the query's arguments that need no index (Kùzu's errors).
QueryArgs CheckQuery(const binder::BoundTableFunction& fn) {
  bool ok = fn.args.size() == 4;
  for (size_t i = 0; ok && i < 2; ++i) {
    ok = !fn.args[i].is_null() && fn.args[i].type_id() == LogicalTypeId::kString;
  }
  ok = ok &&
       (fn.args[2].type_id() == LogicalTypeId::kArray ||
        fn.args[2].type_id() == LogicalTypeId::kList) &&
       fn.args[3].type().IsInteger();
  if (!ok) {
    ThrowBinding("Binder exception: Function " + ToUpperAscii(fn.name) +
                 " did not receive correct arguments:\nActual:   " + TypeList(fn.args) +
                 "\nExpected: (STRING,STRING,ARRAY,INT64)");
  }
  const auto named = Named(fn, {"efs", "blind_search_up_sel", "directed_search_up_sel"});
  QueryArgs out;
  const Value& vec = fn.args[2];
  if (vec.is_null()) ThrowBinding("Binder exception: The query vector must not be NULL.");
  const LogicalType& element = vec.type().child();
  if (!element.IsNumeric() && element.id() != LogicalTypeId::kAny) {
    std::string text = "LIST_CREATION(";
    for (size_t i = 0; i < vec.children().size(); ++i) {
      text += (i ? "," : "") + vec.children()[i].ToString();
    }
    ThrowBinding("Binder exception: Expression " + text + ") has data type " +
                 vec.type().ToString() + " but expected FLOAT[" +
                 std::to_string(vec.children().size()) + "]. Implicit cast is not supported.");
  }
  for (const Value& c : vec.children()) {
    out.vector.push_back(c.is_null() ? 0.0
                                     : function::CastValue(c, LogicalType::Double()).GetDouble());
  }
  const int64_t k = fn.args[3].is_null() ? 0 : fn.args[3].GetInt();
  if (k <= 0) ThrowBinding("Binder exception: The value of k must be greater than 0.");
  out.k = static_cast<uint32_t>(std::min<int64_t>(k, 1 << 30));
  if (auto efs = IntArg(named, "efs")) {
    if (*efs < 1) ThrowBinding("Binder exception: Efs must be a positive integer.");
    out.efs = static_cast<uint32_t>(std::min<int64_t>(*efs, 1 << 30));
  }
  // Kùzu's thresholds between its filtered-search plans: checked, but this index chooses its
  // plan by the filter's size (docs/vector.md).
  const double blind = DoubleArg(named, "blind_search_up_sel").value_or(0.08);
  const double directed = DoubleArg(named, "directed_search_up_sel").value_or(0.4);
  if (!(blind >= 0 && blind <= 1)) {
    ThrowBinding(
        "Binder exception: Blind search upper selectivity threshold must be a double between 0 "
        "and 1.");
  }
  if (!(directed >= 0 && directed <= 1)) {
    ThrowBinding(
        "Binder exception: Directed search upper selectivity threshold must be a double between "
        "0 and 1.");
  }
  if (blind > directed) {
    char buf[320];
    std::snprintf(buf, sizeof(buf),
                  "Binder exception: Blind search upper selectivity threshold is set to %f, but "
                  "the directed search upper selectivity threshold is set to %f. The blind "
                  "search upper selectivity threshold must be less than the directed search "
                  "upper selectivity threshold.",
                  blind, directed);
    ThrowBinding(buf);
  }
  return out;
}

void CheckDimension(const QueryArgs& args, const catalog::IndexDefinition& def,
                    const catalog::Catalog& catalog) {
  const catalog::PropertyDefinition* property = IndexedProperty(def, catalog);
  if (property == nullptr) return;
  const uint32_t dim = property->type.array_size();
  if (args.vector.size() != dim) {
    const std::string element = property->type.child().ToString();
    ThrowBinding("Binder exception: Cannot change literal expression data type from " + element +
                 "[" + std::to_string(args.vector.size()) + "] to " + property->type.ToString() +
                 ".");
  }
}

class VectorBinding final : public binder::TableFunctionBinding {
 public:
  bool Bind(binder::BoundTableFunction* fn, const catalog::Catalog& catalog) const override {
    if (fn->name == kCreate) {
      CreateDefinition(*fn, catalog);
      return true;
    }
    if (fn->name == kDrop) {
      CheckStrings(*fn, 2, "(STRING,STRING)");
      const auto named = Named(*fn, {"skip_if_not_exists"});
      const catalog::NodeTableSchema& table =
          NodeTable(catalog, std::string(fn->args[0].GetString()));
      if (!BoolArg(named, "skip_if_not_exists").value_or(false)) {
        Index(catalog, table, std::string(fn->args[1].GetString()));
      }
      return true;
    }
    if (fn->name != kQuery) return false;
    const QueryArgs args = CheckQuery(*fn);
    std::vector<uint64_t> node_tables;
    // A table's index is checked now; a projected graph's once the call runs (the connection's
    // graphs are not known to the binder).
    const std::string target(fn->args[0].GetString());
    if (const catalog::NodeTableSchema* table = catalog.GetNodeTable(target)) {
      CheckDimension(args, Index(catalog, *table, std::string(fn->args[1].GetString())), catalog);
      node_tables.push_back(table->id);
    } else {
      for (const auto* t : catalog.NodeTables()) node_tables.push_back(t->id);
    }
    fn->column_names = {"node", "distance"};
    fn->column_types = {LogicalType(LogicalTypeId::kNode), LogicalType::Double()};
    fn->column_tables = {node_tables, {}};
    return true;
  }
};

// ---- Running ----

// The rows of node table `table` that a project_graph_cypher query returns (as nodes, in any
// column), run over the statement's snapshot.
std::vector<uint64_t> CypherGraphRows(const std::string& cypher, catalog::TableId table,
                                      exec::GraphStore& store, exec::ExecContext& ctx) {
  auto statements = parser::ParseStatements(cypher);
  if (statements.size() != 1 || statements[0]->kind != parser::StatementKind::kQuery) {
    ThrowBinding("Binder exception: The query of a projected graph must be one read query.");
  }
  const std::unordered_map<std::string, Value> no_params;
  binder::Binder binder(store.catalog(), no_params);
  auto bound = binder.BindQuery(statements[0]->As<parser::ParsedQueryStatement>().query);
  const planner::LogicalPlan plan = planner::PlanQuery(*bound, store.catalog());
  exec::ExecContext sub;
  sub.params = &no_params;
  sub.fn_ctx = ctx.fn_ctx;
  sub.fn_ctx.memory = &sub.expr_memory;
  sub.graph = ctx.graph;
  sub.store = ctx.store;
  sub.settings = ctx.settings;
  sub.extension_state = ctx.extension_state;
  sub.indexes = ctx.indexes;
  sub.tasks = ctx.tasks;
  sub.parallelism = ctx.parallelism;
  sub.query_id = ctx.query_id;
  const exec::QueryResult result = exec::ExecutePlan(plan, &store, sub);
  std::vector<uint64_t> offsets;
  for (const auto& row : result.rows) {
    for (const Value& v : row) {
      if (v.is_null() ||
          (v.type_id() != LogicalTypeId::kNode && v.type_id() != LogicalTypeId::kInternalId)) {
        continue;
      }
      if (v.GetId().table == table) offsets.push_back(v.GetId().offset);
    }
  }
  return offsets;
}

class VectorExtension final : public exec::TableFunctionExtension {
 public:
  std::unique_ptr<exec::TableFunctionRowSource> Open(const binder::BoundTableFunction& fn,
                                                     exec::GraphStore& store,
                                                     exec::ExecContext& ctx) const override {
    const catalog::Catalog& catalog = store.catalog();
    if (fn.name == kCreate || fn.name == kDrop) {
      if (ctx.index_ddl == nullptr) {
        ThrowBinding("Binder exception: " + ToUpperAscii(fn.name) +
                     " is only supported in auto transaction mode.");
      }
      if (fn.name == kCreate) {
        catalog::IndexDefinition def = CreateDefinition(fn, catalog);
        const auto named = Named(
            fn, {"mu", "ml", "pu", "metric", "alpha", "efc", "cache_embeddings", "skip_if_exists"});
        if (BoolArg(named, "skip_if_exists").value_or(false) &&
            catalog.GetIndex(def.table, def.name) != nullptr) {
          return std::make_unique<exec::MaterializedRows>(std::vector<std::vector<Value>>{});
        }
        ctx.index_ddl->create(std::move(def));
      } else {
        const auto named = Named(fn, {"skip_if_not_exists"});
        const catalog::NodeTableSchema& table =
            NodeTable(catalog, std::string(fn.args[0].GetString()));
        const std::string name(fn.args[1].GetString());
        if (catalog.GetIndex(table.id, name) != nullptr ||
            !BoolArg(named, "skip_if_not_exists").value_or(false)) {
          Index(catalog, table, name);
          Status dropped = ctx.index_ddl->drop(table.id, name);
          if (!dropped.ok()) throw GraphDBException(std::move(dropped));
        }
      }
      return std::make_unique<exec::MaterializedRows>(std::vector<std::vector<Value>>{});
    }
    if (fn.name != kQuery) return nullptr;
    return Query(fn, store, ctx);
  }

 private:
  static std::unique_ptr<exec::TableFunctionRowSource> Query(const binder::BoundTableFunction& fn,
                                                             exec::GraphStore& store,
                                                             exec::ExecContext& ctx) {
    const catalog::Catalog& catalog = store.catalog();
    const QueryArgs args = CheckQuery(fn);
    const std::string target(fn.args[0].GetString());
    const std::string index_name(fn.args[1].GetString());
    const catalog::NodeTableSchema* table = catalog.GetNodeTable(target);
    const algo::ProjectedGraphDef* graph = nullptr;
    if (table == nullptr) {
      auto* graphs = dynamic_cast<algo::ProjectedGraphs*>(ctx.extension_state);
      graph = graphs ? graphs->Find(target) : nullptr;
      if (graph == nullptr || (graph->nodes.empty() && graph->cypher.empty())) {
        ThrowBinding("Binder exception: Cannot find table or graph named as " + target + ".");
      }
      // The projected node table that has the index (the first one, for the error); a
      // project_graph_cypher graph: the table that has an index of that name.
      std::vector<std::string> names;
      for (const auto& t : graph->nodes) names.push_back(t.name);
      if (graph->nodes.empty()) {
        for (const auto* t : catalog.NodeTables()) names.push_back(t->name);
      }
      for (const auto& name : names) {
        const catalog::NodeTableSchema* candidate = catalog.GetNodeTable(name);
        if (candidate && !table && catalog.GetIndex(candidate->id, index_name)) table = candidate;
      }
      if (table == nullptr) {
        if (names.empty()) {
          ThrowBinding("Binder exception: Cannot find table or graph named as " + target + ".");
        }
        table = &NodeTable(catalog, names[0]);
      }
    }
    const catalog::IndexDefinition& def = Index(catalog, *table, index_name);
    CheckDimension(args, def, catalog);
    if (ctx.indexes == nullptr) ThrowNotSupported("QUERY_VECTOR_INDEX needs a database");
    std::shared_ptr<exec::IndexContents> held = ctx.indexes->Get(def, store, ctx);
    const auto* contents = dynamic_cast<const VectorContents*>(held.get());
    if (contents == nullptr) ThrowRuntime("Runtime exception: " + def.name + " is no vector index");

    SearchOptions options;
    options.k = args.k;
    options.efs = args.efs;
    options.snapshot = store.snapshot().read_ts;
    options.control = ctx.control;
    const std::vector<uint64_t> own = exec::OwnChangedRows(store, table->id);
    options.skip = own.empty() ? nullptr : &own;
    // A projected graph's filter: the rows of this table in the graph.
    std::vector<uint64_t> allowed;
    auto allow = [&](uint64_t offset) {
      if ((offset >> 6) >= allowed.size()) allowed.resize((offset >> 6) + 1, 0);
      const uint64_t bit = uint64_t{1} << (offset & 63);
      if ((allowed[offset >> 6] & bit) == 0) ++options.allowed_count;
      allowed[offset >> 6] |= bit;
    };
    if (graph != nullptr && !graph->cypher.empty()) {
      for (uint64_t offset : CypherGraphRows(graph->cypher, table->id, store, ctx)) allow(offset);
      options.allowed = &allowed;
    } else if (graph != nullptr) {
      exec::MemoryCharge charge;
      algo::ProjectedGraphDef only;
      only.name = graph->name;
      for (const auto& t : graph->nodes) {
        if (catalog::NamesEqual(t.name, table->name)) only.nodes.push_back(t);
      }
      algo::BuiltGraph built = algo::BuildGraph(only, store, ctx, false, false, &charge);
      for (const algo::NodeRange& range : built.ranges) {
        if (range.table != table->id) continue;
        for (uint64_t v = range.base; v < range.base + range.count; ++v) {
          if (!built.graph.active[v]) continue;
          allow(built.NodeId(v).offset);
        }
      }
      charge.Release(ctx);
      options.allowed = &allowed;
    }
    std::vector<Hit> hits = contents->Search(args.vector, options);
    // The statement's own uncommitted rows, by their values in the store.
    if (!own.empty()) {
      storage::NodeTable& rows = store.node_table(table->id);
      for (uint64_t offset : own) {
        if (!store.NodeRowVisible(rows, offset)) continue;
        if (options.allowed != nullptr && ((offset >> 6) >= allowed.size() ||
                                           ((allowed[offset >> 6] >> (offset & 63)) & 1) == 0)) {
          continue;
        }
        const std::vector<Value> values = exec::IndexedValues(def, store, offset);
        if (values.empty() || values[0].is_null()) continue;
        hits.push_back({offset, contents->DistanceTo(args.vector, values[0])});
      }
      std::sort(hits.begin(), hits.end(), [](const Hit& a, const Hit& b) {
        return a.distance < b.distance || (a.distance == b.distance && a.offset < b.offset);
      });
      if (hits.size() > args.k) hits.resize(args.k);
    }
    std::vector<std::vector<Value>> rows;
    rows.reserve(hits.size());
    for (const Hit& h : hits) {
      rows.push_back({Value::Id({table->id, h.offset}), Value::Double(h.distance)});
    }
    return std::make_unique<exec::MaterializedRows>(std::move(rows));
  }
};

}  // namespace

void RegisterVectorIndex() {
  static std::once_flag once;
  std::call_once(once, [] {
    static const VectorBinding binding;
    static const VectorExtension extension;
    static const HnswKind kind;
    binder::RegisterTableFunctionBinding(&binding);
    exec::RegisterTableFunctionExtension(&extension);
    exec::RegisterIndexKind("HNSW", &kind);
    exec::RegisterIndexDdlFunction(kCreate);
    exec::RegisterIndexDdlFunction(kDrop);
  });
}

}  // namespace graphdb::vector
