#include "algo/algo_functions.h"

#include <cmath>
#include <functional>
#include <limits>
#include <string_view>

#include "algo/graph.h"
#include "algo/projected_graph.h"
#include "catalog/catalog.h"
#include "common/status.h"
#include "cypher/binder/table_functions.h"
#include "cypher/parser/parser.h"
#include "exec/table_functions.h"
#include "function/cast.h"

namespace graphdb::algo {

namespace {

enum class Kind {
  kProjectGraph,
  kProjectGraphCypher,
  kProjectedGraphInfo,
  kShowProjectedGraphs,
  kDropProjectedGraph,
  kPageRank,
  kWcc,
  kScc,
  kSccKosaraju,
  kKCore,
  kLouvain,
  kSpanningForest,
  kLeiden,
  kLabelPropagation,
  kClustering,
  kTriangles,
  kBfs,
  kSssp,
};

struct Param {
  std::string_view name;  // as Kùzu spells it; matched case-insensitively
  LogicalTypeId type;     // kDouble, kInt64, kBool or kString
};

struct Spec {
  std::vector<std::string_view> names;  // lower case, the first is the display name
  Kind kind;
  size_t positional;  // STRING arguments: the graph name, then (bfs, sssp) the source key
  std::vector<Param> params;
};

const std::vector<Spec>& Specs() {
  using Id = LogicalTypeId;
  static const std::vector<Spec> specs = {
      {{"project_graph"}, Kind::kProjectGraph, 3, {}},
      {{"project_graph_cypher"}, Kind::kProjectGraphCypher, 2, {}},
      {{"projected_graph_info"}, Kind::kProjectedGraphInfo, 1, {}},
      {{"show_projected_graphs"}, Kind::kShowProjectedGraphs, 0, {}},
      {{"drop_projected_graph"}, Kind::kDropProjectedGraph, 1, {}},
      {{"page_rank", "pr"},
       Kind::kPageRank,
       1,
       {{"dampingFactor", Id::kDouble},
        {"maxIterations", Id::kInt64},
        {"tolerance", Id::kDouble},
        {"normalizeInitial", Id::kBool}}},
      {{"weakly_connected_components", "wcc"}, Kind::kWcc, 1, {{"maxIterations", Id::kInt64}}},
      {{"strongly_connected_components", "scc"}, Kind::kScc, 1, {{"maxIterations", Id::kInt64}}},
      {{"strongly_connected_components_kosaraju", "scc_ko"}, Kind::kSccKosaraju, 1, {}},
      {{"k_core_decomposition", "kcore"}, Kind::kKCore, 1, {}},
      {{"louvain"},
       Kind::kLouvain,
       1,
       {{"maxPhases", Id::kInt64}, {"maxIterations", Id::kInt64}, {"resolution", Id::kDouble}}},
      {{"spanning_forest", "sf"},
       Kind::kSpanningForest,
       1,
       {{"weight_property", Id::kString}, {"variant", Id::kString}}},
      {{"leiden"},
       Kind::kLeiden,
       1,
       {{"maxLevels", Id::kInt64},
        {"maxIterations", Id::kInt64},
        {"resolution", Id::kDouble},
        {"seed", Id::kInt64}}},
      {{"label_propagation", "lpa"}, Kind::kLabelPropagation, 1, {{"maxIterations", Id::kInt64}}},
      {{"local_clustering_coefficient", "lcc"}, Kind::kClustering, 1, {}},
      {{"triangle_count"}, Kind::kTriangles, 1, {}},
      {{"bfs"}, Kind::kBfs, 2, {{"direction", Id::kString}, {"sourceTable", Id::kString}}},
      {{"sssp"},
       Kind::kSssp,
       2,
       {{"weight_property", Id::kString},
        {"direction", Id::kString},
        {"sourceTable", Id::kString}}},
  };
  return specs;
}

const Spec* FindSpec(const std::string& name) {
  for (const Spec& spec : Specs()) {
    for (std::string_view n : spec.names) {
      if (n == name) return &spec;
    }
  }
  return nullptr;
}

std::string TypeList(const std::vector<Value>& args) {
  std::string text = "(";
  for (size_t i = 0; i < args.size(); ++i) text += (i ? "," : "") + args[i].type().ToString();
  return text + ")";
}

// The named arguments checked against the spec, converted to the parameter's type: by
// parameter name (as the spec spells it).
std::unordered_map<std::string, Value> NamedArguments(
    const Spec& spec, const std::vector<std::pair<std::string, Value>>& named) {
  std::unordered_map<std::string, Value> values;
  for (const auto& [name, value] : named) {
    const Param* param = nullptr;
    for (const Param& p : spec.params) {
      if (catalog::NamesEqual(p.name, name)) param = &p;
    }
    if (!param) ThrowBinding("Binder exception: Unknown optional parameter: " + name);
    Value converted = value;
    const bool numeric = !value.is_null() && value.type().IsNumeric();
    bool ok = false;
    switch (param->type) {
      case LogicalTypeId::kDouble:
        ok = numeric;
        if (ok) converted = function::CastValue(value, LogicalType::Double());
        break;
      case LogicalTypeId::kInt64:
        ok = numeric && value.type().IsInteger();
        if (ok) converted = function::CastValue(value, LogicalType::Int64());
        break;
      default: ok = !value.is_null() && value.type_id() == param->type; break;
    }
    if (!ok) {
      ThrowBinding("Binder exception: Expression " + value.ToString() + " has data type " +
                   value.type().ToString() + " but expected " +
                   LogicalType(param->type).ToString() + ". Implicit cast is not supported.");
    }
    values[std::string(param->name)] = std::move(converted);
  }
  return values;
}

double DoubleParam(const std::unordered_map<std::string, Value>& p, const char* name,
                   double fallback) {
  auto it = p.find(name);
  return it == p.end() ? fallback : it->second.GetDouble();
}
int64_t IntParam(const std::unordered_map<std::string, Value>& p, const char* name,
                 int64_t fallback) {
  auto it = p.find(name);
  return it == p.end() ? fallback : it->second.GetInt();
}
std::string StringParam(const std::unordered_map<std::string, Value>& p, const char* name,
                        std::string fallback) {
  auto it = p.find(name);
  return it == p.end() ? fallback : std::string(it->second.GetString());
}

void CheckIterations(int64_t value) {
  if (value < 0) ThrowBinding("Binder exception: Max iteration must be a positive integer.");
}

Direction ParseDirection(const std::string& text) {
  std::string lower = catalog::FoldName(text);
  if (lower == "out") return Direction::kOut;
  if (lower == "in") return Direction::kIn;
  if (lower == "both") return Direction::kBoth;
  ThrowBinding("Binder exception: direction expects out, in or both. Got: " + text);
}

// ---- Binding ----

class AlgoBinding final : public binder::TableFunctionBinding {
 public:
  bool Bind(binder::BoundTableFunction* fn, const catalog::Catalog& catalog) const override {
    const Spec* spec = FindSpec(fn->name);
    if (!spec) return false;
    CheckArguments(*spec, *fn);
    const auto params = NamedArguments(*spec, fn->named_args);
    std::vector<uint64_t> node_tables, rel_tables;
    for (const auto* t : catalog.NodeTables()) node_tables.push_back(t->id);
    for (const auto* t : catalog.RelTables()) rel_tables.push_back(t->id);
    auto column = [&](const char* name, LogicalType type) {
      fn->column_names.emplace_back(name);
      const LogicalTypeId id = type.id();
      fn->column_types.push_back(std::move(type));
      fn->column_tables.push_back(id == LogicalTypeId::kNode  ? node_tables
                                  : id == LogicalTypeId::kRel ? rel_tables
                                                              : std::vector<uint64_t>{});
    };
    const LogicalType kNode(LogicalTypeId::kNode);
    switch (spec->kind) {
      case Kind::kProjectGraph:
        CheckProjection(
            ParseProjection(std::string(fn->args[0].GetString()), fn->args[1], fn->args[2]),
            catalog);
        break;
      case Kind::kShowProjectedGraphs:
        column("name", LogicalType::String());
        column("type", LogicalType::String());
        break;
      case Kind::kProjectGraphCypher: break;
      case Kind::kProjectedGraphInfo:
        column("table type", LogicalType::String());
        column("table name", LogicalType::String());
        column("predicate", LogicalType::String());
        break;
      case Kind::kDropProjectedGraph: break;
      case Kind::kPageRank: {
        const double damping = DoubleParam(params, "dampingFactor", 0.85);
        if (!(damping >= 0 && damping < 1)) {
          ThrowBinding("Binder exception: Damping factor must be in the [0, 1).");
        }
        CheckIterations(IntParam(params, "maxIterations", 20));
        column("node", kNode);
        column("rank", LogicalType::Double());
        break;
      }
      case Kind::kWcc:
      case Kind::kScc:
      case Kind::kSccKosaraju:
        CheckIterations(IntParam(params, "maxIterations", 100));
        column("node", kNode);
        column("group_id", LogicalType::Int64());
        break;
      case Kind::kKCore:
        column("node", kNode);
        column("k_degree", LogicalType::Int64());
        break;
      case Kind::kLouvain:
        CheckIterations(IntParam(params, "maxIterations", 20));
        if (IntParam(params, "maxPhases", 20) < 0) {
          ThrowBinding("Binder exception: Max phases must be a positive integer.");
        }
        column("node", kNode);
        column("louvain_id", LogicalType::Int64());
        break;
      case Kind::kSpanningForest: {
        const std::string variant = StringParam(params, "variant", "min");
        if (variant != "min" && variant != "max") {
          ThrowBinding("Binder exception: Variant argument expects max or min. Got: " + variant);
        }
        column("src", kNode);
        column("dst", kNode);
        column("rel", LogicalType(LogicalTypeId::kRel));
        column("forest_id", LogicalType::Int64());
        break;
      }
      case Kind::kLeiden:
        CheckIterations(IntParam(params, "maxIterations", 20));
        if (IntParam(params, "maxLevels", 10) < 1) {
          ThrowBinding("Binder exception: maxLevels must be at least 1.");
        }
        column("node", kNode);
        column("leiden_id", LogicalType::Int64());
        column("levels", LogicalType::List(LogicalType::Int64()));
        break;
      case Kind::kLabelPropagation:
        CheckIterations(IntParam(params, "maxIterations", 20));
        column("node", kNode);
        column("label", LogicalType::Int64());
        break;
      case Kind::kClustering:
        column("node", kNode);
        column("lcc", LogicalType::Double());
        break;
      case Kind::kTriangles:
        column("node", kNode);
        column("triangles", LogicalType::Int64());
        break;
      case Kind::kBfs:
        ParseDirection(StringParam(params, "direction", "out"));
        column("node", kNode);
        column("distance", LogicalType::Int64());
        break;
      case Kind::kSssp:
        ParseDirection(StringParam(params, "direction", "out"));
        column("node", kNode);
        column("distance", LogicalType::Double());
        break;
    }
    return true;
  }

