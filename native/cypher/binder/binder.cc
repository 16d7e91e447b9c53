// The binder's entry points: a query (its UNION parts), a query part's clauses, each handed to
// the file that binds its kind (see binder.h), and the resolution of table names.
#include "cypher/binder/binder.h"

#include <algorithm>
#include <optional>
#include <set>
#include <utility>

#include "common/stack_guard.h"
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
  for (const auto& clause : query.clauses) {
    BoundClause bound = BindClause(*clause, columns);
    if (std::optional<BoundClause> before = HoistSubqueries(bound)) {
      part.clauses.push_back(std::move(*before));
    }
    part.clauses.push_back(std::move(bound));
  }
  return part;
}

namespace {

void CollectReadSlots(const BoundExpression& e, std::set<SlotId>* out);

// The slots a subquery's patterns and expressions read (an outer variable keeps its slot in
// them; the subquery's own variables have new ones).
void CollectPartSlots(const BoundQueryPart& part, std::set<SlotId>* out) {
  auto collect = [out](const BoundExpressionPtr& e) {
    if (e != nullptr) CollectReadSlots(*e, out);
  };
  for (const auto& clause : part.clauses) {
    for (const auto& pattern : clause.patterns) {
      for (const auto& node : pattern.nodes) {
        out->insert(node.slot);
        for (const auto& prop : node.properties) collect(prop.value);
      }
      for (const auto& rel : pattern.rels) {
        out->insert(rel.slot);
        for (const auto& prop : rel.properties) collect(prop.value);
        collect(rel.step_predicate);
        collect(rel.weight);
        collect(rel.node_step_predicate);
      }
    }
    collect(clause.where);
  }
}

// The slots `e` reads: its variables', and those its subqueries read.
void CollectReadSlots(const BoundExpression& e, std::set<SlotId>* out) {
  CheckStackDepth();
  if (e.kind == ExprKind::kVariable) out->insert(e.slot);
  if (e.subquery != nullptr) CollectPartSlots(*e.subquery, out);
  for (const auto& child : e.children) CollectReadSlots(*child, out);
}

}  // namespace

// A CREATE or SET runs row by row: a subquery (EXISTS, COUNT, a pattern predicate) in one of
// its values would see the clause's writes for the rows before. Such values run first, for
// every row, in a projection before the clause, which the planner separates from the clause
// by a barrier (planner.cc: a projection holding a subquery reads the graph), so that each
// sees the graph as the clause found it, as a MATCH before the clause would (Neo4j plans an
// Eager there). A value that reads a variable the clause itself creates keeps its place (row
// by row); so do MERGE's, which matches and creates row by row by definition.
std::optional<BoundClause> Binder::HoistSubqueries(BoundClause& clause) {
  if (clause.kind != BoundClause::Kind::kCreate && clause.kind != BoundClause::Kind::kSet) {
    return std::nullopt;
  }
  std::set<SlotId> made;  // the variables the clause creates
  for (const auto& pattern : clause.patterns) {
    for (const auto& node : pattern.nodes) {
      if (!node.bound_before) made.insert(node.slot);
    }
    for (const auto& rel : pattern.rels) made.insert(rel.slot);
    if (pattern.path_slot) made.insert(*pattern.path_slot);
  }
  auto projection = std::make_unique<BoundProjection>();
  auto hoist = [&](BoundExpressionPtr& value) {
    if (value == nullptr || !value->HasSubquery()) return;
    std::set<SlotId> reads;
    CollectReadSlots(*value, &reads);
    for (SlotId s : reads) {
      if (made.count(s)) return;
    }
    BoundProjectionItem item;
    item.slot = NewSlot();
    item.name = value->text;
    auto computed = MakeExpr(ExprKind::kVariable, value->type, value->text);
    computed->slot = item.slot;
    item.expr = std::exchange(value, std::move(computed));
    projection->items.push_back(std::move(item));
  };
  for (auto& pattern : clause.patterns) {
    for (auto& node : pattern.nodes) {
      for (auto& prop : node.properties) hoist(prop.value);
    }
    for (auto& rel : pattern.rels) {
      for (auto& prop : rel.properties) hoist(prop.value);
    }
  }
  for (auto& item : clause.set_items) hoist(item.value);
  if (projection->items.empty()) return std::nullopt;
  BoundClause before;
  before.kind = BoundClause::Kind::kProjection;
  before.projection = std::move(projection);
  return before;
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
