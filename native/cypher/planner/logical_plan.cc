#include "cypher/planner/logical_plan.h"

namespace graphdb::planner {

namespace {

const char* KindName(LogicalOpKind kind) {
  switch (kind) {
    case LogicalOpKind::kSingleRow:
      return "SINGLE_ROW";
    case LogicalOpKind::kNodeScan:
      return "SCAN_NODE";
    case LogicalOpKind::kIndexSeek:
      return "INDEX_SEEK";
    case LogicalOpKind::kExpand:
      return "EXPAND";
    case LogicalOpKind::kFilter:
      return "FILTER";
    case LogicalOpKind::kProjection:
      return "PROJECTION";
    case LogicalOpKind::kUnwind:
      return "UNWIND";
    case LogicalOpKind::kAggregate:
      return "AGGREGATE";
    case LogicalOpKind::kDistinct:
      return "DISTINCT";
    case LogicalOpKind::kSort:
      return "ORDER_BY";
    case LogicalOpKind::kSkipLimit:
      return "SKIP_LIMIT";
    case LogicalOpKind::kUnion:
      return "UNION";
    case LogicalOpKind::kOptional:
      return "OPTIONAL";
    case LogicalOpKind::kUpdate:
      return "UPDATE";
    case LogicalOpKind::kMaterialize:
      return "MATERIALIZE";
    case LogicalOpKind::kTableFunction:
      return "TABLE_FUNCTION";
    case LogicalOpKind::kFileScan:
      return "FILE_SCAN";
    case LogicalOpKind::kCountExpand:
      return "EXPAND_COUNT";
  }
  return "?";
}

}  // namespace

std::string LogicalOperator::ToString(
    int indent, const std::function<std::string(const LogicalOperator&)>& note) const {
  std::string out(static_cast<size_t>(indent) * 2, ' ');
  out += KindName(kind);
  switch (kind) {
    case LogicalOpKind::kNodeScan:
    case LogicalOpKind::kIndexSeek:
      out += " slot=" + std::to_string(slot) + " tables=";
      for (size_t i = 0; i < table_ids.size(); ++i) {
        if (i) out += ',';
        out += std::to_string(table_ids[i]);
      }
      if (key_expr) out += " key=" + key_expr->text;
      break;
    case LogicalOpKind::kExpand:
      out += " from=" + std::to_string(from_slot) + " to=" + std::to_string(slot);
      if (variable_length)
        out += " hops=" + std::to_string(min_hops) + ".." + std::to_string(max_hops);
      break;
    case LogicalOpKind::kFilter:
      if (expr) out += " " + expr->text;
      break;
    case LogicalOpKind::kCountExpand:
      out += " weight=" + std::to_string(slot);
      for (const auto& e : counted) {
        out += " (from=" + std::to_string(e->from_slot) + " to=" + std::to_string(e->slot) + ")";
      }
      break;
    case LogicalOpKind::kAggregate:
      if (weighted) out += " weight=" + std::to_string(weight_slot);
      break;
    default:
      break;
  }
  if (note) out += note(*this);
  out += "\n";
  for (const auto& child : children) out += child->ToString(indent + 1, note);
  return out;
}

}  // namespace graphdb::planner