 private:
  static void CheckArguments(const Spec& spec, const binder::BoundTableFunction& fn) {
    bool ok = fn.args.size() == spec.positional;
    if (ok && spec.kind == Kind::kProjectGraph) {
      ok = !fn.args[0].is_null() && fn.args[0].type_id() == LogicalTypeId::kString;
    } else if (ok) {
      for (size_t i = 0; i < fn.args.size() && ok; ++i) {
        // bfs / sssp: the source's primary key may be of any type.
        const bool any = i > 0 && spec.kind != Kind::kProjectGraphCypher;
        ok = any || (!fn.args[i].is_null() && fn.args[i].type_id() == LogicalTypeId::kString);
      }
    }
    if (ok) return;
    std::string expected = spec.kind == Kind::kProjectGraph         ? "(STRING,ANY,ANY)"
                           : spec.kind == Kind::kProjectGraphCypher ? "(STRING,STRING)"
                           : spec.positional == 0                   ? "()"
                           : spec.positional == 1                   ? "(ANY)"
                                                                    : "(ANY,ANY)";
    ThrowBinding("Binder exception: Function " + std::string(fn.name) +
                 " did not receive correct arguments:\nActual:   " + TypeList(fn.args) +
                 "\nExpected: " + expected);
  }
};

// ---- Running ----

// Rows from a function of the row index, until it says there are no more.
class GeneratedRows final : public exec::TableFunctionRowSource {
 public:
  using Generator = std::function<bool(uint64_t index, std::vector<Value>* row)>;
  explicit GeneratedRows(Generator generate) : generate_(std::move(generate)) {}
  bool Next(std::vector<Value>* row) override { return generate_(next_++, row); }

