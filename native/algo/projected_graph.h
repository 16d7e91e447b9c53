// Projected graphs (CALL project_graph('G', node tables, rel tables)): a named choice of node
// and rel tables, each with an optional filter (a Cypher predicate over `n` or `r`), that a
// connection keeps until it drops it or closes. Algorithms read a projected graph by building
// a Graph (graph.h) over the statement's snapshot: BuildGraph.
//
// Thread-safety: ProjectedGraphs is a connection's, used by one statement at a time.
// BuildGraph runs inside one statement (its parallel passes on the database's pool).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "algo/graph.h"
#include "catalog/catalog.h"
#include "exec/exec_context.h"
#include "exec/graph_store.h"
#include "exec/table_functions.h"

namespace graphdb::algo {

struct ProjectedTable {
  std::string name;       // as written
  std::string predicate;  // empty: every row
};

struct ProjectedGraphDef {
  std::string name;
  std::vector<ProjectedTable> nodes;
  std::vector<ProjectedTable> rels;
  // project_graph_cypher's query (then nodes and rels are empty): listed and described, but
  // the algorithms do not run on such a graph yet.
  std::string cypher;
};

// A connection's projected graphs, in the order they were made.
class ProjectedGraphs final : public exec::TableFunctionState {
 public:
  const ProjectedGraphDef* Find(const std::string& name) const;
  // Runtime errors of Kùzu's for a name taken / unknown.
  void Add(ProjectedGraphDef def);
  void Drop(const std::string& name);
  const std::vector<ProjectedGraphDef>& graphs() const { return graphs_; }

 private:
  std::vector<ProjectedGraphDef> graphs_;
};

// project_graph's arguments (a list of table names, or a map of name to filter) into a
// definition; Kùzu's binder errors for arguments of other types.
ProjectedGraphDef ParseProjection(const std::string& name, const Value& nodes, const Value& rels);

// The tables of a definition against the catalog: node tables, rel tables whose every FROM/TO
// table is projected, filters that bind to BOOL. Throws Kùzu's binder errors.
void CheckProjection(const ProjectedGraphDef& def, const catalog::Catalog& catalog);

// A projected node table's place among the dense vertex ids.
struct NodeRange {
  catalog::TableId table = catalog::kInvalidTableId;
  uint64_t base = 0;
  uint64_t count = 0;
};

struct BuiltGraph {
  Graph graph;
  std::vector<NodeRange> ranges;
  std::vector<catalog::TableId> rel_tables;  // the projected rel tables (ids)
  // Per edge (index into graph.out_targets), with keep_edges: the rel's pair and offset.
  std::vector<catalog::TableId> edge_pair;
  std::vector<uint64_t> edge_rel;

  InternalId NodeId(VertexId v) const;
  std::optional<VertexId> Vertex(InternalId id) const;
};

// Reads the projected graph over the statement's snapshot: the visible rows of its node tables
// that pass their filters, and the visible edges between them that pass theirs. Charges the
// graph's memory to the statement (released with `*charge`). `keep_edges`: each edge's rel
// (edge_pair, edge_rel, graph.in_edges); `transpose`: the incoming edges.
BuiltGraph BuildGraph(const ProjectedGraphDef& def, exec::GraphStore& store, exec::ExecContext& ctx,
                      bool keep_edges, bool transpose, exec::MemoryCharge* charge);

}  // namespace graphdb::algo
