#include "algo/projected_graph.h"

#include <algorithm>
#include <memory>

#include "common/interrupt.h"
#include "common/status.h"
#include "cypher/binder/binder.h"
#include "cypher/parser/parser.h"
#include "exec/expression_evaluator.h"

namespace graphdb::algo {

namespace {

std::string Capitalized(std::string text) {
  if (!text.empty()) text[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(text[0])));
  return text;
}

// Kùzu names a constant by its value: True, [filter], {knows: ...}.
std::string ValueText(const Value& v) {
  if (v.type_id() == LogicalTypeId::kBool) return Capitalized(v.ToString());
  return v.ToString();
}

std::vector<ProjectedTable> ParseTables(const Value& arg) {
  std::vector<ProjectedTable> tables;
  if (arg.is_null() ||
      (arg.type_id() != LogicalTypeId::kList && arg.type_id() != LogicalTypeId::kStruct)) {
    ThrowBinding("Binder exception: Argument " + ValueText(arg) + " has data type " +
                 arg.type().ToString() + ". LIST or STRUCT was expected.");
  }
  auto expect_string = [](const Value& v) {
    if (v.is_null() || v.type_id() != LogicalTypeId::kString) {
      ThrowBinding("Binder exception: " + ValueText(v) + " has data type " + v.type().ToString() +
                   " but STRING was expected.");
    }
    return std::string(v.GetString());
  };
  if (arg.type_id() == LogicalTypeId::kList) {
    for (const Value& child : arg.children()) tables.push_back({expect_string(child), ""});
    return tables;
  }
  const auto& fields = arg.type().fields();
  for (size_t i = 0; i < fields.size(); ++i) {
    tables.push_back({fields[i].name, expect_string(arg.children()[i])});
  }
  return tables;
}

// A filter bound as the second column of `MATCH (n:T) RETURN n, <filter>` (or of
// `MATCH ()-[r:T]->() RETURN r, <filter>`), so it sees the table's properties under `n` / `r`.
struct CompiledFilter {
  std::unique_ptr<parser::ParsedStatement> parsed;
  std::unique_ptr<binder::BoundQuery> bound;
  const binder::BoundExpression* expr = nullptr;
  binder::SlotId slot = 0;
};

CompiledFilter CompileFilter(const catalog::Catalog& catalog, const std::string& table,
                             const std::string& predicate, bool rel) {
  CompiledFilter f;
  std::string text =
      rel ? "MATCH ()-[r:`" + table + "`]->() RETURN r, " : "MATCH (n:`" + table + "`) RETURN n, ";
  text += predicate;
  auto statements = parser::ParseStatements(text);
  if (statements.size() != 1 || statements[0]->kind != parser::StatementKind::kQuery) {
    ThrowBinding("Binder exception: Invalid filter " + predicate + ".");
  }
  f.parsed = std::move(statements[0]);
  std::unordered_map<std::string, Value> no_params;
  binder::Binder binder(catalog, no_params);
  f.bound = binder.BindQuery(f.parsed->As<parser::ParsedQueryStatement>().query);
  const auto& clauses = f.bound->parts.at(0).clauses;
  const binder::BoundClause* projection = nullptr;
  for (const auto& clause : clauses) {
    if (clause.projection) projection = &clause;
  }
  if (!projection || projection->projection->items.size() != 2) {
    ThrowBinding("Binder exception: Invalid filter " + predicate + ".");
  }
  f.expr = projection->projection->items[1].expr.get();
  f.slot = projection->projection->items[0].expr->slot;
  const LogicalTypeId type = f.expr->type.id();
  if (type != LogicalTypeId::kBool && type != LogicalTypeId::kAny) {
    ThrowBinding("Binder exception: " + predicate + " has data type " + f.expr->type.ToString() +
                 " but BOOL was expected.");
  }
  return f;
}

// Evaluates a compiled filter for one node or rel.
class FilterRunner {
 public:
  FilterRunner(const CompiledFilter& filter, exec::GraphStore& store) : filter_(filter) {
    ctx_.params = &no_params_;
    ctx_.graph = &store;
    ctx_.frame.resize(filter.bound->num_slots);
  }
  bool Passes(Value subject) {
    ctx_.frame[filter_.slot] = std::move(subject);
    Value v = exec::Evaluate(*filter_.expr, ctx_);
    return !v.is_null() && v.GetBool();
  }