 private:
  Generator generate_;
  uint64_t next_ = 0;
};

// One row per active vertex of `graph` (in vertex order): the node, then `value(v)`.
std::unique_ptr<exec::TableFunctionRowSource> PerVertex(
    std::shared_ptr<BuiltGraph> graph, std::function<Value(VertexId)> value,
    std::function<bool(VertexId)> include = nullptr) {
  auto cursor = std::make_shared<VertexId>(0);
  return std::make_unique<GeneratedRows>([graph, value = std::move(value),
                                          include = std::move(include),
                                          cursor](uint64_t, std::vector<Value>* row) {
    const Graph& g = graph->graph;
    VertexId& v = *cursor;
    while (v < g.n && (!g.active[v] || (include && !include(v)))) ++v;
    if (v >= g.n) return false;
    row->resize(2);
    (*row)[0] = Value::Id(graph->NodeId(v));
    (*row)[1] = value(v);
    ++v;
    return true;
  });
}

// Releases a statement's memory charge when the call's work is done.
struct ChargeScope {
  explicit ChargeScope(exec::ExecContext& c) : ctx(c) {}
  ~ChargeScope() { charge.Release(ctx); }
  exec::ExecContext& ctx;
  exec::MemoryCharge charge;
};

// Community ids numbered 0.. over the active vertices, in vertex order.
std::vector<int64_t> DenseIds(const Graph& g, const std::vector<VertexId>& community) {
  std::vector<int64_t> map(g.n, -1), result(g.n, -1);
  int64_t next = 0;
  for (VertexId v = 0; v < g.n; ++v) {
    if (!g.active[v]) continue;
    int64_t& id = map[community[v]];
    if (id < 0) id = next++;
    result[v] = id;
  }
  return result;
}

// The source vertex of bfs / sssp: the node whose primary key is `key`, in `table` or the
// first projected table that has one.
VertexId FindSource(const BuiltGraph& built, exec::GraphStore& store, const Value& key,
                    const std::string& table) {
  const catalog::Catalog& catalog = store.catalog();
  for (const NodeRange& range : built.ranges) {
    const catalog::NodeTableSchema* schema = catalog.GetNodeTable(range.table);
    if (!table.empty() && !catalog::NamesEqual(schema->name, table)) continue;
    Value typed = key;
    const LogicalType& pk = schema->primary_key_property().type;
    if (key.type() != pk) {
      try {
        typed = function::CastValue(key, pk);
      } catch (const GraphDBException&) {
        continue;
      }
    }
    if (auto offset = store.LookupNode(range.table, typed)) {
      const VertexId v = static_cast<VertexId>(range.base + *offset);
      if (built.graph.active[v]) return v;
    }
  }
  ThrowRuntime("Runtime exception: Cannot find the source node " + key.ToString() +
               " in the projected graph.");
}

// Per edge: the numeric weight property `name` of its rel.
std::vector<double> EdgeWeights(const BuiltGraph& built, exec::GraphStore& store,
                                const std::string& name) {
  const catalog::Catalog& catalog = store.catalog();
  std::vector<double> weights(built.graph.num_edges(), 1.0);
  std::unordered_map<catalog::TableId, std::optional<size_t>> columns;
  for (catalog::TableId rel_id : built.rel_tables) {
    const catalog::RelTableSchema* rel = catalog.GetRelTable(rel_id);
    auto column = rel->PropertyIndex(name);
    if (!column) ThrowRuntime("Runtime exception: Cannot find property: " + name);
    if (!rel->properties[*column].type.IsNumeric()) {
      ThrowRuntime("Runtime exception: Provided weight property is not numerical: " + name);
    }
    for (const auto& pair : rel->pairs) columns[pair.id] = column;
  }
  for (uint64_t e = 0; e < weights.size(); ++e) {
    const catalog::TableId pair = built.edge_pair[e];
    const Value v = store.rel_table(pair).Get(*columns[pair], built.edge_rel[e]);
    weights[e] = v.is_null() ? 0.0 : function::CastValue(v, LogicalType::Double()).GetDouble();
  }
  return weights;
}

class AlgoExtension final : public exec::TableFunctionExtension {
 public:
  std::unique_ptr<exec::TableFunctionState> NewState() const override {
    return std::make_unique<ProjectedGraphs>();
  }

