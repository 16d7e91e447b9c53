#include "cypher/planner/logical_plan.h"

#include "catalog/catalog.h"
#include "common/stack_guard.h"

namespace graphdb::planner {

namespace {

const char* KindName(LogicalOpKind kind) {
  switch (kind) {
    case LogicalOpKind::kSingleRow: return "SINGLE_ROW";
    case LogicalOpKind::kNodeScan: return "SCAN_NODE";
    case LogicalOpKind::kIndexSeek: return "INDEX_SEEK";
    case LogicalOpKind::kExpand: return "EXPAND";
    case LogicalOpKind::kFilter: return "FILTER";
    case LogicalOpKind::kProjection: return "PROJECTION";
    case LogicalOpKind::kUnwind: return "UNWIND";
    case LogicalOpKind::kAggregate: return "AGGREGATE";
    case LogicalOpKind::kDistinct: return "DISTINCT";
    case LogicalOpKind::kSort: return "ORDER_BY";
    case LogicalOpKind::kSkipLimit: return "SKIP_LIMIT";
    case LogicalOpKind::kUnion: return "UNION";
    case LogicalOpKind::kOptional: return "OPTIONAL";
    case LogicalOpKind::kUpdate: return "UPDATE";
    case LogicalOpKind::kMaterialize: return "MATERIALIZE";
    case LogicalOpKind::kTableFunction: return "TABLE_FUNCTION";
    case LogicalOpKind::kFileScan: return "FILE_SCAN";
    case LogicalOpKind::kCountExpand: return "EXPAND_COUNT";
    case LogicalOpKind::kSemiJoin: return "SEMI_JOIN";
    case LogicalOpKind::kIntersect: return "INTERSECT";
    case LogicalOpKind::kHashJoin: return "HASH_JOIN";
  }
  return "?";
}

}  // namespace

std::string LogicalOperator::ToString(
    int indent, const std::function<std::string(const LogicalOperator&)>& note,
    const catalog::Catalog* catalog) const {
  std::string out;
  AppendTo(out, indent, note, catalog);
  return out;
}

void LogicalOperator::AppendTo(std::string& out, int indent,
                               const std::function<std::string(const LogicalOperator&)>& note,
                               const catalog::Catalog* catalog) const {
  CheckStackDepth();
  // A table's name, or its id without a catalog (or when the catalog no longer has it).
  auto table_name = [catalog](uint64_t id, bool rel) {
    std::string name;
    if (catalog && rel) {
      const catalog::RelTableSchema* table = catalog->GetRelTableByPairId(id);
      if (table) name = table->name;
    } else if (catalog) {
      name = catalog->TableName(id);
    }
    return name.empty() ? std::to_string(id) : name;
  };
  auto table_list = [&](const std::vector<uint64_t>& ids, bool rel) {
    std::string list;
    for (size_t i = 0; i < ids.size(); ++i) {
      const std::string name = table_name(ids[i], rel);
      // The pairs of one rel table (FROM A TO B, FROM A TO C) name it once.
      if (rel && ("," + list + ",").find("," + name + ",") != std::string::npos) continue;
      if (!list.empty()) list += ',';
      list += name;
    }
    return list;
  };
  out.append(static_cast<size_t>(indent) * 2, ' ');
  out += kind == LogicalOpKind::kSemiJoin && anti ? "ANTI_JOIN"
         : kind == LogicalOpKind::kSort && expr2  ? "TOP_K"
                                                  : KindName(kind);
  switch (kind) {
    case LogicalOpKind::kNodeScan:
    case LogicalOpKind::kIndexSeek: {
      out += " slot=" + std::to_string(slot) + " tables=" + table_list(table_ids, false);
      if (column_filter) out += " filter=columns";
      if (!key_expr) break;
      const catalog::NodeTableSchema* table =
          catalog && table_ids.size() == 1 ? catalog->GetNodeTable(table_ids[0]) : nullptr;
      out += table ? " " + table->primary_key_property().name + "=" + key_expr->text
                   : " key=" + key_expr->text;
      break;
    }
    case LogicalOpKind::kExpand:
      out += " from=" + std::to_string(from_slot) + " to=" + std::to_string(slot);
      if (catalog && !rel_table_ids.empty()) out += " rels=" + table_list(rel_table_ids, true);
      if (variable_length)
        out += " hops=" + std::to_string(min_hops) + ".." + std::to_string(max_hops);
      for (const BoundExpression* filter : end_filters) out += " end_filter=" + filter->text;
      if (distinct_ends) out += " distinct_ends";
      if (weighted) out += " count weight=" + std::to_string(weight_slot);
      if (variable_length && rel_pattern) {
        // How the shortest-path kinds search (exec VarLengthExpandOp).
        switch (rel_pattern->semantic) {
          case binder::PathSemantic::kShortest:
          case binder::PathSemantic::kAllShortest:
            out += to_bound ? " search=bidirectional_bfs" : " search=bfs";
            break;
          case binder::PathSemantic::kWeightedShortest:
          case binder::PathSemantic::kAllWeightedShortest:
            out += to_bound ? " search=dijkstra_to_target" : " search=dijkstra";
            break;
          default: break;
        }
      }
      break;
    case LogicalOpKind::kFilter:
      for (size_t i = 0; i < predicates.size(); ++i) {
        const BoundExpression& p = *predicates[i];
        // An OR or XOR among several conjuncts in parentheses: a OR b AND c would misread.
        const bool wrap = predicates.size() > 1 &&
                          (p.kind == binder::ExprKind::kOr || p.kind == binder::ExprKind::kXor);
        out += i == 0 ? " " : " AND ";
        out += wrap ? "(" + p.text + ")" : p.text;
      }
      break;
    case LogicalOpKind::kSemiJoin:
      out += " from=" + std::to_string(from_slot) + " to=" + std::to_string(slot);
      if (catalog && !rel_table_ids.empty()) out += " rels=" + table_list(rel_table_ids, true);
      if (expr) out += " " + expr->text;
      break;
    case LogicalOpKind::kIntersect:
      // INTERSECT to=2 from=0 rels=knows (from=4 rels=knows dir=backward): the target's
      // candidates come from the first end, each kept when every other end reaches it too.
      out += " to=" + std::to_string(slot) + " from=" + std::to_string(from_slot);
      if (catalog && !rel_table_ids.empty()) out += " rels=" + table_list(rel_table_ids, true);
      for (const auto& e : closing) {
        out += " (from=" + std::to_string(e->from_slot);
        if (catalog && !e->rel_table_ids.empty())
          out += " rels=" + table_list(e->rel_table_ids, true);
        out += e->direction == binder::Direction::kForward    ? " dir=forward)"
               : e->direction == binder::Direction::kBackward ? " dir=backward)"
                                                              : " dir=both)";
      }
      for (size_t i = 0; i < predicates.size(); ++i) {
        out += (i == 0 ? " where " : " AND ") + predicates[i]->text;
      }
      break;
    case LogicalOpKind::kCountExpand:
      out += " weight=" + std::to_string(slot);
      for (const auto& e : counted) {
        out += " (from=" + std::to_string(e->from_slot) + " to=" + std::to_string(e->slot);
        for (size_t i = 0; i < e->predicates.size(); ++i) {
          out += (i == 0 ? " where " : " AND ") + e->predicates[i]->text;
        }
        out += ")";
      }
      if (expr) out += " " + expr->text;
      break;
    case LogicalOpKind::kHashJoin:
      // HASH_JOIN a.name = b.name where a.city <> b.city count weight=5 build=right: the
      // keys, the residual conjuncts, the count mode, and which part of the query the hash
      // table holds (the second child below).
      for (size_t i = 0; i < predicates.size(); ++i) {
        out += (i == 0 ? " " : i == probe_keys.size() ? " where " : " AND ") + predicates[i]->text;
      }
      if (weighted) out += " count weight=" + std::to_string(weight_slot);
      out += build_left ? " build=left" : " build=right";
      break;
    case LogicalOpKind::kAggregate:
      if (weighted) out += " weight=" + std::to_string(weight_slot);
      if (fused) out += " fused";
      if (nested) out += " nested";
      break;
    case LogicalOpKind::kDistinct:
      if (fused) out += " fused";
      break;
    default: break;
  }
  if (note) out += note(*this);
  out += "\n";
  for (const auto& child : children) child->AppendTo(out, indent + 1, note, catalog);
}

}  // namespace graphdb::planner
