// The binder's entry points: a query (its UNION parts), a query part's clauses, each handed to
// the file that binds its kind (see binder.h), and the resolution of table names.
#include "cypher/binder/binder.h"

#include <algorithm>

#include "cypher/binder/binder_internal.h"
#include "function/cast.h"

namespace graphdb::binder {

std::string ExpressionUniqueName(const ParsedExpression& expr) {
  auto join = [](const std::vector<parser::ParsedExpressionPtr>& children) {
    std::string out;
    for (size_t i = 0; i < children.size(); ++i) {
      if (i) out += ',';
      out += ExpressionUniqueName(*children[i]);
    }
    return out;
  };
  switch (expr.kind) {
    case ExpressionKind::kLiteral:
      switch (expr.literal_kind) {
        case LiteralKind::kInteger:
        case LiteralKind::kString: return expr.value;
        case LiteralKind::kDouble:
          return Value::Double(std::strtod(expr.value.c_str(), nullptr)).ToString();
        case LiteralKind::kBoolean: return expr.bool_value ? "True" : "False";
        case LiteralKind::kNull: return "";
      }
      break;
    case ExpressionKind::kVariable: return expr.name;
    case ExpressionKind::kListLiteral: return "LIST_CREATION(" + join(expr.children) + ")";
    case ExpressionKind::kMapLiteral: return "STRUCT_PACK(" + join(expr.children) + ")";
    case ExpressionKind::kFunctionCall: return Upper(expr.name) + "(" + join(expr.children) + ")";
    default: break;
  }
  return expr.text;
}

std::vector<uint64_t> Binder::ResolveNodeTables(const std::vector<std::string>& labels) {
  std::vector<uint64_t> ids;
  if (labels.empty()) {
    for (const auto* t : catalog_.NodeTables()) ids.push_back(t->id);
    return ids;
  }
  for (const auto& label : labels) {
    const auto* table = catalog_.GetNodeTable(label);
    if (!table) {
      if (catalog_.GetRelTable(label))
        BindError("Cannot bind " + label + " as a node pattern label.");
      BindError("Table " + label + " does not exist.");
    }
    if (std::find(ids.begin(), ids.end(), table->id) == ids.end()) ids.push_back(table->id);
  }
  return ids;
}

std::vector<uint64_t> Binder::ResolveRelTables(const std::vector<std::string>& types) {
  std::vector<uint64_t> ids;
  if (types.empty()) {
    for (const auto* t : catalog_.RelTables()) ids.push_back(t->id);
    return ids;
  }
  for (const auto& type : types) {
    const auto* table = catalog_.GetRelTable(type);
    if (!table) {
      if (catalog_.GetNodeTable(type))
        BindError("Cannot bind " + type + " as a relationship pattern label.");
      BindError("Table " + type + " does not exist.");
    }
    if (std::find(ids.begin(), ids.end(), table->id) == ids.end()) ids.push_back(table->id);
  }
  return ids;
}

std::unique_ptr<BoundQuery> Binder::BindQuery(const parser::ParsedRegularQuery& query) {
  auto bound = std::make_unique<BoundQuery>();
  for (size_t i = 0; i < query.queries.size(); ++i) {
    scope_ = std::make_shared<Scope>();
    std::vector<BoundColumn> columns;
    bound->parts.push_back(BindSingleQuery(query.queries[i], &columns));
    if (i > 0) CheckUnionColumns(query, i, bound->columns[0], columns);
    bound->columns.push_back(std::move(columns));
  }
  AddWidenedNodeTables(bound.get());
  bound->union_all = query.union_all;
  bound->num_slots = num_slots_;
  bound->read_only = read_only_;
  bound->creates_only = creates_only_;
  bound->reads_files = reads_files_;
  bound->binds_parameter_values = binds_parameter_values_;
  return bound;
}

void Binder::CheckUnionColumns(const parser::ParsedRegularQuery& query, size_t index,
                               const std::vector<BoundColumn>& first,
                               const std::vector<BoundColumn>& columns) {
  if (columns.size() != first.size()) {
    BindError("The number of columns to union/union all must be the same.");
  }
  if (query.union_all[index - 1] != query.union_all[0]) {
    BindError("Union and union all can not be used together.");
  }
  for (size_t c = 0; c < columns.size(); ++c) {
    const LogicalType& want = first[c].type;
    const LogicalType& got = columns[c].type;
    bool numbers = want.IsNumeric() && got.IsNumeric();
    if (want != got && !numbers && want.id() != LogicalTypeId::kAny &&
        got.id() != LogicalTypeId::kAny && !function::CanImplicitCast(got, want)) {
      BindError(columns[c].name + " has data type " + got.ToString() + " but " + want.ToString() +
                " was expected.");
    }
  }
  // As in Kùzu, the columns are named after the first query; the others may differ.
}

void Binder::AddWidenedNodeTables(BoundQuery* query) {
  for (auto& part : query->parts) {
    for (auto& clause : part.clauses) {
      if (clause.kind != BoundClause::Kind::kMatch &&
          clause.kind != BoundClause::Kind::kOptionalMatch)
        continue;
      for (auto& pattern : clause.patterns) {
        for (auto& node : pattern.nodes) {
          auto it = extra_node_tables_.find(node.slot);
          if (it == extra_node_tables_.end() || node.bound_before) continue;
          for (uint64_t t : it->second) {
            if (std::find(node.table_ids.begin(), node.table_ids.end(), t) ==
                node.table_ids.end()) {
              node.table_ids.push_back(t);
            }
          }
        }
      }
    }
  }
}

BoundQueryPart Binder::BindSingleQuery(const parser::ParsedSingleQuery& query,
                                       std::vector<BoundColumn>* columns) {
  BoundQueryPart part;
  for (const auto& clause : query.clauses) part.clauses.push_back(BindClause(*clause, columns));
  return part;
}

BoundClause Binder::BindClause(const parser::ParsedClause& clause,
                               std::vector<BoundColumn>* columns) {
  BoundClause bound;
  switch (clause.kind) {
    case ClauseKind::kMatch: BindMatchClause(clause.As<parser::ParsedMatchClause>(), &bound); break;
    case ClauseKind::kUnwind: BindUnwind(clause.As<parser::ParsedUnwindClause>(), &bound); break;
    case ClauseKind::kWith: {
      const auto& with = clause.As<parser::ParsedWithClause>();
      bound.kind = BoundClause::Kind::kProjection;
      bound.projection = BindProjection(with.projection, true, false, with.where.get());
      break;
    }
    case ClauseKind::kReturn: {
      const auto& ret = clause.As<parser::ParsedReturnClause>();
      bound.kind = BoundClause::Kind::kProjection;
      bound.projection = BindProjection(ret.projection, false, true, nullptr);
      for (const auto& item : bound.projection->items) {
        columns->push_back({item.name, item.expr->type, item.slot});
      }
      break;
    }
    case ClauseKind::kCreate: BindCreate(clause.As<parser::ParsedCreateClause>(), &bound); break;
    case ClauseKind::kMerge: BindMerge(clause.As<parser::ParsedMergeClause>(), &bound); break;
    case ClauseKind::kSet: BindSet(clause.As<parser::ParsedSetClause>(), &bound); break;
    case ClauseKind::kRemove: BindRemove(clause.As<parser::ParsedRemoveClause>(), &bound); break;
    case ClauseKind::kDelete: BindDelete(clause.As<parser::ParsedDeleteClause>(), &bound); break;
    case ClauseKind::kCall: {
      const auto& call = clause.As<parser::ParsedCallClause>();
      bound.kind = BoundClause::Kind::kCall;
      BindCall(*call.function, call.yield_items, call.where.get(), &bound);
      break;
    }
    case ClauseKind::kLoadFrom:
      bound.kind = BoundClause::Kind::kLoadFrom;
      BindLoadFrom(clause.As<parser::ParsedLoadFromClause>(), &bound);
      break;
  }
  return bound;
}

}  // namespace graphdb::binder