  std::unique_ptr<exec::TableFunctionRowSource> Open(const binder::BoundTableFunction& fn,
                                                     exec::GraphStore& store,
                                                     exec::ExecContext& ctx) const override {
    const Spec* found = FindSpec(fn.name);
    if (!found) return nullptr;  // another module's function
    const Spec& spec = *found;
    // A statement without a session (an HTTP request outside a transaction) gets graphs of
    // its own, gone when the call ends.
    ProjectedGraphs alone;
    auto* graphs = dynamic_cast<ProjectedGraphs*>(ctx.extension_state);
    if (!graphs) graphs = &alone;
    const auto params = NamedArguments(spec, fn.named_args);
    switch (spec.kind) {
      case Kind::kProjectGraph: {
        ProjectedGraphDef def =
            ParseProjection(std::string(fn.args[0].GetString()), fn.args[1], fn.args[2]);
        CheckProjection(def, store.catalog());
        graphs->Add(std::move(def));
        return Empty();
      }
      case Kind::kProjectGraphCypher: {
        ProjectedGraphDef def;
        def.name = std::string(fn.args[0].GetString());
        def.cypher = std::string(fn.args[1].GetString());
        parser::ParseStatements(def.cypher);  // a syntax error fails the projection
        graphs->Add(std::move(def));
        return Empty();
      }
      case Kind::kProjectedGraphInfo: {
        const std::string name(fn.args[0].GetString());
        const ProjectedGraphDef* def = graphs->Find(name);
        if (!def) ThrowBinding("Binder exception: Graph " + name + " does not exist.");
        auto rows = std::make_shared<std::vector<std::vector<Value>>>();
        if (!def->cypher.empty()) {
          rows->push_back({Value::String("CYPHER"), Value::String(""), Value::String(def->cypher)});
        }
        for (const auto& t : def->nodes) {
          rows->push_back(
              {Value::String("NODE"), Value::String(t.name), Value::String(t.predicate)});
        }
        for (const auto& t : def->rels) {
          rows->push_back(
              {Value::String("REL"), Value::String(t.name), Value::String(t.predicate)});
        }
        return std::make_unique<GeneratedRows>([rows](uint64_t i, std::vector<Value>* row) {
          if (i >= rows->size()) return false;
          *row = (*rows)[i];
          return true;
        });
      }
      case Kind::kDropProjectedGraph:
        graphs->Drop(std::string(fn.args[0].GetString()));
        return Empty();
      case Kind::kShowProjectedGraphs: {
        // Newest first, as Kùzu lists them.
        std::vector<std::pair<std::string, std::string>> names;
        for (const auto& g : graphs->graphs()) {
          names.insert(names.begin(), {g.name, g.cypher.empty() ? "NATIVE" : "CYPHER"});
        }
        return std::make_unique<GeneratedRows>([names](uint64_t i, std::vector<Value>* row) {
          if (i >= names.size()) return false;
          *row = {Value::String(names[i].first), Value::String(names[i].second)};
          return true;
        });
      }
      default: break;
    }
    const std::string name(fn.args[0].GetString());
    const ProjectedGraphDef* def = graphs->Find(name);
    if (!def) ThrowRuntime("Runtime exception: Projected graph " + name + " does not exists.");
    if (!def->cypher.empty()) {
      ThrowNotSupported("the algorithms do not run on a graph of project_graph_cypher yet: " +
                        name);
    }
    if (spec.kind == Kind::kSpanningForest) {
      if (def->nodes.size() != 1) {
        ThrowBinding(
            "Binder exception: SPANNING_FOREST only supports operations on one node table.");
      }
      if (def->rels.size() != 1) {
        ThrowBinding(
            "Binder exception: SPANNING_FOREST only supports operations on one rel table.");
      }
    }
    const bool keep_edges = spec.kind == Kind::kSpanningForest || spec.kind == Kind::kSssp;
    // Union-find and the spanning forest read outgoing edges only.
    const bool transpose = spec.kind != Kind::kWcc && spec.kind != Kind::kSpanningForest;
    ChargeScope memory(ctx);
    auto built = std::make_shared<BuiltGraph>(
        BuildGraph(*def, store, ctx, keep_edges, transpose, &memory.charge));
    const Graph& g = built->graph;
    const Parallel par{ctx.tasks, ctx.parallelism};
    auto ints = [&](auto values) {
      auto shared = std::make_shared<decltype(values)>(std::move(values));
      return PerVertex(
          built, [shared](VertexId v) { return Value::Int64(static_cast<int64_t>((*shared)[v])); });
    };
    auto doubles = [&](std::vector<double> values) {
      auto shared = std::make_shared<std::vector<double>>(std::move(values));
      return PerVertex(built, [shared](VertexId v) { return Value::Double((*shared)[v]); });
    };
    switch (spec.kind) {
      case Kind::kPageRank: {
        PageRankOptions o;
        o.damping = DoubleParam(params, "dampingFactor", o.damping);
        o.max_iterations = IntParam(params, "maxIterations", o.max_iterations);
        o.tolerance = DoubleParam(params, "tolerance", o.tolerance);
        auto it = params.find("normalizeInitial");
        if (it != params.end()) o.normalize_initial = it->second.GetBool();
        return doubles(PageRank(g, o, par));
      }
      case Kind::kWcc:
        return ints(WeaklyConnectedComponents(g, IntParam(params, "maxIterations", 100), par));
      case Kind::kScc: return ints(StronglyConnectedComponents(g, par));
      case Kind::kSccKosaraju: return ints(StronglyConnectedComponentsKosaraju(g, par));
      case Kind::kKCore: return ints(KCoreDecomposition(g, par));
      case Kind::kLouvain: {
        LouvainOptions o;
        o.max_phases = IntParam(params, "maxPhases", o.max_phases);
        o.max_iterations = IntParam(params, "maxIterations", o.max_iterations);
        o.resolution = DoubleParam(params, "resolution", o.resolution);
        return ints(DenseIds(g, Louvain(g, o, par)));
      }
      case Kind::kLeiden: {
        LeidenOptions o;
        o.max_levels = IntParam(params, "maxLevels", o.max_levels);
        o.max_iterations = IntParam(params, "maxIterations", o.max_iterations);
        o.resolution = DoubleParam(params, "resolution", o.resolution);
        o.seed = static_cast<uint64_t>(IntParam(params, "seed", static_cast<int64_t>(o.seed)));
        auto levels = std::make_shared<std::vector<std::vector<int64_t>>>();
        for (const auto& level : Leiden(g, o, par)) levels->push_back(DenseIds(g, level));
        auto cursor = std::make_shared<VertexId>(0);
        return std::make_unique<GeneratedRows>(
            [built, levels, cursor](uint64_t, std::vector<Value>* row) {
              const Graph& graph = built->graph;
              VertexId& v = *cursor;
              while (v < graph.n && !graph.active[v]) ++v;
              if (v >= graph.n) return false;
              std::vector<Value> ids;
              for (const auto& level : *levels) ids.push_back(Value::Int64(level[v]));
              *row = {Value::Id(built->NodeId(v)), Value::Int64(levels->back()[v]),
                      Value::Nested(LogicalType::List(LogicalType::Int64()), std::move(ids))};
              ++v;
              return true;
            });
      }
      case Kind::kLabelPropagation:
        return ints(LabelPropagation(g, IntParam(params, "maxIterations", 20), par));
      case Kind::kClustering: {
        const UndirectedGraph u = MakeUndirected(g, par);
        return doubles(ClusteringCoefficients(u, Triangles(u, par)));
      }
      case Kind::kTriangles: return ints(Triangles(MakeUndirected(g, par), par));
      case Kind::kBfs:
      case Kind::kSssp: {
        const Direction dir = ParseDirection(StringParam(params, "direction", "out"));
        const VertexId source =
            FindSource(*built, store, fn.args[1], StringParam(params, "sourceTable", ""));
        if (spec.kind == Kind::kBfs) {
          auto distance =
              std::make_shared<std::vector<uint64_t>>(BreadthFirstDistances(g, source, dir));
          return PerVertex(
              built, [distance](VertexId v) { return Value::Int64((*distance)[v]); },
              [distance](VertexId v) {
                return (*distance)[v] != std::numeric_limits<uint64_t>::max();
              });
        }
        const std::vector<double> weights =
            EdgeWeights(*built, store, StringParam(params, "weight_property", "weight"));
        for (double w : weights) {
          if (w < 0 || std::isnan(w)) {
            ThrowRuntime("Runtime exception: sssp needs non-negative weights.");
          }
        }
        auto distance =
            std::make_shared<std::vector<double>>(ShortestDistances(g, source, dir, weights));
        return PerVertex(
            built, [distance](VertexId v) { return Value::Double((*distance)[v]); },
            [distance](VertexId v) { return std::isfinite((*distance)[v]); });
      }
      case Kind::kSpanningForest: {
        const std::string property = StringParam(params, "weight_property", "");
        std::vector<double> weights;
        if (!property.empty()) weights = EdgeWeights(*built, store, property);
        auto forest = std::make_shared<SpanningForestResult>(
            SpanningForest(g, property.empty() ? nullptr : &weights,
                           StringParam(params, "variant", "min") == "max", &built->edge_rel));
        auto sources = std::make_shared<std::vector<VertexId>>(g.num_edges());
        for (VertexId u = 0; u < g.n; ++u) {
          for (uint64_t e = g.out_offsets[u]; e < g.out_offsets[u + 1]; ++e) (*sources)[e] = u;
        }
        return std::make_unique<GeneratedRows>([built, forest, sources](uint64_t i,
                                                                        std::vector<Value>* row) {
          if (i >= forest->edges.size()) return false;
          const uint64_t e = forest->edges[i];
          const VertexId src = (*sources)[e], dst = built->graph.out_targets[e];
          const InternalId src_id = built->NodeId(src), dst_id = built->NodeId(dst);
          *row = {
              Value::Id(src_id), Value::Id(dst_id),
              exec::GraphStore::RelRef({built->edge_pair[e], built->edge_rel[e]}, src_id, dst_id),
              Value::Int64(forest->tree[src])};
          return true;
        });
      }
      default: break;
    }
    return Empty();
  }

 private:
  static std::unique_ptr<exec::TableFunctionRowSource> Empty() {
    return std::make_unique<GeneratedRows>([](uint64_t, std::vector<Value>*) { return false; });
  }
};

}  // namespace

void RegisterAlgorithms() {
  static const AlgoBinding binding;
  static const AlgoExtension extension;
  binder::RegisterTableFunctionBinding(&binding);
  exec::RegisterTableFunctionExtension(&extension);
}

}  // namespace graphdb::algo