 private:
  const CompiledFilter& filter_;
  std::unordered_map<std::string, Value> no_params_;
  exec::ExecContext ctx_;
};

const catalog::NodeTableSchema* ResolveNodeTable(const catalog::Catalog& catalog,
                                                 const std::string& name) {
  if (!catalog.Contains(name)) {
    ThrowBinding("Catalog exception: " + name + " does not exist in catalog.");
  }
  const catalog::NodeTableSchema* node = catalog.GetNodeTable(name);
  if (!node) ThrowBinding("Binder exception: " + name + " is not a NODE table.");
  return node;
}

const catalog::RelTableSchema* ResolveRelTable(const catalog::Catalog& catalog,
                                               const std::string& name) {
  if (!catalog.Contains(name)) ThrowBinding("Binder exception: " + name + " is not a REL table.");
  const catalog::RelTableSchema* rel = catalog.GetRelTable(name);
  if (!rel) {
    ThrowBinding("Binder exception: " + name + " has catalog entry type. REL entry was expected.");
  }
  return rel;
}

constexpr uint64_t kMorsel = 4096;

}  // namespace

const ProjectedGraphDef* ProjectedGraphs::Find(const std::string& name) const {
  for (const auto& g : graphs_) {
    if (g.name == name) return &g;
  }
  return nullptr;
}

void ProjectedGraphs::Add(ProjectedGraphDef def) {
  if (Find(def.name))
    ThrowRuntime("Runtime exception: Projected graph " + def.name + " already exists.");
  graphs_.push_back(std::move(def));
}

void ProjectedGraphs::Drop(const std::string& name) {
  auto it = std::find_if(graphs_.begin(), graphs_.end(),
                         [&](const ProjectedGraphDef& g) { return g.name == name; });
  if (it == graphs_.end()) {
    ThrowRuntime("Runtime exception: Projected graph " + name + " does not exists.");
  }
  graphs_.erase(it);
}

ProjectedGraphDef ParseProjection(const std::string& name, const Value& nodes, const Value& rels) {
  ProjectedGraphDef def;
  def.name = name;
  def.nodes = ParseTables(nodes);
  def.rels = ParseTables(rels);
  return def;
}

void CheckProjection(const ProjectedGraphDef& def, const catalog::Catalog& catalog) {
  std::vector<catalog::TableId> node_ids;
  for (const auto& t : def.nodes) {
    node_ids.push_back(ResolveNodeTable(catalog, t.name)->id);
    if (!t.predicate.empty()) CompileFilter(catalog, t.name, t.predicate, false);
  }
  for (const auto& t : def.rels) {
    const catalog::RelTableSchema* rel = ResolveRelTable(catalog, t.name);
    for (const auto& pair : rel->pairs) {
      for (catalog::TableId end : {pair.src_table, pair.dst_table}) {
        if (std::find(node_ids.begin(), node_ids.end(), end) == node_ids.end()) {
          ThrowBinding("Binder exception: " + catalog.TableName(end) + " is connected to " +
                       t.name + " but not projected.");
        }
      }
    }
    if (!t.predicate.empty()) CompileFilter(catalog, t.name, t.predicate, true);
  }
}

InternalId BuiltGraph::NodeId(VertexId v) const {
  for (const NodeRange& r : ranges) {
    if (v < r.base + r.count) return {r.table, v - r.base};
  }
  return {};
}

std::optional<VertexId> BuiltGraph::Vertex(InternalId id) const {
  for (const NodeRange& r : ranges) {
    if (r.table == id.table && id.offset < r.count) {
      return static_cast<VertexId>(r.base + id.offset);
    }
  }
  return std::nullopt;
}

BuiltGraph BuildGraph(const ProjectedGraphDef& def, exec::GraphStore& store, exec::ExecContext& ctx,
                      bool keep_edges, bool transpose, exec::MemoryCharge* charge) {
  const catalog::Catalog& catalog = store.catalog();
  CheckProjection(def, catalog);
  const Parallel par{ctx.tasks, ctx.parallelism};
  const exec::Snapshot snapshot = store.snapshot();
  BuiltGraph built;
  Graph& g = built.graph;
  // Vertices: the tables one after another.
  uint64_t total = 0;
  std::vector<storage::NodeTable*> node_tables;
  for (const auto& t : def.nodes) {
    storage::NodeTable& table = store.node_table(catalog.GetNodeTable(t.name)->id);
    built.ranges.push_back({catalog.GetNodeTable(t.name)->id, total, table.NumRows()});
    node_tables.push_back(&table);
    total += table.NumRows();
  }
  if (total >= kNoVertex) ThrowNotSupported("projected graphs of 2^32 nodes or more");
  g.n = static_cast<VertexId>(total);
  g.active.assign(g.n, 0);
  for (size_t i = 0; i < def.nodes.size(); ++i) {
    const NodeRange& range = built.ranges[i];
    const storage::NodeTable& table = *node_tables[i];
    par.For(range.count, kMorsel, [&](unsigned, uint64_t begin, uint64_t end) {
      for (uint64_t o = begin; o < end; ++o) {
        g.active[range.base + o] = snapshot.RowVisible(table.create_ts(o), table.delete_ts(o));
      }
    });
    if (def.nodes[i].predicate.empty()) continue;
    CompiledFilter filter =
        CompileFilter(catalog, def.nodes[i].name, def.nodes[i].predicate, false);
    FilterRunner runner(filter, store);
    for (uint64_t o = 0; o < range.count; ++o) {
      if ((o & 0xfff) == 0) CheckInterrupt();
      uint8_t& active = g.active[range.base + o];
      if (active) active = runner.Passes(Value::Id({range.table, o}));
    }
  }
  for (uint8_t a : g.active) g.num_active += a;
  // Per range: every row active, so an edge's neighbour needs no look.
  std::vector<uint8_t> all_active;
  for (const NodeRange& r : built.ranges) {
    all_active.push_back(std::count(g.active.begin() + static_cast<int64_t>(r.base),
                                    g.active.begin() + static_cast<int64_t>(r.base + r.count),
                                    1) == static_cast<int64_t>(r.count));
  }
  // Edges: every pair of every projected rel table, counted per source, then written.
  struct PairSource {
    catalog::TableId pair;
    const storage::RelTable* table;
    const NodeRange* src;
    const NodeRange* dst;
    std::vector<uint8_t> passes;  // with a filter: per rel offset
    // Per direction (storage::Direction): the rows reached are all active.
    bool reached_active[2] = {false, false};
  };
  std::vector<PairSource> sources;
  auto range_of = [&](catalog::TableId table) -> const NodeRange* {
    for (const NodeRange& r : built.ranges) {
      if (r.table == table) return &r;
    }
    return nullptr;
  };
  for (const auto& t : def.rels) {
    const catalog::RelTableSchema* rel = catalog.GetRelTable(t.name);
    built.rel_tables.push_back(rel->id);
    std::optional<CompiledFilter> filter;
    if (!t.predicate.empty()) filter = CompileFilter(catalog, t.name, t.predicate, true);
    for (const auto& pair : store.pairs(rel->id)) {
      PairSource source{pair.id,
                        &store.rel_table(pair.id),
                        range_of(pair.src_table),
                        range_of(pair.dst_table),
                        {}};
      if (filter) {
        FilterRunner runner(*filter, store);
        const storage::RelTable& rels = *source.table;
        source.passes.assign(rels.NumRels(), 0);
        for (uint64_t v = 0; v < source.src->count; ++v) {
          if ((v & 0xfff) == 0) CheckInterrupt();
          if (!g.active[source.src->base + v]) continue;
          rels.ForEachEdge(v, storage::Direction::kForward, [&](uint64_t nbr, uint64_t r) {
            if (!snapshot.RowVisible(rels.create_ts(r), rels.delete_ts(r))) return;
            source.passes[r] = runner.Passes(
                exec::GraphStore::RelRef({pair.id, r}, {pair.src_table, v}, {pair.dst_table, nbr}));
          });
        }
      }
      source.reached_active[0] = all_active[static_cast<size_t>(source.dst - built.ranges.data())];
      source.reached_active[1] = all_active[static_cast<size_t>(source.src - built.ranges.data())];
      sources.push_back(std::move(source));
    }
  }
  // One pass over every pair's adjacency in `dir` (kForward: by source, kBackward: by
  // destination): f(vertex, neighbour, rel) for each visible edge between active vertices that
  // passes its filter, per vertex in the adjacency's order. Parallel over vertices.
  auto scan = [&](const PairSource& s, storage::Direction dir, uint64_t v, auto&& f) {
    const storage::RelTable& rels = *s.table;
    const bool forward = dir == storage::Direction::kForward;
    const NodeRange& from = forward ? *s.src : *s.dst;
    const NodeRange& to = forward ? *s.dst : *s.src;
    // ForEachEdge gives the CSR's entries first: when the snapshot sees all of them, their
    // stamps (random reads for the backward direction) need no look.
    uint64_t unchecked =
        rels.CsrVisibleTo(dir, snapshot.read_ts) ? rels.CsrEdges(v, dir).size() : 0;
    rels.ForEachEdge(v, dir, [&](uint64_t nbr, uint64_t r) {
      if (unchecked > 0) {
        --unchecked;
      } else if (!snapshot.RowVisible(rels.create_ts(r), rels.delete_ts(r))) {
        return;
      }
      if (!s.reached_active[static_cast<int>(dir)] && !g.active[to.base + nbr]) return;
      if (!s.passes.empty() && !s.passes[r]) return;
      f(static_cast<VertexId>(from.base + v), static_cast<VertexId>(to.base + nbr), r);
    });
  };
  // A CSR of `dir` into offsets/targets; on_edge(position, pair, rel) for each entry written
  // when `rels_needed`.
  auto build_csr = [&](storage::Direction dir, std::vector<uint64_t>& offsets,
                       std::vector<VertexId>& targets, bool rels_needed, auto&& on_edge) {
    const bool forward = dir == storage::Direction::kForward;
    offsets.assign(static_cast<size_t>(g.n) + 1, 0);
    for (const PairSource& s : sources) {
      const NodeRange& from = forward ? *s.src : *s.dst;
      par.For(from.count, kMorsel, [&](unsigned, uint64_t begin, uint64_t end) {
        // Without a filter and with every neighbour row active, an edge counts when visible:
        // the storage counts a CSR range its snapshot sees whole without reading it.
        const bool plain = s.passes.empty() && s.reached_active[static_cast<int>(dir)];
        const storage::RelTable& rels = *s.table;
        auto visible = [&](uint64_t r) {
          return snapshot.RowVisible(rels.create_ts(r), rels.delete_ts(r));
        };
        uint64_t examined = 0;
        for (uint64_t v = begin; v < end; ++v) {
          if (!g.active[from.base + v]) continue;
          uint64_t count = 0;
          if (plain) {
            count = rels.CountEdges(v, dir, snapshot.read_ts, visible, &examined);
          } else {
            scan(s, dir, v, [&](VertexId, VertexId, uint64_t) { ++count; });
          }
          offsets[from.base + v + 1] += count;
        }
      });
    }
    for (VertexId v = 0; v < g.n; ++v) offsets[v + 1] += offsets[v];
    targets.resize(offsets[g.n]);
    std::vector<uint64_t> cursor(offsets.begin(), offsets.end() - 1);
    for (const PairSource& s : sources) {
      const NodeRange& from = forward ? *s.src : *s.dst;
      const NodeRange& to = forward ? *s.dst : *s.src;
      const storage::RelTable& rels = *s.table;
      // Every entry of a CSR range the snapshot sees whole goes in (without a filter, every
      // neighbour row active, no rel wanted): its neighbours are copied, range-checked.
      const bool copy = !rels_needed && s.passes.empty() &&
                        s.reached_active[static_cast<int>(dir)] &&
                        rels.CsrVisibleTo(dir, snapshot.read_ts);
      par.For(from.count, kMorsel, [&](unsigned, uint64_t begin, uint64_t end) {
        for (uint64_t v = begin; v < end; ++v) {
          if (!g.active[from.base + v]) continue;
          if (copy) {
            uint64_t at = cursor[from.base + v];
            const storage::AdjRange csr = rels.CsrEdges(v, dir);
            for (uint64_t i = 0; i < csr.size(); ++i) {
              const uint64_t nbr = csr[i].neighbor;
              if (nbr >= to.count) [[unlikely]] {
                throw GraphDBException(rels.CorruptAdjacencyStatus());
              }
              targets[at++] = static_cast<VertexId>(to.base + nbr);
            }
            for (const storage::AdjEntry& e : rels.DeltaEdges(v, dir)) {
              if (!snapshot.RowVisible(rels.create_ts(e.rel), rels.delete_ts(e.rel))) continue;
              targets[at++] = static_cast<VertexId>(to.base + e.neighbor);
            }
            cursor[from.base + v] = at;
            continue;
          }
          scan(s, dir, v, [&](VertexId u, VertexId target, uint64_t r) {
            const uint64_t at = cursor[u]++;
            targets[at] = target;
            on_edge(at, s.pair, r);
          });
        }
      });
    }
  };
  if (keep_edges) {
    // Sized before the pass writes them: the edge count is known after the first pass, so
    // the out CSR is built with a counting pass of its own.
    uint64_t edges = 0;
    for (const PairSource& s : sources) edges += s.table->NumRels();
    built.edge_pair.resize(edges);
    built.edge_rel.resize(edges);
  }
  build_csr(storage::Direction::kForward, g.out_offsets, g.out_targets, keep_edges,
            [&](uint64_t at, catalog::TableId pair, uint64_t r) {
              if (keep_edges) {
                built.edge_pair[at] = pair;
                built.edge_rel[at] = r;
              }
            });
  if (keep_edges) {
    built.edge_pair.resize(g.num_edges());
    built.edge_rel.resize(g.num_edges());
  }
  const uint64_t num_edges = g.num_edges();
  if (ctx.CountsMemory()) {
    charge->Add(ctx, g.n * (transpose ? 17 : 9) + num_edges * (transpose ? 8 : 4) +
                         num_edges * (keep_edges ? 24 : 0));
  }
  // A damaged entry the passes skipped (a count may include it): no partial answer.
  auto check_entries = [&] {
    for (const PairSource& s : sources) {
      if (s.table->bad_entry()) throw GraphDBException(s.table->CorruptAdjacencyStatus());
    }
  };
  check_entries();
  if (transpose) {
    // The incoming edges from the storage's backward adjacency when every rel table keeps one
    // (a parallel pass like the forward one); else (and with edge indices) by transposing.
    bool backward = !keep_edges;
    for (catalog::TableId rel : built.rel_tables) {
      backward = backward &&
                 catalog.GetRelTable(rel)->storage_direction != catalog::RelStorageDirection::kFwd;
    }
    if (backward) {
      build_csr(storage::Direction::kBackward, g.in_offsets, g.in_sources, false,
                [](uint64_t, catalog::TableId, uint64_t) {});
      check_entries();
    } else {
      g.BuildTranspose(keep_edges, par);
    }
  }
  return built;
}

}  // namespace graphdb::algo
