#include "cypher/binder/binder.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <set>

#include "common/stack_guard.h"
#include "common/status.h"
#include "cypher/binder/table_functions.h"
#include "cypher/parser/parser.h"
#include "function/cast.h"

namespace graphdb::binder {

using parser::BinaryOp;
using parser::ClauseKind;
using parser::ExpressionKind;
using parser::LiteralKind;
using parser::ParsedExpression;
using parser::UnaryOp;

struct Binder::VariableInfo {
  VariableInfo(std::string n, SlotId s, LogicalType t, std::vector<uint64_t> tables = {})
      : name(std::move(n)), slot(s), type(std::move(t)), table_ids(std::move(tables)) {}

  std::string name;
  SlotId slot = 0;
  LogicalType type;
  // Node and rel variables: their candidate tables. Lists of nodes or rels (collect(n)): the
  // tables of their elements.
  std::vector<uint64_t> table_ids;
  // Rel variables of a pattern: the slots of the pattern's source and destination nodes
  // (start_node / end_node read them). Empty for rels that come from elsewhere.
  std::optional<SlotId> src_slot;
  std::optional<SlotId> dst_slot;
  bool undirected = false;      // a rel of an undirected pattern: its direction is unknown
  std::string weight_property;  // a weighted shortest path: its weight (cost() sums it)
  // A node or rel of a pattern (or such a variable passed on by WITH), as opposed to one
  // unwound from a list: n.* gives only the properties of pattern variables.
  bool from_pattern = false;
};

class Binder::Scope {
 public:
  const VariableInfo* Find(const std::string& name) const {
    for (const auto& v : vars_) {
      if (v.name == name) return &v;
    }
    return nullptr;
  }
  void Add(VariableInfo info) {
    for (auto& v : vars_) {
      if (v.name == info.name) {
        v = std::move(info);
        return;
      }
    }
    vars_.push_back(std::move(info));
  }
  const std::vector<VariableInfo>& vars() const { return vars_; }

 private:
  std::vector<VariableInfo> vars_;
};

namespace {

// A type name that does not parse: Kùzu's catalog message for an unknown name, else a binder
// error.
[[noreturn]] void TypeError(const std::string& message) {
  if (message.rfind(kUnknownTypePrefix, 0) == 0) ThrowBinding(message);
  ThrowBinding("Binder exception: " + message);
}

[[noreturn]] void BindError(const std::string& message) {
  ThrowBinding("Binder exception: " + message);
}

BoundExpressionPtr MakeExpr(ExprKind kind, LogicalType type, std::string text) {
  auto e = std::make_unique<BoundExpression>();
  e->kind = kind;
  e->type = std::move(type);
  e->text = std::move(text);
  return e;
}

// AND of the expressions; nullptr for none.
BoundExpressionPtr Conjunction(std::vector<BoundExpressionPtr> conjuncts) {
  if (conjuncts.empty()) return nullptr;
  if (conjuncts.size() == 1) return std::move(conjuncts[0]);
  auto conj = MakeExpr(ExprKind::kAnd, LogicalType::Bool(), "");
  conj->children = std::move(conjuncts);
  return conj;
}

BoundExpressionPtr MakeLiteral(Value v, std::string text) {
  auto e = MakeExpr(ExprKind::kLiteral, v.type(), std::move(text));
  e->literal = std::move(v);
  return e;
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool IsNodeOrRel(const LogicalType& t) {
  return t.id() == LogicalTypeId::kNode || t.id() == LogicalTypeId::kRel;
}

const char* BinaryFunctionName(BinaryOp op) {
  switch (op) {
    case BinaryOp::kEqual:
      return "=";
    case BinaryOp::kNotEqual:
      return "<>";
    case BinaryOp::kLessThan:
      return "<";
    case BinaryOp::kLessEqual:
      return "<=";
    case BinaryOp::kGreaterThan:
      return ">";
    case BinaryOp::kGreaterEqual:
      return ">=";
    case BinaryOp::kBitwiseOr:
      return "|";
    case BinaryOp::kBitwiseAnd:
      return "&";
    case BinaryOp::kShiftLeft:
      return "<<";
    case BinaryOp::kShiftRight:
      return ">>";
    case BinaryOp::kAdd:
      return "+";
    case BinaryOp::kSubtract:
      return "-";
    case BinaryOp::kMultiply:
      return "*";
    case BinaryOp::kDivide:
      return "/";
    case BinaryOp::kModulo:
      return "%";
    case BinaryOp::kPower:
      return "^";
    case BinaryOp::kIn:
      return "in";
    case BinaryOp::kStartsWith:
      return "starts_with";
    case BinaryOp::kEndsWith:
      return "ends_with";
    case BinaryOp::kContains:
      return "contains";
    case BinaryOp::kRegexMatch:
      return "=~";
    default:
      return "";
  }
}

// Functions on nodes, rels and paths, bound by the binder (function::IsGraphFunction).
// "length" and "struct_extract" are graph functions only for path / node / rel arguments.
bool IsGraphFunctionName(const std::string& name) {
  return function::IsGraphFunction(name) || name == "labels" || name == "relationships" ||
         name == "length" || name == "struct_extract" || name == "keys" || name == "properties" ||
         name == "start_node" || name == "end_node";
}

bool IsLambdaFunctionName(const std::string& name) {
  return name == "list_transform" || name == "list_filter" || name == "list_reduce";
}

}  // namespace

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
        case LiteralKind::kString:
          return expr.value;
        case LiteralKind::kDouble:
          return Value::Double(std::strtod(expr.value.c_str(), nullptr)).ToString();
        case LiteralKind::kBoolean:
          return expr.bool_value ? "True" : "False";
        case LiteralKind::kNull:
          return "";
      }
      break;
    case ExpressionKind::kVariable:
      return expr.name;
    case ExpressionKind::kListLiteral:
      return "LIST_CREATION(" + join(expr.children) + ")";
    case ExpressionKind::kMapLiteral:
      return "STRUCT_PACK(" + join(expr.children) + ")";
    case ExpressionKind::kFunctionCall: {
      std::string upper = expr.name;
      for (auto& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      return upper + "(" + join(expr.children) + ")";
    }
    default:
      break;
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
    if (i > 0) {
      const auto& first = bound->columns[0];
      if (columns.size() != first.size()) {
        BindError("The number of columns to union/union all must be the same.");
      }
      if (query.union_all[i - 1] != query.union_all[0]) {
        BindError("Union and union all can not be used together.");
      }
      for (size_t c = 0; c < columns.size(); ++c) {
        const LogicalType& want = first[c].type;
        const LogicalType& got = columns[c].type;
        bool numbers = want.IsNumeric() && got.IsNumeric();
        if (want != got && !numbers && want.id() != LogicalTypeId::kAny &&
            got.id() != LogicalTypeId::kAny && !function::CanImplicitCast(got, want)) {
          BindError(columns[c].name + " has data type " + got.ToString() + " but " +
                    want.ToString() + " was expected.");
        }
      }
      // As in Kùzu, the columns are named after the first query; the others may differ.
    }
    bound->columns.push_back(std::move(columns));
  }
  // Nodes a later pattern gave more labels are scanned in all of those tables.
  for (auto& part : bound->parts) {
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
  bound->union_all = query.union_all;
  bound->num_slots = num_slots_;
  bound->read_only = read_only_;
  bound->creates_only = creates_only_;
  bound->reads_files = reads_files_;
  return bound;
}

BoundQueryPart Binder::BindSingleQuery(const parser::ParsedSingleQuery& query,
                                       std::vector<BoundColumn>* columns) {
  BoundQueryPart part;
  for (const auto& clause_ptr : query.clauses) {
    const parser::ParsedClause& clause = *clause_ptr;
    BoundClause bound;
    switch (clause.kind) {
      case ClauseKind::kMatch: {
        const auto& match = clause.As<parser::ParsedMatchClause>();
        bound.kind = match.optional ? BoundClause::Kind::kOptionalMatch : BoundClause::Kind::kMatch;
        // A hinted pattern may not reuse a node of an earlier clause.
        bool correlated = false;
        for (const auto& pattern : match.patterns) {
          for (const auto& node : pattern.nodes) {
            correlated = correlated || (!node.variable.empty() && scope_->Find(node.variable));
          }
        }
        BindMatch(match.patterns, match.where.get(), &bound);
        if (match.hint) CheckJoinHint(*match.hint, bound.patterns, correlated);
        break;
      }
      case ClauseKind::kUnwind: {
        const auto& unwind = clause.As<parser::ParsedUnwindClause>();
        bound.kind = BoundClause::Kind::kUnwind;
        bound.unwind_expr = Bind(*unwind.expression);
        LogicalType element = bound.unwind_expr->type;
        if (element.id() == LogicalTypeId::kList || element.id() == LogicalTypeId::kArray) {
          element = element.child();
        } else if (element.id() != LogicalTypeId::kAny) {
          BindError(unwind.expression->text + " has data type " + element.ToString() +
                    " but LIST was expected.");
        }
        if (scope_->Find(unwind.alias)) BindError("Variable " + unwind.alias + " already exists.");
        bound.unwind_slot = NewSlot();
        // Unwinding collected nodes or rels gives node / rel variables of the same tables.
        scope_->Add({unwind.alias, bound.unwind_slot, element, KnownTables(*bound.unwind_expr)});
        break;
      }
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
      case ClauseKind::kCreate: {
        const auto& create = clause.As<parser::ParsedCreateClause>();
        bound.kind = BoundClause::Kind::kCreate;
        read_only_ = false;
        for (const auto& pattern : create.patterns) {
          bound.patterns.push_back(BindPattern(pattern, true));
        }
        CheckCreatesSomething(bound.patterns);
        break;
      }
      case ClauseKind::kMerge: {
        const auto& merge = clause.As<parser::ParsedMergeClause>();
        bound.kind = BoundClause::Kind::kMerge;
        read_only_ = false;
        creates_only_ = false;
        for (const auto& pattern : merge.patterns) {
          bound.patterns.push_back(BindPattern(pattern, true));
          const BoundPattern& b = bound.patterns.back();
          bool nodes_bound = std::all_of(b.nodes.begin(), b.nodes.end(),
                                         [](const auto& n) { return n.bound_before; });
          // A path with new nodes is matched like a MATCH (its properties as predicates).
          if (!(b.rels.empty() && b.nodes.size() == 1) && !nodes_bound) bound.merge_by_match = true;
        }
        if (bound.merge_by_match) {
          std::vector<BoundExpressionPtr> conjuncts;
          for (size_t i = 0; i < merge.patterns.size(); ++i) {
            if (auto p = PatternPredicate(merge.patterns[i], bound.patterns[i])) {
              conjuncts.push_back(std::move(p));
            }
          }
          bound.where = Conjunction(std::move(conjuncts));
        }
        CheckCreatesSomething(bound.patterns);
        for (const auto& item : merge.on_match) bound.set_items.push_back(BindSetItem(item));
        for (const auto& item : merge.on_create) bound.on_create.push_back(BindSetItem(item));
        break;
      }
      case ClauseKind::kSet: {
        const auto& set = clause.As<parser::ParsedSetClause>();
        bound.kind = BoundClause::Kind::kSet;
        read_only_ = false;
        creates_only_ = false;
        for (const auto& item : set.items) bound.set_items.push_back(BindSetItem(item));
        break;
      }
      case ClauseKind::kRemove: {
        const auto& remove = clause.As<parser::ParsedRemoveClause>();
        bound.kind = BoundClause::Kind::kSet;
        read_only_ = false;
        creates_only_ = false;
        for (const auto& item : remove.items) bound.set_items.push_back(BindRemoveItem(*item));
        break;
      }
      case ClauseKind::kDelete: {
        const auto& del = clause.As<parser::ParsedDeleteClause>();
        bound.kind = BoundClause::Kind::kDelete;
        read_only_ = false;
        creates_only_ = false;
        bound.detach = del.detach;
        for (const auto& e : del.expressions) {
          auto target = Bind(*e);
          if (!IsNodeOrRel(target->type) || target->kind != ExprKind::kVariable ||
              KnownTables(*target).empty()) {
            BindError("Cannot delete expression " + e->text + " with type " +
                      (target->kind == ExprKind::kVariable ? "VARIABLE" : "EXPRESSION") +
                      ". Expect node or rel pattern.");
          }
          if (target->type.id() == LogicalTypeId::kRel) {
            if (del.detach) BindError("Detach delete on rel tables is not supported.");
            const VariableInfo* v = scope_->Find(target->text);
            if (v && v->undirected) BindError("Delete undirected rel is not supported.");
          }
          bound.delete_exprs.push_back(std::move(target));
        }
        break;
      }
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
    part.clauses.push_back(std::move(bound));
  }
  return part;
}

BoundExpressionPtr Binder::BindPredicate(const ParsedExpression& expr) {
  auto bound = Bind(expr);
  if (bound->type.id() != LogicalTypeId::kBool && bound->type.id() != LogicalTypeId::kAny) {
    BindError(expr.text + " has data type " + bound->type.ToString() + " but BOOL was expected.");
  }
  return bound;
}

void Binder::BindCall(const ParsedExpression& fn,
                      const std::vector<parser::ParsedYieldItem>& yields,
                      const ParsedExpression* where, BoundClause* out) {
  std::vector<Value> args;
  for (const auto& child : fn.children) {
    auto arg = Bind(*child);
    if (arg->kind != ExprKind::kLiteral) {
      BindError(child->text + " has type " +
                (arg->kind == ExprKind::kProperty ? "PROPERTY" : "EXPRESSION") +
                " but LITERAL was expected.");
    }
    args.push_back(arg->literal);
  }
  auto table_function = std::make_unique<BoundTableFunction>(
      BindTableFunction(Lower(fn.name), std::move(args), catalog_));
  auto& names = table_function->column_names;
  auto declare = [&](size_t column, const std::string& alias) {
    if (scope_->Find(alias)) BindError("Variable " + alias + " already exists.");
    SlotId slot = NewSlot();
    table_function->slots[column] = slot;
    scope_->Add({alias, slot, table_function->column_types[column]});
  };
  if (yields.empty()) {
    for (size_t i = 0; i < names.size(); ++i) declare(i, names[i]);
  } else {
    // As in Kùzu, YIELD names every output column, in order, each once (AS renames it).
    if (yields.size() > names.size()) {
      BindError(
          "The number of variables in the yield clause exceeds the number of output variables of "
          "the table function.");
    }
    for (size_t i = 0; i < yields.size(); ++i) {
      const auto& item = yields[i];
      if (!catalog::NamesEqual(names[i], item.name)) {
        BindError("Unknown table function output variable name: " + item.name + ".");
      }
    }
    if (yields.size() < names.size()) {
      BindError("Output variables must all appear in the yield clause.");
    }
    for (size_t i = 0; i < yields.size(); ++i) {
      declare(i, yields[i].alias.empty() ? yields[i].name : yields[i].alias);
    }
  }
  out->table_function = std::move(table_function);
  if (where) out->where = BindPredicate(*where);
}

void Binder::BindLoadFrom(const parser::ParsedLoadFromClause& load, BoundClause* out) {
  if (load.source.kind != parser::ScanSourceKind::kFiles) {
    ThrowNotSupported("LOAD FROM a query or a variable is not supported yet");
  }
  if (!file_scan_resolver_) ThrowNotSupported("LOAD FROM is not available here");
  reads_files_ = true;
  auto scan = std::make_unique<BoundFileScan>();
  scan->paths = load.source.file_paths;
  for (const auto& option : load.options) {
    Value value = Value::Boolean(true);  // a bare option name is a flag
    if (option.value) {
      auto bound = Bind(*option.value);
      if (bound->kind != ExprKind::kLiteral)
        BindError("LOAD FROM option " + option.name + " must be a constant.");
      value = bound->literal;
    }
    scan->options.emplace_back(option.name, std::move(value));
  }
  std::vector<std::pair<std::string, LogicalType>> given;
  for (const auto& column : load.headers) {
    std::string error;
    auto type = catalog_.ParseType(column.type_text, &error);
    if (!type) TypeError(error);
    given.emplace_back(column.name, *type);
  }
  file_scan_resolver_(scan.get(), given);
  for (size_t i = 0; i < scan->column_names.size(); ++i) {
    SlotId slot = NewSlot();
    scan->slots.push_back(slot);
    scope_->Add({scan->column_names[i], slot, scan->column_types[i]});
  }
  out->file_scan = std::move(scan);
  if (load.where) out->where = BindPredicate(*load.where);
}

std::unique_ptr<BoundQuery> Binder::BindStandaloneCall(const parser::ParsedExpression& function) {
  scope_ = std::make_shared<Scope>();
  BoundClause clause;
  clause.kind = BoundClause::Kind::kCall;
  BindCall(function, {}, nullptr, &clause);
  BoundClause ret;
  ret.kind = BoundClause::Kind::kProjection;
  ret.projection = std::make_unique<BoundProjection>();
  ret.projection->is_return = true;
  std::vector<BoundColumn> columns;
  const auto& fn = *clause.table_function;
  for (size_t i = 0; i < fn.column_names.size(); ++i) {
    auto var = MakeExpr(ExprKind::kVariable, fn.column_types[i], fn.column_names[i]);
    var->slot = *fn.slots[i];
    BoundProjectionItem item;
    item.slot = NewSlot();
    item.name = fn.column_names[i];
    item.expr = std::move(var);
    columns.push_back({item.name, fn.column_types[i], item.slot});
    ret.projection->items.push_back(std::move(item));
  }
  auto bound = std::make_unique<BoundQuery>();
  bound->parts.emplace_back();
  bound->parts[0].clauses.push_back(std::move(clause));
  bound->parts[0].clauses.push_back(std::move(ret));
  bound->columns.push_back(std::move(columns));
  bound->num_slots = num_slots_;
  return bound;
}

namespace {

// A join hint's subtree as Kùzu's join tree constructor sees it: the pattern nodes it covers,
// whether it is a lone relationship (which joins by extending from one of its ends), and its
// text for messages (Scan(a), Scan(a,e), JOIN(Scan(a,e),Scan(b))).
struct HintTree {
  std::set<std::string> nodes;
  std::string rel;  // a lone relationship's variable, else empty
  std::string text;
};

struct HintRel {
  std::string left, right;  // its end nodes' variables
};

HintTree HintJoin(HintTree left, HintTree right,
                  const std::map<std::string, HintRel, std::less<>>& rels) {
  auto touches = [&](const HintTree& node_side, const std::string& rel) {
    const HintRel& ends = rels.at(rel);
    return node_side.nodes.count(ends.left) || node_side.nodes.count(ends.right);
  };
  auto extend = [&](HintTree side, const std::string& rel) {
    const HintRel& ends = rels.at(rel);
    side.nodes.insert(ends.left);
    side.nodes.insert(ends.right);
    if (side.text.rfind("Scan(", 0) == 0) {
      side.text.insert(side.text.size() - 1, "," + rel);
    } else {
      side.text = "Extend(" + side.text + "," + rel + ")";
    }
    return side;
  };
  if (left.rel.empty() && !right.rel.empty() && touches(left, right.rel)) {
    return extend(std::move(left), right.rel);
  }
  if (right.rel.empty() && !left.rel.empty() && touches(right, left.rel)) {
    return extend(std::move(right), left.rel);
  }
  bool shared = left.rel.empty() && right.rel.empty() &&
                std::any_of(left.nodes.begin(), left.nodes.end(),
                            [&](const std::string& n) { return right.nodes.count(n) > 0; });
  if (!shared) {
    BindError("Cannot resolve join condition between " + left.text + " and " + right.text + ".");
  }
  HintTree out;
  out.nodes = left.nodes;
  out.nodes.insert(right.nodes.begin(), right.nodes.end());
  out.text = "JOIN(" + left.text + "," + right.text + ")";
  return out;
}

HintTree HintSubtree(const parser::ParsedJoinHint& hint,
                     const std::map<std::string, HintRel, std::less<>>& rels) {
  if (hint.children.empty()) {
    HintTree leaf;
    if (rels.count(hint.variable)) {
      leaf.rel = hint.variable;
    } else {
      leaf.nodes.insert(hint.variable);
    }
    leaf.text = "Scan(" + hint.variable + ")";
    return leaf;
  }
  HintTree tree = HintSubtree(*hint.children[0], rels);
  if (!hint.multi_join) {
    return HintJoin(std::move(tree), HintSubtree(*hint.children[1], rels), rels);
  }
  // A worst-case optimal join: the relationships after the first operand each extend it.
  std::string text = tree.text;
  for (size_t i = 1; i < hint.children.size(); ++i) {
    HintTree next = HintSubtree(*hint.children[i], rels);
    text += "," + next.text;
    tree = HintJoin(std::move(tree), std::move(next), rels);
  }
  tree.text = "MULTI_JOIN(" + text + ")";
  return tree;
}

void HintVariables(const parser::ParsedJoinHint& hint, std::set<std::string>* out) {
  if (hint.children.empty()) out->insert(hint.variable);
  for (const auto& child : hint.children) HintVariables(*child, out);
}

}  // namespace

// Kùzu's checks of a MATCH's join hint, in its order: every node and relationship of the
// pattern has a name, the hint names only them, and each of them; the pattern shares no
// variable with earlier clauses; each JOIN of the hint has a join condition (a node both sides
// cover, or a relationship joined to a side that holds one of its ends). The hint does not
// change the plan: GraphDB's planner picks the join order itself, and results are the same.
void Binder::CheckJoinHint(const parser::ParsedJoinHint& hint,
                           const std::vector<BoundPattern>& patterns, bool correlated) {
  std::set<std::string> names;
  std::map<std::string, HintRel, std::less<>> rels;
  for (const auto& pattern : patterns) {
    for (const auto& node : pattern.nodes) {
      if (node.name.empty()) {
        BindError(
            "Cannot hint join order in a match patter with anonymous node or relationship.");
      }
      names.insert(node.name);
    }
    for (const auto& rel : pattern.rels) {
      if (rel.name.empty()) {
        BindError(
            "Cannot hint join order in a match patter with anonymous node or relationship.");
      }
      names.insert(rel.name);
      rels[rel.name] = {pattern.nodes[rel.left].name, pattern.nodes[rel.right].name};
    }
  }
  std::set<std::string> hinted;
  HintVariables(hint, &hinted);
  for (const auto& name : hinted) {
    if (!names.count(name)) BindError("Cannot bind " + name + " to a node or relationship pattern");
  }
  for (const auto& name : names) {
    if (!hinted.count(name)) BindError("Cannot find " + name + " in join hint.");
  }
  if (correlated) {
    ThrowBinding("Hint join pattern has correlation with previous patterns. This is not "
                 "supported yet.");
  }
  (void)HintSubtree(hint, rels);
}

void Binder::BindMatch(const std::vector<parser::ParsedPatternElement>& patterns,
                       const ParsedExpression* where_clause, BoundClause* out) {
  for (const auto& pattern : patterns) out->patterns.push_back(BindPattern(pattern, false));
  // Inline properties become predicates ANDed with WHERE.
  std::vector<BoundExpressionPtr> conjuncts;
  auto equalities = [&](SlotId slot, const LogicalType& type, const std::vector<uint64_t>& tables,
                        const std::string& name, std::vector<BoundPropertyEquality>& props,
                        std::vector<BoundExpressionPtr>& into) {
    for (auto& prop : props) {
      auto var = MakeExpr(ExprKind::kVariable, type, name);
      var->slot = slot;
      std::string text = name + "." + prop.property;
      std::vector<BoundExpressionPtr> args;
      args.push_back(BindPropertyOnTables(std::move(var), tables, prop.property, text));
      args.push_back(std::move(prop.value));
      into.push_back(BindScalar("=", std::move(args), text));
    }
    props.clear();
  };
  const LogicalType node_type(LogicalTypeId::kNode), rel_type(LogicalTypeId::kRel);
  for (auto& pattern : out->patterns) {
    for (auto& node : pattern.nodes) {
      equalities(node.slot, node_type, node.table_ids, node.name, node.properties, conjuncts);
    }
    for (auto& rel : pattern.rels) {
      if (!rel.variable_length) {
        equalities(rel.slot, rel_type, rel.table_ids, rel.name, rel.properties, conjuncts);
      } else if (!rel.properties.empty()) {
        // (a)-[:R* {k: v}]->(b): every relationship of the path has k = v.
        std::vector<BoundExpressionPtr> step;
        if (rel.step_predicate) step.push_back(std::move(rel.step_predicate));
        equalities(rel.step_slot, rel_type, rel.table_ids, rel.name, rel.properties, step);
        rel.step_predicate = Conjunction(std::move(step));
      }
    }
  }
  if (where_clause) conjuncts.push_back(BindPredicate(*where_clause));
  out->where = Conjunction(std::move(conjuncts));
}

void Binder::BindNodePattern(const parser::ParsedNodePattern& node, bool for_create,
                             BoundNodePattern* out) {
  out->name = node.variable;
  const VariableInfo* existing = node.variable.empty() ? nullptr : scope_->Find(node.variable);
  if (existing) {
    LogicalTypeId id = existing->type.id();
    if (id != LogicalTypeId::kNode || existing->table_ids.empty()) {
      BindError("Cannot bind " + node.variable + " as node pattern.");
    }
    out->slot = existing->slot;
    out->table_ids = existing->table_ids;
    out->bound_before = true;
    if (!node.labels.empty() && !for_create) {
      // As in Kùzu, a node written with more labels in a later pattern is one node of all
      // those tables (MATCH (a:A) MATCH (a:B) matches a in A or B).
      VariableInfo widened = *existing;
      for (uint64_t t : ResolveNodeTables(node.labels)) {
        if (std::find(widened.table_ids.begin(), widened.table_ids.end(), t) ==
            widened.table_ids.end()) {
          widened.table_ids.push_back(t);
          extra_node_tables_[widened.slot].push_back(t);
        }
      }
      out->table_ids = widened.table_ids;
      scope_->Add(std::move(widened));
    }
  } else {
    if (for_create && node.labels.size() > 1) {
      BindError("Create node " + node.variable + " with multiple node labels is not supported.");
    }
    // CREATE without a label: every table is a candidate until the pattern narrows it.
    out->table_ids = ResolveNodeTables(node.labels);
    out->slot = NewSlot();
    if (!node.variable.empty()) {
      VariableInfo info{node.variable, out->slot, LogicalType(LogicalTypeId::kNode),
                        out->table_ids};
      info.from_pattern = true;
      scope_->Add(std::move(info));
    }
  }
  for (const auto& prop : node.properties) {
    out->properties.push_back({prop.key, Bind(*prop.value)});
  }
}

BoundExpressionPtr Binder::PatternPredicate(const parser::ParsedPatternElement& parsed,
                                            const BoundPattern& bound) {
  std::vector<BoundExpressionPtr> conjuncts;
  auto add = [&](SlotId slot, LogicalTypeId type, const std::vector<uint64_t>& tables,
                 const std::string& name, const std::vector<parser::ParsedPropertyEntry>& props) {
    for (const auto& prop : props) {
      auto var = MakeExpr(ExprKind::kVariable, LogicalType(type), name);
      var->slot = slot;
      std::string text = name + "." + prop.key;
      std::vector<BoundExpressionPtr> args;
      args.push_back(BindPropertyOnTables(std::move(var), tables, prop.key, text));
      args.push_back(Bind(*prop.value));
      conjuncts.push_back(BindScalar("=", std::move(args), text));
    }
  };
  for (size_t i = 0; i < bound.nodes.size(); ++i) {
    const auto& node = bound.nodes[i];
    add(node.slot, LogicalTypeId::kNode, node.table_ids, node.name, parsed.nodes[i].properties);
  }
  for (size_t i = 0; i < bound.rels.size(); ++i) {
    const auto& rel = bound.rels[i];
    add(rel.slot, LogicalTypeId::kRel, rel.table_ids, rel.name, parsed.rels[i].properties);
  }
  return Conjunction(std::move(conjuncts));
}

void Binder::SetRelEndpoints(const BoundRelPattern& rel, SlotId left_slot, SlotId right_slot) {
  if (rel.name.empty() || rel.variable_length) return;
  const VariableInfo* v = scope_->Find(rel.name);
  if (!v || v->slot != rel.slot) return;
  VariableInfo info = *v;
  bool backward = rel.direction == Direction::kBackward;
  info.src_slot = backward ? right_slot : left_slot;
  info.dst_slot = backward ? left_slot : right_slot;
  scope_->Add(std::move(info));
}

void Binder::BindRelPattern(const parser::ParsedRelPattern& rel, bool for_create,
                            BoundRelPattern* out) {
  out->name = rel.variable;
  const bool recursive = rel.recursive_kind != parser::RecursiveKind::kNone;
  if (!rel.variable.empty()) {
    if (const VariableInfo* existing = scope_->Find(rel.variable)) {
      if (for_create) BindError("Variable " + rel.variable + " already exists.");
      if (existing->type.id() == LogicalTypeId::kRel ||
          existing->type.id() == LogicalTypeId::kRecursiveRel) {
        BindError("Bind relationship " + rel.variable +
                  " to relationship with same name is not supported.");
      }
      BindError(rel.variable + " has data type " + existing->type.ToString() + " but " +
                (recursive ? "RECURSIVE_REL" : "REL") + " was expected.");
    }
  }
  if (for_create) {
    if (recursive) BindError("Cannot create recursive rel " + rel.variable + ".");
    if (rel.types.size() > 1) {
      BindError("Create rel " + rel.variable + " with multiple rel types is not supported.");
    }
    if (rel.direction == parser::RelDirection::kBoth) {
      BindError(
          "Create undirected relationship is not supported. Try create 2 directed relationships "
          "instead.");
    }
  }
  out->table_ids = ResolveRelTables(rel.types);
  out->direction = rel.direction == parser::RelDirection::kRight  ? Direction::kForward
                   : rel.direction == parser::RelDirection::kLeft ? Direction::kBackward
                                                                  : Direction::kBoth;
  if (recursive) {
    switch (rel.recursive_kind) {
      case parser::RecursiveKind::kTrail:
        out->semantic = PathSemantic::kTrail;
        break;
      case parser::RecursiveKind::kAcyclic:
        out->semantic = PathSemantic::kAcyclic;
        break;
      case parser::RecursiveKind::kShortest:
        out->semantic = PathSemantic::kShortest;
        break;
      case parser::RecursiveKind::kAllShortest:
        out->semantic = PathSemantic::kAllShortest;
        break;
      case parser::RecursiveKind::kWeightedShortest:
        out->semantic = PathSemantic::kWeightedShortest;
        break;
      case parser::RecursiveKind::kAllWeightedShortest:
        out->semantic = PathSemantic::kAllWeightedShortest;
        break;
      default:
        out->semantic = PathSemantic::kWalk;
        break;
    }
    out->variable_length = true;
    out->step_slot = NewSlot();
    out->node_step_slot = NewSlot();
    if (!rel.weight_property.empty()) {
      auto step = MakeExpr(ExprKind::kVariable, LogicalType(LogicalTypeId::kRel), rel.variable);
      step->slot = out->step_slot;
      auto weight = BindPropertyOnTables(std::move(step), out->table_ids, rel.weight_property,
                                         rel.variable + "." + rel.weight_property);
      if (weight->type.id() == LogicalTypeId::kDecimal ||
          weight->type.id() == LogicalTypeId::kInt128) {
        BindError(weight->type.ToString() +
                  " weight type is not supported for weighted shortest path.");
      }
      if (!weight->type.IsNumeric()) {
        BindError(rel.weight_property + " has data type " + weight->type.ToString() +
                  " but a numeric type was expected as a weight.");
      }
      out->weight = ImplicitCast(std::move(weight), LogicalType::Double());
    }
    if (rel.has_comprehension) BindRecursiveComprehension(rel, out);
    auto parse_bound = [](const std::string& text, uint32_t fallback) {
      if (text.empty()) return fallback;
      uint64_t v = 0;
      auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
      if (ec != std::errc() || v > 1000) BindError("Invalid upper bound " + text + ".");
      (void)ptr;
      return static_cast<uint32_t>(v);
    };
    out->min_hops = parse_bound(rel.lower_bound, 1);
    out->max_hops = parse_bound(rel.upper_bound, 30);
    if (!rel.upper_bound.empty() && rel.lower_bound.empty() && rel.upper_bound == rel.lower_bound) {
      out->min_hops = out->max_hops;
    }
    if (out->min_hops > out->max_hops) {
      BindError("Lower bound of rel " + rel.variable + " is greater than upperBound.");
    }
    const bool shortest = rel.recursive_kind == parser::RecursiveKind::kShortest ||
                          rel.recursive_kind == parser::RecursiveKind::kAllShortest ||
                          rel.recursive_kind == parser::RecursiveKind::kWeightedShortest ||
                          rel.recursive_kind == parser::RecursiveKind::kAllWeightedShortest;
    if (shortest && out->min_hops != 1 && !(out->min_hops == 0 && rel.lower_bound == "0")) {
      BindError("Lower bound of shortest/all_shortest path must be 1.");
    }
  }
  out->slot = NewSlot();
  LogicalType type = out->variable_length ? LogicalType(LogicalTypeId::kRecursiveRel)
                                          : LogicalType(LogicalTypeId::kRel);
  if (!rel.variable.empty()) {
    VariableInfo info{rel.variable, out->slot, type, out->table_ids};
    info.from_pattern = true;
    info.weight_property = rel.weight_property;
    info.undirected = out->direction == Direction::kBoth;
    scope_->Add(std::move(info));  // its endpoints are set once the right node is bound
  }
  for (const auto& prop : rel.properties) out->properties.push_back({prop.key, Bind(*prop.value)});
}

namespace {

// The variables an expression names, inside subquery patterns too.
void CollectVariableNames(const ParsedExpression& expr, std::set<std::string>& names) {
  if (expr.kind == ExpressionKind::kVariable) names.insert(expr.name);
  if (expr.subquery) {
    for (const auto& pattern : expr.subquery->patterns) {
      for (const auto& node : pattern.nodes) names.insert(node.variable);
      for (const auto& rel : pattern.rels) names.insert(rel.variable);
    }
    if (expr.subquery->where) CollectVariableNames(*expr.subquery->where, names);
  }
  parser::ForEachChild(expr,
                       [&](const ParsedExpression& child) { CollectVariableNames(child, names); });
}

void SplitParsedConjuncts(const ParsedExpression& expr, std::vector<const ParsedExpression*>& out) {
  if (expr.kind == ExpressionKind::kBinary && expr.binary_ops[0] == BinaryOp::kAnd) {
    for (const auto& child : expr.children) SplitParsedConjuncts(*child, out);
  } else {
    out.push_back(&expr);
  }
}

}  // namespace

void Binder::BindRecursiveComprehension(const parser::ParsedRelPattern& rel, BoundRelPattern* out) {
  // (r, n | WHERE pred | {r.p}, {n.q}): pred filters each relationship r and each intermediate
  // node n of the path; the projections choose the properties they keep.
  const std::string& r = rel.comprehension_rel_variable;
  const std::string& n = rel.comprehension_node_variable;
  auto saved = scope_;
  scope_ = std::make_shared<Scope>(*saved);
  if (!r.empty()) {
    scope_->Add({r, out->step_slot, LogicalType(LogicalTypeId::kRel), out->table_ids});
  }
  if (!n.empty()) {
    scope_->Add({n, out->node_step_slot, LogicalType(LogicalTypeId::kNode), ResolveNodeTables({})});
  }
  if (rel.comprehension_where) {
    std::vector<const ParsedExpression*> parts;
    SplitParsedConjuncts(*rel.comprehension_where, parts);
    std::vector<BoundExpressionPtr> on_rels, on_nodes;
    for (const ParsedExpression* part : parts) {
      std::set<std::string> names;
      CollectVariableNames(*part, names);
      bool uses_rel = !r.empty() && names.count(r);
      bool uses_node = !n.empty() && names.count(n);
      if (uses_rel && uses_node) {
        ThrowNotSupported("a recursive pattern predicate on both " + r + " and " + n + ": " +
                          part->text);
      }
      auto bound = BindPredicate(*part);
      (uses_node ? on_nodes : on_rels).push_back(std::move(bound));
    }
    out->step_predicate = Conjunction(std::move(on_rels));
    out->node_step_predicate = Conjunction(std::move(on_nodes));
  }
  if (rel.has_comprehension_projection) {
    auto properties = [&](const std::vector<parser::ParsedProjectionItem>& items,
                          const std::string& variable) {
      std::vector<std::string> names;
      for (const auto& item : items) {
        const ParsedExpression& e = *item.expression;
        if (e.kind != ExpressionKind::kProperty ||
            e.children[0]->kind != ExpressionKind::kVariable || e.children[0]->name != variable) {
          ThrowNotSupported("recursive pattern projections other than properties of " + variable);
        }
        (void)Bind(e);  // the property must exist
        names.push_back(e.name);
      }
      return names;
    };
    out->rel_properties = properties(rel.rel_projection, r);
    out->node_properties = properties(rel.node_projection, n);
  }
  scope_ = saved;
}

void Binder::InferCreateLabels(BoundPattern& pattern) {
  // Narrow unlabelled nodes and untyped rels to the tables the pattern's rels can connect.
  auto keep = [](std::vector<uint64_t>& ids, const std::vector<uint64_t>& allowed) {
    std::vector<uint64_t> kept;
    for (uint64_t id : ids) {
      if (std::find(allowed.begin(), allowed.end(), id) != allowed.end()) kept.push_back(id);
    }
    bool changed = kept.size() != ids.size();
    ids = std::move(kept);
    return changed;
  };
  for (bool changed = true; changed;) {
    changed = false;
    for (auto& rel : pattern.rels) {
      BoundNodePattern& left = pattern.nodes[rel.left];
      BoundNodePattern& right = pattern.nodes[rel.right];
      bool forward = rel.direction != Direction::kBackward;
      BoundNodePattern& src = forward ? left : right;
      BoundNodePattern& dst = forward ? right : left;
      std::vector<uint64_t> rel_ok, src_ok, dst_ok;
      for (uint64_t rel_id : rel.table_ids) {
        bool used = false;
        for (const auto& pair : catalog_.GetRelTable(rel_id)->pairs) {
          bool s = std::find(src.table_ids.begin(), src.table_ids.end(), pair.src_table) !=
                   src.table_ids.end();
          bool d = std::find(dst.table_ids.begin(), dst.table_ids.end(), pair.dst_table) !=
                   dst.table_ids.end();
          if (!s || !d) continue;
          used = true;
          src_ok.push_back(pair.src_table);
          dst_ok.push_back(pair.dst_table);
        }
        if (used) rel_ok.push_back(rel_id);
      }
      if (rel.table_ids.size() > 1) changed |= keep(rel.table_ids, rel_ok);
      if (!src.bound_before && src.table_ids.size() > 1) changed |= keep(src.table_ids, src_ok);
      if (!dst.bound_before && dst.table_ids.size() > 1) changed |= keep(dst.table_ids, dst_ok);
    }
  }
  for (auto& node : pattern.nodes) {
    if (node.bound_before) continue;
    if (node.table_ids.empty()) {
      BindError("Create node " + node.name + " with empty node labels is not supported.");
    }
    if (node.table_ids.size() > 1) {
      BindError("Create node " + node.name + " with multiple node labels is not supported.");
    }
    if (!node.name.empty()) {
      VariableInfo info{node.name, node.slot, LogicalType(LogicalTypeId::kNode), node.table_ids};
      info.from_pattern = true;
      scope_->Add(std::move(info));
    }
  }
  for (auto& rel : pattern.rels) {
    if (rel.table_ids.size() != 1) {
      BindError("Cannot find a label for relationship " + rel.name +
                " that connects to all of its neighbour nodes.");
    }
    // Ends of one table each (an earlier clause's nodes included) that no FROM/TO pair of the
    // rel table joins: no row could be created.
    const BoundNodePattern& left = pattern.nodes[rel.left];
    const BoundNodePattern& right = pattern.nodes[rel.right];
    bool forward = rel.direction != Direction::kBackward;
    const BoundNodePattern& src = forward ? left : right;
    const BoundNodePattern& dst = forward ? right : left;
    if (src.table_ids.size() == 1 && dst.table_ids.size() == 1 &&
        !catalog_.GetRelTable(rel.table_ids[0])->FindPair(src.table_ids[0], dst.table_ids[0])) {
      BindError("Cannot find a valid label in " + rel.name + " that connects " +
                catalog_.TableName(src.table_ids[0]) + " and " +
                catalog_.TableName(dst.table_ids[0]) + ".");
    }
    if (!rel.name.empty()) {
      if (const VariableInfo* v = scope_->Find(rel.name)) {
        VariableInfo info = *v;
        info.table_ids = rel.table_ids;
        scope_->Add(std::move(info));
      }
    }
  }
}

BoundPattern Binder::BindPattern(const parser::ParsedPatternElement& pattern, bool for_create) {
  BoundPattern out;
  // Left to right, as Kùzu binds: node, relationship, node, ...
  for (size_t i = 0; i < pattern.nodes.size(); ++i) {
    out.nodes.emplace_back();
    BindNodePattern(pattern.nodes[i], for_create, &out.nodes.back());
    if (i > 0) SetRelEndpoints(out.rels[i - 1], out.nodes[i - 1].slot, out.nodes[i].slot);
    if (i < pattern.rels.size()) {
      out.rels.emplace_back();
      BoundRelPattern& rel = out.rels.back();
      BindRelPattern(pattern.rels[i], for_create, &rel);
      rel.left = i;
      rel.right = i + 1;
    }
  }
  if (for_create) InferCreateLabels(out);
  if (!pattern.path_variable.empty()) {
    if (for_create) ThrowNotSupported("named paths in CREATE and MERGE are not supported");
    if (scope_->Find(pattern.path_variable)) {
      BindError("Variable " + pattern.path_variable + " already exists.");
    }
    // p = (a)-[e]->(b): built from the pattern's variables once the pattern is matched.
    auto path = MakeExpr(ExprKind::kGraphFunction, LogicalType(LogicalTypeId::kRecursiveRel),
                         pattern.path_variable);
    path->name = "path";
    for (size_t i = 0; i < out.nodes.size(); ++i) {
      auto node =
          MakeExpr(ExprKind::kVariable, LogicalType(LogicalTypeId::kNode), out.nodes[i].name);
      node->slot = out.nodes[i].slot;
      path->children.push_back(std::move(node));
      if (i < out.rels.size()) {
        const auto& r = out.rels[i];
        auto rel = MakeExpr(
            ExprKind::kVariable,
            LogicalType(r.variable_length ? LogicalTypeId::kRecursiveRel : LogicalTypeId::kRel),
            r.name);
        rel->slot = r.slot;
        path->children.push_back(std::move(rel));
      }
    }
    out.path_slot = NewSlot();
    out.path_name = pattern.path_variable;
    out.path_expr = std::move(path);
    scope_->Add(
        {pattern.path_variable, *out.path_slot, LogicalType(LogicalTypeId::kRecursiveRel), {}});
  }
  return out;
}

std::unique_ptr<BoundProjection> Binder::BindProjection(const parser::ParsedProjection& projection,
                                                        bool is_with, bool is_return,
                                                        const ParsedExpression* where) {
  auto out = std::make_unique<BoundProjection>();
  out->distinct = projection.distinct;
  out->is_return = is_return;
  aggregate_sink_ = &out->aggregates;
  auto new_scope = std::make_shared<Scope>();
  std::vector<VariableInfo> outputs;

  auto add_item = [&](BoundExpressionPtr expr, std::string name) {
    if (is_return && expr->type.id() != LogicalTypeId::kAny &&
        expr->type.Contains([](LogicalTypeId id) { return id == LogicalTypeId::kAny; })) {
      // The elements of [] or [NULL] that nothing gave a type: INT64 in a result, as in Kùzu.
      LogicalType resolved = function::ResolveAnyType(expr->type, LogicalType::Int64());
      expr = ImplicitCast(std::move(expr), resolved);
    }
    BoundProjectionItem item;
    item.slot = NewSlot();
    item.name = name;
    VariableInfo info{name, item.slot, expr->type, KnownTables(*expr)};
    if (expr->kind == ExprKind::kVariable) {
      if (const VariableInfo* v = scope_->Find(expr->text); v && v->slot == expr->slot) {
        info.from_pattern = v->from_pattern;
      }
    }
    item.expr = std::move(expr);
    new_scope->Add(info);
    out->items.push_back(std::move(item));
  };

  if (projection.star) {
    if (scope_->vars().empty()) {
      BindError("RETURN or WITH * is not allowed when there are no variables in scope.");
    }
    for (const auto& var : scope_->vars()) {
      if (var.name.empty()) continue;
      auto e = MakeExpr(ExprKind::kVariable, var.type, var.name);
      e->slot = var.slot;
      add_item(std::move(e), var.name);
    }
  }
  for (const auto& item : projection.items) {
    const ParsedExpression& parsed = *item.expression;
    if (parsed.kind == ExpressionKind::kProperty && parsed.is_star) {
      if (is_with) BindError("Expression in WITH must be aliased (use AS).");
      // n.* / s.*: one column per property of the node or rel tables, or per struct field.
      auto base = Bind(*parsed.children[0]);
      std::vector<std::string> names;
      if (IsNodeOrRel(base->type)) {
        // A node or rel unwound from a list is a struct to Kùzu: its internal fields come first.
        const VariableInfo* v =
            base->kind == ExprKind::kVariable ? scope_->Find(base->text) : nullptr;
        if (!v || !v->from_pattern) {
          if (base->type.id() == LogicalTypeId::kRel) names = {"_SRC", "_DST"};
          names.push_back("_ID");
          names.push_back("_LABEL");
        }
        for (auto& name : PropertyNames(base->type, TablesOf(*base)))
          names.push_back(std::move(name));
      } else if (base->type.id() == LogicalTypeId::kStruct) {
        for (const auto& field : base->type.fields()) names.push_back(field.name);
      } else {
        BindError(parsed.children[0]->text + " has data type " + base->type.ToString() +
                  " but (NODE,REL,STRUCT) was expected.");
      }
      for (const auto& name : names) {
        std::string text = parsed.children[0]->text + "." + name;
        add_item(BindPropertyAccess(Bind(*parsed.children[0]), name, text), text);
      }
      continue;
    }
    auto expr = Bind(parsed);
    if (is_with && !item.has_alias && parsed.kind != ExpressionKind::kVariable) {
      BindError("Expression in WITH must be aliased (use AS).");
    }
    std::string name = item.has_alias ? item.alias : parsed.text;
    if (is_with) {  // RETURN may repeat a column name; WITH names variables
      for (const auto& existing : out->items) {
        if (existing.name == name) {
          BindError("Multiple result columns with the same name " + name + " are not supported.");
        }
      }
    }
    add_item(std::move(expr), name);
  }
  out->has_aggregation = !out->aggregates.empty();

  // ORDER BY sees the projected names and, without aggregation or DISTINCT, the old scope.
  auto old_scope = scope_;
  auto order_scope = std::make_shared<Scope>();
  if (!out->has_aggregation && !out->distinct) {
    for (const auto& v : old_scope->vars()) order_scope->Add(v);
  }
  for (const auto& v : new_scope->vars()) order_scope->Add(v);
  if (!projection.order_by.empty()) {
    scope_ = order_scope;
    for (const auto& sort : projection.order_by) {
      // An ORDER BY expression equal to a projected one reads its slot.
      BoundExpressionPtr expr;
      for (const auto& item : out->items) {
        if (item.expr->text == sort.expression->text || item.name == sort.expression->text) {
          expr = MakeExpr(ExprKind::kVariable, item.expr->type, item.name);
          expr->slot = item.slot;
          break;
        }
      }
      if (!expr) {
        if (out->has_aggregation || out->distinct) {
          // Aggregates in ORDER BY are computed with the others; plain names must be projected.
          scope_ = old_scope;
          size_t before = out->aggregates.size();
          expr = Bind(*sort.expression);
          if (out->aggregates.size() == before && !expr->IsConstant()) {
            scope_ = order_scope;
            expr = Bind(*sort.expression);
          }
        } else {
          expr = Bind(*sort.expression);
        }
      }
      if (expr->type.id() == LogicalTypeId::kInternalId) {
        std::string what = expr->kind == ExprKind::kGraphFunction && expr->name == "id"
                               ? expr->children[0]->text + "._ID"
                               : expr->text;
        BindError("Cannot order by " + what + ". Order by INTERNAL_ID is not supported.");
      }
      switch (expr->type.id()) {
        case LogicalTypeId::kNode:
        case LogicalTypeId::kRel:
        case LogicalTypeId::kRecursiveRel:
        case LogicalTypeId::kList:
        case LogicalTypeId::kArray:
        case LogicalTypeId::kStruct:
        case LogicalTypeId::kMap:
        case LogicalTypeId::kUnion:
          BindError("Cannot order by " + expr->text + ". Order by " + expr->type.ToString() +
                    " is not supported.");
        default:
          break;
      }
      out->order_by.push_back({std::move(expr), sort.descending});
    }
  }
  aggregate_sink_ = nullptr;
  scope_ = new_scope;
  if (projection.skip) out->skip = Bind(*projection.skip);
  if (projection.limit) out->limit = Bind(*projection.limit);
  if (where) {
    out->where = Bind(*where);
    if (out->where->HasAggregate()) BindError("Aggregation in WHERE is not supported.");
  }
  (void)outputs;
  return out;
}

BoundSetItem Binder::BindSetItem(const parser::ParsedSetItem& item) {
  if (item.target->kind != ExpressionKind::kProperty) {
    ThrowNotSupported("SET of labels is not supported");
  }
  BoundSetItem out;
  auto target = Bind(*item.target->children[0]);
  if (!IsNodeOrRel(target->type) || target->kind != ExprKind::kVariable ||
      KnownTables(*target).empty()) {
    BindError("Cannot set expression " + item.target->children[0]->text + " with type " +
              (target->kind == ExprKind::kVariable ? "VARIABLE" : "EXPRESSION") +
              ". Expect node or rel pattern.");
  }
  out.target = target->slot;
  out.target_is_rel = target->type.id() == LogicalTypeId::kRel;
  out.property = item.target->name;
  auto property = Bind(*item.target);
  if (out.property == "_id" || out.property == "_ID") BindError("Cannot set property _ID.");
  out.value = ImplicitCast(Bind(*item.value), property->type);
  return out;
}

BoundSetItem Binder::BindRemoveItem(const ParsedExpression& item) {
  if (item.kind != ExpressionKind::kProperty)
    ThrowNotSupported("REMOVE of labels is not supported");
  BoundSetItem out;
  out.kind = BoundSetItem::Kind::kRemoveProperty;
  auto target = Bind(*item.children[0]);
  if (!IsNodeOrRel(target->type))
    BindError("Cannot remove property of " + item.children[0]->text + ".");
  out.target = target->slot;
  out.target_is_rel = target->type.id() == LogicalTypeId::kRel;
  out.property = item.name;
  auto property = Bind(item);
  out.value = MakeLiteral(Value::Null(property->type), "NULL");
  return out;
}

BoundExpressionPtr Binder::BindConstantExpression(const ParsedExpression& expr) {
  scope_ = std::make_shared<Scope>();
  return Bind(expr);
}

BoundExpressionPtr Binder::ImplicitCast(BoundExpressionPtr expr, const LogicalType& target) {
  if (expr->type == target || target.id() == LogicalTypeId::kAny) return expr;
  if (expr->kind == ExprKind::kLiteral && expr->literal.is_null()) {
    expr->literal = Value::Null(target);
    expr->type = target;
    return expr;
  }
  if (expr->type.id() == LogicalTypeId::kAny) {
    if (expr->kind == ExprKind::kParameter) {
      expr->type = target;
      return expr;
    }
  }
  if (expr->kind == ExprKind::kLiteral) {
    // Fold casts of literals now, so bad constants fail at bind time.
    Value v = function::CastValue(expr->literal, target);
    return MakeLiteral(std::move(v), expr->text);
  }
  auto cast = MakeExpr(ExprKind::kCast, target, expr->text);
  cast->children.push_back(std::move(expr));
  return cast;
}

BoundExpressionPtr Binder::NodeOrRelToId(BoundExpressionPtr expr) {
  if (!IsNodeOrRel(expr->type)) return expr;
  auto id = MakeExpr(ExprKind::kGraphFunction, LogicalType(LogicalTypeId::kInternalId), expr->text);
  id->name = "id";
  id->children.push_back(std::move(expr));
  return id;
}

BoundExpressionPtr Binder::BindScalar(const std::string& name, std::vector<BoundExpressionPtr> args,
                                      const std::string& text,
                                      const std::vector<std::string>& arg_names) {
  function::ScalarBindInput input;
  for (auto& a : args) {
    a = NodeOrRelToId(std::move(a));
    input.arg_types.push_back(a->type);
    input.constant_args.push_back(a->kind == ExprKind::kLiteral ? &a->literal : nullptr);
  }
  input.arg_names = arg_names;
  input.arg_names.resize(args.size());
  std::string error;
  auto fn = function::BindScalarFunctionWithInput(name, input, &error);
  if (!fn) ThrowBinding(error);
  if (fn->propagates_nulls && fn->deterministic) {
    // NULL + 1, date(...) - NULL: NULL whatever the other arguments. Its type is the one the
    // NULL chose an overload for, not a fact: unless every overload has that type (NULL = 1 is
    // a BOOL), the NULL has no type yet and unifies with its context as the NULL literal does
    // (coalesce(d, NULL + 1)).
    for (const auto& a : args) {
      if (a->kind == ExprKind::kLiteral && a->literal.is_null() &&
          a->type.id() == LogicalTypeId::kAny) {
        return MakeLiteral(fn->result_type_fixed ? Value::Null(fn->result_type) : Value::Null(),
                           text);
      }
    }
  }
  auto e = MakeExpr(ExprKind::kScalarFunction, fn->result_type, text);
  e->name = fn->name;
  for (size_t i = 0; i < args.size(); ++i) {
    const LogicalType& target = i < fn->arg_types.size() ? fn->arg_types[i] : fn->arg_types.back();
    e->children.push_back(ImplicitCast(std::move(args[i]), target));
  }
  e->scalar = std::move(*fn);
  // Constant folding: functions of literals are evaluated once, here.
  return e;
}

BoundExpressionPtr Binder::BindLiteral(const ParsedExpression& expr) {
  switch (expr.literal_kind) {
    case LiteralKind::kInteger: {
      int64_t v = 0;
      const std::string& text = expr.value;
      auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
      if (ec == std::errc() && ptr == text.data() + text.size()) {
        return MakeLiteral(Value::Int64(v), expr.text);
      }
      return MakeLiteral(
          function::CastValue(Value::String(text), LogicalType(LogicalTypeId::kInt128)), expr.text);
    }
    case LiteralKind::kDouble:
      return MakeLiteral(Value::Double(std::strtod(expr.value.c_str(), nullptr)), expr.text);
    case LiteralKind::kString:
      return MakeLiteral(Value::String(expr.value), expr.text);
    case LiteralKind::kBoolean:
      return MakeLiteral(Value::Boolean(expr.bool_value), expr.text);
    case LiteralKind::kNull:
      return MakeLiteral(Value::Null(), expr.text);
  }
  return MakeLiteral(Value::Null(), expr.text);
}

BoundExpressionPtr Binder::BindProperty(const ParsedExpression& expr) {
  if (expr.is_star) {
    BindError("Cannot bind " + expr.text + " outside a projection.");  // RETURN/WITH expand n.*
  }
  return BindPropertyAccess(Bind(*expr.children[0]), expr.name, expr.text);
}

BoundExpressionPtr Binder::BindPropertyAccess(BoundExpressionPtr base, const std::string& name,
                                              std::string text) {
  const LogicalType& type = base->type;
  if (IsNodeOrRel(type)) {
    auto tables = TablesOf(*base);
    return BindPropertyOnTables(std::move(base), tables, name, std::move(text));
  }
  auto e = MakeExpr(ExprKind::kProperty, LogicalType::Any(), std::move(text));
  e->name = name;
  if (type.id() == LogicalTypeId::kStruct) {
    auto index = type.FieldIndex(name);
    if (!index) BindError("Invalid field name: " + name + ".");
    e->type = *type.fields()[*index].type;
  } else if (type.id() != LogicalTypeId::kAny) {
    BindError(base->text + " has data type " + type.ToString() +
              " but (NODE,REL,STRUCT,ANY) was expected.");
  }
  e->children.push_back(std::move(base));
  return e;
}

BoundExpressionPtr Binder::BindPropertyOnTables(BoundExpressionPtr base,
                                                const std::vector<uint64_t>& tables,
                                                const std::string& name, std::string text) {
  const bool is_node = base->type.id() == LogicalTypeId::kNode;
  // The internal properties every node and rel has.
  std::string folded = catalog::FoldName(name);
  const char* internal = folded == "_id"                ? "id"
                         : folded == "_label"           ? "label"
                         : !is_node && folded == "_src" ? "src"
                         : !is_node && folded == "_dst" ? "dst"
                                                        : nullptr;
  if (internal) {
    auto e = MakeExpr(
        ExprKind::kGraphFunction,
        folded == "_label" ? LogicalType::String() : LogicalType(LogicalTypeId::kInternalId),
        std::move(text));
    e->name = internal;
    e->children.push_back(std::move(base));
    return e;
  }
  auto e = MakeExpr(ExprKind::kProperty, LogicalType::Any(), std::move(text));
  e->name = name;
  e->property_columns.assign(catalog_.next_table_id(), -1);
  bool found = false;
  for (uint64_t t : tables) {
    const std::vector<catalog::PropertyDefinition>* props = nullptr;
    std::vector<uint64_t> storage_ids;
    if (is_node) {
      const auto* schema = catalog_.GetNodeTable(t);
      if (!schema) continue;
      props = &schema->properties;
      storage_ids.push_back(t);
    } else {
      const auto* schema = catalog_.GetRelTable(t);
      if (!schema) continue;
      props = &schema->properties;
      for (const auto& pair : schema->pairs) storage_ids.push_back(pair.id);
    }
    for (size_t i = 0; i < props->size(); ++i) {
      if (!catalog::NamesEqual((*props)[i].name, name)) continue;
      LogicalType prop_type = (*props)[i].type;
      if (prop_type.id() == LogicalTypeId::kSerial) prop_type = LogicalType::Int64();
      if (found && e->type != prop_type) {
        BindError("Cannot bind property " + name + " of different types.");
      }
      e->type = prop_type;
      found = true;
      for (uint64_t id : storage_ids) e->property_columns[id] = static_cast<int32_t>(i);
    }
  }
  if (!found) BindError("Cannot find property " + name + " for " + base->text + ".");
  e->children.push_back(std::move(base));
  return e;
}

BoundExpressionPtr Binder::BindLambdaCall(const std::string& name, const ParsedExpression& expr) {
  if (expr.children.size() != 2 || expr.children[1]->kind != ExpressionKind::kLambda) {
    BindError("Function " + name + " did not receive correct arguments.");
  }
  auto list = Bind(*expr.children[0]);
  if (list->type.id() != LogicalTypeId::kList && list->type.id() != LogicalTypeId::kArray) {
    BindError(expr.children[0]->text + " has data type " + list->type.ToString() +
              " but LIST was expected.");
  }
  LogicalType element = list->type.child();
  const ParsedExpression& lambda = *expr.children[1];
  auto saved = scope_;
  scope_ = std::make_shared<Scope>(*saved);
  auto e = MakeExpr(ExprKind::kLambdaFunction, LogicalType::Any(), expr.text);
  e->name = name;
  e->slot = NewSlot();
  e->slot2 = NewSlot();
  size_t expected = name == "list_reduce" ? 2 : 1;
  if (lambda.lambda_parameters.size() != expected) {
    BindError("Function " + name + " did not receive correct arguments.");
  }
  scope_->Add({lambda.lambda_parameters[0], e->slot, element, {}});
  if (expected == 2) scope_->Add({lambda.lambda_parameters[1], e->slot2, element, {}});
  auto body = Bind(*lambda.children[0]);
  scope_ = saved;
  if (name == "list_transform") {
    e->type = LogicalType::List(body->type);
  } else if (name == "list_filter") {
    e->type = list->type.id() == LogicalTypeId::kArray ? LogicalType::List(element) : list->type;
  } else {
    e->type = element;
    body = ImplicitCast(std::move(body), element);
  }
  e->children.push_back(std::move(list));
  e->children.push_back(std::move(body));
  return e;
}

BoundExpressionPtr Binder::BindFunction(const ParsedExpression& expr) {
  std::string name = Lower(expr.name);
  if (expr.kind == ExpressionKind::kCountStar || function::IsAggregateFunction(name)) {
    if (!aggregate_sink_) BindError("Aggregate function " + name + " is not allowed here.");
    std::vector<BoundExpressionPtr> args;
    std::vector<LogicalType> types;
    auto* sink = aggregate_sink_;
    aggregate_sink_ = nullptr;  // no nested aggregates
    for (const auto& child : expr.children) {
      // collect() keeps nodes and rels whole (a LIST(NODE) holds their ids); the other
      // aggregates see a node or rel as its internal id, but min() and max() take none.
      auto arg = Bind(*child);
      if ((name == "min" || name == "max") && IsNodeOrRel(arg->type)) {
        std::string upper = name == "min" ? "MIN" : "MAX";
        BindError("Function " + upper + " did not receive correct arguments:\nActual:   (" +
                  arg->type.ToString() + ")\nExpected: a value of a comparable type");
      }
      args.push_back(name == "collect" ? std::move(arg) : NodeOrRelToId(std::move(arg)));
      types.push_back(args.back()->type);
    }
    aggregate_sink_ = sink;
    std::string fn_name = expr.kind == ExpressionKind::kCountStar ? "count_star" : name;
    std::string error;
    auto fn = function::BindAggregateFunction(fn_name, types, expr.distinct, &error);
    if (!fn) ThrowBinding(error);
    auto e = MakeExpr(ExprKind::kAggregate, fn->result_type, expr.text);
    e->name = fn_name;
    for (size_t i = 0; i < args.size(); ++i) {
      e->children.push_back(i < fn->arg_types.size()
                                ? ImplicitCast(std::move(args[i]), fn->arg_types[i])
                                : std::move(args[i]));
    }
    e->aggregate = std::move(*fn);
    e->slot = NewSlot();
    aggregate_sink_->push_back(e.get());
    return e;
  }
  if (IsLambdaFunctionName(name)) return BindLambdaCall(name, expr);
  if (name == "typeof") {
    // The name of the argument's type, known when binding: a constant.
    if (expr.children.size() != 1 || !expr.argument_names.empty()) {
      BindError("Function TYPEOF did not receive correct arguments: it takes one argument.");
    }
    // The argument is never evaluated: aggregates in it go to a sink that is dropped.
    std::vector<BoundExpression*> unused;
    auto* sink = aggregate_sink_;
    if (sink) aggregate_sink_ = &unused;
    BoundExpressionPtr arg;
    try {
      arg = Bind(*expr.children[0]);
    } catch (...) {
      aggregate_sink_ = sink;
      throw;
    }
    aggregate_sink_ = sink;
    return MakeLiteral(Value::String(arg->type.ToString()), expr.text);
  }
  if (!function::IsScalarFunction(name) && !IsGraphFunctionName(name)) {
    if (const catalog::MacroDefinition* macro = catalog_.GetMacro(name)) {
      return BindMacroCall(*macro, expr);
    }
  }
  std::vector<BoundExpressionPtr> args;
  for (const auto& child : expr.children) args.push_back(Bind(*child));
  if (IsGraphFunctionName(name)) {
    if (auto e = BindGraphFunction(name, args, expr)) return e;
  }
  return BindScalar(name, std::move(args), expr.text, expr.argument_names);
}

void Binder::CheckCreatesSomething(const std::vector<BoundPattern>& patterns) {
  for (const BoundPattern& pattern : patterns) {
    if (!pattern.rels.empty()) return;
    for (const auto& node : pattern.nodes) {
      if (!node.bound_before) return;
    }
  }
  BindError("Cannot resolve any node or relationship to create.");
}

BoundExpressionPtr Binder::BindMacroCall(const catalog::MacroDefinition& macro,
                                         const ParsedExpression& expr) {
  // A call inside the body of the macro itself, or of a macro it calls: the chain of bodies
  // the call is written in, not every macro being bound (`inc(inc(x))` binds the inner call
  // while the outer one is open, from the caller's text).
  for (int f = macro_frame_; f >= 0; f = macro_frames_[f].caller) {
    if (macro_frames_[f].macro == &macro) {
      BindError("Macro " + macro.name + " calls itself, directly or through another macro.");
    }
  }
  if (expr.distinct) BindError("DISTINCT is not allowed in a call of macro " + macro.name + ".");
  size_t num_params = macro.parameters.size();
  size_t num_total = num_params + macro.defaults.size();
  if (expr.children.size() < num_params || expr.children.size() > num_total) {
    BindError("Invalid number of arguments for macro " + macro.name + ".");
  }
  auto parse = [&](const std::string& text) -> const ParsedExpression* {
    try {
      macro_expressions_.push_back(parser::ParseExpression(text));
    } catch (const GraphDBException& e) {
      BindError("Macro " + macro.name + " cannot be parsed: " + e.status().message());
    }
    return macro_expressions_.back().get();
  };
  MacroFrame frame{&macro, {}, macro_frame_};
  std::vector<bool> given(num_total, false);
  for (size_t i = 0; i < expr.children.size(); ++i) {
    const std::string& arg_name =
        i < expr.argument_names.size() ? expr.argument_names[i] : std::string();
    size_t index = i;
    if (!arg_name.empty()) {
      index = num_total;
      for (size_t k = num_params; k < num_total; ++k) {
        if (catalog::NamesEqual(macro.defaults[k - num_params].first, arg_name)) index = k;
      }
      if (index == num_total) {
        BindError("Macro " + macro.name + " has no parameter with a default named " + arg_name +
                  ".");
      }
    }
    if (given[index]) BindError("Invalid number of arguments for macro " + macro.name + ".");
    given[index] = true;
    const std::string& parameter =
        index < num_params ? macro.parameters[index] : macro.defaults[index - num_params].first;
    frame.arguments.push_back({parameter, expr.children[i].get(), macro_frame_});
  }
  for (size_t k = 0; k < num_params; ++k) {
    if (!given[k]) BindError("Invalid number of arguments for macro " + macro.name + ".");
  }
  for (size_t k = num_params; k < num_total; ++k) {
    if (given[k]) continue;
    const auto& [parameter, text] = macro.defaults[k - num_params];
    frame.arguments.push_back({parameter, parse(text), -1});
  }
  const ParsedExpression* body = parse(macro.body);
  macro_frames_.push_back(std::move(frame));
  int saved = macro_frame_;
  macro_frame_ = static_cast<int>(macro_frames_.size()) - 1;
  BoundExpressionPtr bound;
  try {
    bound = Bind(*body);
  } catch (...) {
    macro_frame_ = saved;
    macro_frames_.pop_back();
    throw;
  }
  macro_frame_ = saved;
  macro_frames_.pop_back();
  if (bound->kind != ExprKind::kVariable) bound->text = expr.text;
  return bound;
}

std::vector<std::string> Binder::PropertyNames(const LogicalType& type,
                                               const std::vector<uint64_t>& tables) const {
  std::vector<std::string> names;
  auto add = [&names](const std::vector<catalog::PropertyDefinition>& props) {
    for (const auto& prop : props) {
      bool seen = std::any_of(names.begin(), names.end(), [&](const std::string& n) {
        return catalog::NamesEqual(n, prop.name);
      });
      if (!seen) names.push_back(prop.name);
    }
  };
  for (uint64_t t : tables) {
    if (type.id() == LogicalTypeId::kNode) {
      if (const auto* schema = catalog_.GetNodeTable(t)) add(schema->properties);
    } else if (const auto* schema = catalog_.GetRelTable(t)) {
      add(schema->properties);
    }
  }
  return names;
}

std::vector<uint64_t> Binder::KnownTables(const BoundExpression& expr) const {
  if (expr.kind == ExprKind::kVariable) {
    if (const VariableInfo* v = scope_->Find(expr.text); v && v->slot == expr.slot)
      return v->table_ids;
  }
  if (expr.kind == ExprKind::kAggregate && expr.name == "collect" && !expr.children.empty()) {
    return KnownTables(*expr.children[0]);
  }
  return {};
}

std::vector<uint64_t> Binder::TablesOf(const BoundExpression& expr) const {
  if (expr.kind == ExprKind::kVariable) {
    if (const VariableInfo* v = scope_->Find(expr.text)) {
      if (v->slot == expr.slot && !v->table_ids.empty()) return v->table_ids;
    }
  }
  const LogicalType* type = &expr.type;
  while (type->id() == LogicalTypeId::kList || type->id() == LogicalTypeId::kArray)
    type = &type->child();
  std::vector<uint64_t> tables;
  if (type->id() == LogicalTypeId::kNode) {
    for (const auto* t : catalog_.NodeTables()) tables.push_back(t->id);
  } else if (type->id() == LogicalTypeId::kRel) {
    for (const auto* t : catalog_.RelTables()) tables.push_back(t->id);
  }
  return tables;
}

BoundExpressionPtr Binder::BindGraphFunction(const std::string& name,
                                             std::vector<BoundExpressionPtr>& args,
                                             const ParsedExpression& expr) {
  auto type_list = [&args]() {
    std::string out = "(";
    for (size_t i = 0; i < args.size(); ++i) {
      if (i) out += ',';
      out += args[i]->type.ToString();
    }
    return out + ")";
  };
  auto wrong_args = [&](const std::string& expected) {
    std::string upper = expr.name;
    for (auto& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    BindError("Function " + upper + " did not receive correct arguments:\nActual:   " +
              type_list() + "\nExpected: " + expected);
  };
  auto graph_fn = [&](LogicalType type) {
    auto e = MakeExpr(ExprKind::kGraphFunction, std::move(type), expr.text);
    e->name = name;
    for (auto& a : args) e->children.push_back(std::move(a));
    return e;
  };
  const LogicalTypeId arg0 = args.empty() ? LogicalTypeId::kAny : args[0]->type.id();
  const bool is_any = arg0 == LogicalTypeId::kAny;
  const bool is_node_or_rel = arg0 == LogicalTypeId::kNode || arg0 == LogicalTypeId::kRel;
  const bool is_path = arg0 == LogicalTypeId::kRecursiveRel;

  if (name == "length" || name == "struct_extract") {
    if (name == "length" && args.size() == 1 && is_path) return graph_fn(LogicalType::Int64());
    if (name == "struct_extract" && args.size() == 2 && is_node_or_rel &&
        args[1]->kind == ExprKind::kLiteral &&
        args[1]->literal.type_id() == LogicalTypeId::kString) {
      std::string key(args[1]->literal.GetString());
      return BindPropertyAccess(std::move(args[0]), key, expr.text);
    }
    return nullptr;  // the scalar function of that name
  }
  if (name == "properties") {
    if (args.size() != 2) wrong_args("(LIST,STRING)");
    const LogicalType& list = args[0]->type;
    bool elements_ok =
        (list.id() == LogicalTypeId::kList || list.id() == LogicalTypeId::kArray) &&
        (list.child().id() == LogicalTypeId::kNode || list.child().id() == LogicalTypeId::kRel);
    if (!elements_ok || args[1]->kind != ExprKind::kLiteral ||
        args[1]->literal.type_id() != LogicalTypeId::kString) {
      wrong_args("(LIST,STRING)");
    }
    std::string key(args[1]->literal.GetString());
    // properties(list, 'k') is [x IN list | x.k].
    auto tables = TablesOf(*args[0]);
    auto e = MakeExpr(ExprKind::kListComprehension, LogicalType::Any(), expr.text);
    e->slot = NewSlot();
    auto element = MakeExpr(ExprKind::kVariable, list.child(), "");
    element->slot = e->slot;
    auto property = BindPropertyOnTables(std::move(element), tables, key, expr.text);
    e->type = LogicalType::List(property->type);
    e->children.push_back(std::move(args[0]));
    e->children.push_back(std::move(property));
    e->has_projection = true;
    return e;
  }
  if (args.size() != 1) BindError("Function " + name + " did not receive correct arguments.");
  if (name == "id") {
    if (arg0 == LogicalTypeId::kInternalId) return std::move(args[0]);
    if (!is_node_or_rel && !is_any)
      wrong_args("(NODE) -> INTERNAL_ID\n          (REL) -> INTERNAL_ID");
    return graph_fn(LogicalType(LogicalTypeId::kInternalId));
  }
  if (name == "label" || name == "labels") {
    if (!is_node_or_rel && !is_any) wrong_args("(NODE) -> STRING\n          (REL) -> STRING");
    return graph_fn(LogicalType::String());
  }
  if (name == "offset") {
    if (!is_node_or_rel && !is_any && arg0 != LogicalTypeId::kInternalId)
      wrong_args("(INTERNAL_ID) -> INT64");
    return graph_fn(LogicalType::Int64());
  }
  if (name == "start_node" || name == "end_node") {
    if (arg0 != LogicalTypeId::kRel && !is_any) wrong_args("(REL)");
    const BoundExpression& rel = *args[0];
    if (rel.kind == ExprKind::kVariable) {
      // A rel of a pattern: its start and end are the pattern's node variables.
      if (const VariableInfo* v = scope_->Find(rel.text); v && v->slot == rel.slot && v->src_slot) {
        auto node = MakeExpr(ExprKind::kVariable, LogicalType(LogicalTypeId::kNode), expr.text);
        node->slot = name == "start_node" ? *v->src_slot : *v->dst_slot;
        return node;
      }
    }
    return graph_fn(LogicalType(LogicalTypeId::kNode));
  }
  if (name == "nodes" || name == "rels" || name == "relationships" || name == "is_trail" ||
      name == "is_acyclic") {
    if (!is_path && !is_any) wrong_args("(RECURSIVE_REL)");
    if (name == "nodes") return graph_fn(LogicalType::List(LogicalType(LogicalTypeId::kNode)));
    if (name == "is_trail" || name == "is_acyclic") return graph_fn(LogicalType::Bool());
    auto e = graph_fn(LogicalType::List(LogicalType(LogicalTypeId::kRel)));
    e->name = "rels";
    return e;
  }
  if (name == "cost") {
    // The total weight of a weighted shortest path: the sum of its rels' weights.
    const VariableInfo* v =
        args[0]->kind == ExprKind::kVariable ? scope_->Find(args[0]->text) : nullptr;
    if (!is_path || !v || v->weight_property.empty()) {
      BindError("Function COST expects a weighted shortest path variable.");
    }
    auto rels = MakeExpr(ExprKind::kGraphFunction,
                         LogicalType::List(LogicalType(LogicalTypeId::kRel)), expr.text);
    rels->name = "rels";
    rels->children.push_back(std::move(args[0]));
    auto weights = MakeExpr(ExprKind::kListComprehension, LogicalType::Any(), expr.text);
    weights->slot = NewSlot();
    auto element = MakeExpr(ExprKind::kVariable, LogicalType(LogicalTypeId::kRel), "");
    element->slot = weights->slot;
    auto weight = ImplicitCast(
        BindPropertyOnTables(std::move(element), v->table_ids, v->weight_property, expr.text),
        LogicalType::Double());
    weights->type = LogicalType::List(LogicalType::Double());
    weights->children.push_back(std::move(rels));
    weights->children.push_back(std::move(weight));
    weights->has_projection = true;
    std::vector<BoundExpressionPtr> sum_args;
    sum_args.push_back(std::move(weights));
    return BindScalar("list_sum", std::move(sum_args), expr.text);
  }
  if (name == "keys") {
    if (!is_node_or_rel && !is_any) wrong_args("(NODE) -> STRING[]\n          (REL) -> STRING[]");
    std::vector<Value> keys;
    if (is_node_or_rel) {
      for (auto& key : PropertyNames(args[0]->type, TablesOf(*args[0])))
        keys.push_back(Value::String(key));
    }
    auto e = graph_fn(LogicalType::List(LogicalType::String()));
    e->literal = Value::Nested(e->type, std::move(keys));
    return e;
  }
  return nullptr;
}

BoundExpressionPtr Binder::BindSubquery(const ParsedExpression& expr) {
  // EXISTS { MATCH ... } / COUNT { MATCH ... }: a MATCH that sees the outer variables,
  // evaluated for each outer row.
  const bool exists = expr.kind == ExpressionKind::kExistsSubquery;
  auto e =
      MakeExpr(ExprKind::kSubquery, exists ? LogicalType::Bool() : LogicalType::Int64(), expr.text);
  e->name = exists ? "exists" : "count";
  auto part = std::make_shared<BoundQueryPart>();
  for (const auto& v : scope_->vars()) part->correlated_slots.push_back(v.slot);
  auto saved_scope = scope_;
  auto* saved_sink = aggregate_sink_;
  scope_ = std::make_shared<Scope>(*saved_scope);
  aggregate_sink_ = nullptr;
  BoundClause match;
  match.kind = BoundClause::Kind::kMatch;
  BindMatch(expr.subquery->patterns, expr.subquery->where.get(), &match);
  part->clauses.push_back(std::move(match));
  scope_ = saved_scope;
  aggregate_sink_ = saved_sink;
  e->subquery = std::move(part);
  return e;
}

BoundExpressionPtr Binder::BindBinary(const ParsedExpression& expr) {
  // A run of operators of one precedence level: AND, OR and XOR runs hold only that operator.
  BinaryOp op = expr.binary_ops[0];
  if (op == BinaryOp::kAnd || op == BinaryOp::kOr || op == BinaryOp::kXor) {
    auto kind = op == BinaryOp::kAnd  ? ExprKind::kAnd
                : op == BinaryOp::kOr ? ExprKind::kOr
                                      : ExprKind::kXor;
    auto e = MakeExpr(kind, LogicalType::Bool(), expr.text);
    for (const auto& child : expr.children) {
      auto c = Bind(*child);
      if (c->type.id() != LogicalTypeId::kBool && c->type.id() != LogicalTypeId::kAny) {
        BindError("Expression " + ExpressionUniqueName(*child) + " has data type " +
                  c->type.ToString() + " but expected BOOL. Implicit cast is not supported.");
      }
      e->children.push_back(ImplicitCast(std::move(c), LogicalType::Bool()));
    }
    return e;
  }
  std::vector<BoundExpressionPtr> args;
  args.push_back(Bind(*expr.children[0]));
  args.push_back(Bind(*expr.children[1]));
  auto first = BindScalar(BinaryFunctionName(op), std::move(args), expr.text);
  if (expr.children.size() == 2) return first;
  return BindOperatorChain(expr, std::move(first));
}

BoundExpressionPtr Binder::BindOperatorChain(const ParsedExpression& expr,
                                             BoundExpressionPtr first) {
  auto chain = MakeExpr(ExprKind::kOperatorChain, first->type, expr.text);
  // Makes `e`, an operator bound with its real operands, the start of the run: its operands
  // and its step, or, when BindScalar folded it (NULL + x is NULL), the value it folded to,
  // dropping the run so far as the nested form would.
  auto start_from = [&chain](BoundExpressionPtr e) {
    chain->children.clear();
    chain->chain.clear();
    chain->type = e->type;
    if (e->kind == ExprKind::kScalarFunction && e->children.size() == 2) {
      chain->children.push_back(std::move(e->children[0]));
      chain->children.push_back(std::move(e->children[1]));
      chain->chain.push_back({std::move(*e->scalar), std::nullopt});
    } else {
      chain->children.push_back(std::move(e));
    }
  };
  start_from(std::move(first));
  for (size_t i = 2; i < expr.children.size(); ++i) {
    const char* name = BinaryFunctionName(expr.binary_ops[i - 1]);
    std::vector<BoundExpressionPtr> args;
    if (chain->chain.empty()) {
      // The run so far is one expression (a folded constant): bind with it, as written.
      args.push_back(std::move(chain->children[0]));
      args.push_back(Bind(*expr.children[i]));
      start_from(BindScalar(name, std::move(args), ""));
      continue;
    }
    // Each further operator binds as a binary operator whose left operand is the result so
    // far, which a placeholder of its type stands for: BindScalar converts it as it would
    // the real operand, and the conversion is kept as the step's cast.
    auto so_far = MakeExpr(ExprKind::kVariable, chain->type, "");
    const BoundExpression* placeholder = so_far.get();
    args.push_back(std::move(so_far));
    args.push_back(Bind(*expr.children[i]));
    auto step = BindScalar(name, std::move(args), "");
    if (step->kind != ExprKind::kScalarFunction || step->children.size() != 2) {
      start_from(std::move(step));  // folded: the right operand is the NULL literal
      continue;
    }
    const BoundExpression& left = *step->children[0];
    std::optional<LogicalType> cast;
    if (left.kind == ExprKind::kCast && left.children[0].get() == placeholder) {
      cast = left.type;
    } else if (&left != placeholder) {
      Throw(ErrorCode::kInternal, "an operator of " + expr.text + " converts its left operand");
    }
    chain->children.push_back(std::move(step->children[1]));
    chain->chain.push_back({std::move(*step->scalar), std::move(cast)});
    chain->type = step->type;
  }
  if (!chain->chain.empty()) return chain;
  BoundExpressionPtr folded = std::move(chain->children[0]);  // the whole run folded
  folded->text = expr.text;
  return folded;
}

BoundExpressionPtr Binder::BindCase(const ParsedExpression& expr) {
  auto e = MakeExpr(ExprKind::kCase, LogicalType::Any(), expr.text);
  std::vector<BoundExpressionPtr> whens, thens;
  BoundExpressionPtr operand;
  if (expr.case_operand) {
    operand = NodeOrRelToId(Bind(*expr.case_operand));
    e->case_has_operand = true;
  }
  for (size_t i = 0; i + 1 < expr.children.size(); i += 2) {
    auto when = Bind(*expr.children[i]);
    if (operand) {
      when = NodeOrRelToId(std::move(when));
      auto common = function::CommonType(operand->type, when->type);
      if (!common)
        BindError("Cannot compare " + operand->type.ToString() + " and " + when->type.ToString() +
                  ".");
      when = ImplicitCast(std::move(when), *common);
    } else {
      when = ImplicitCast(std::move(when), LogicalType::Bool());
    }
    whens.push_back(std::move(when));
    thens.push_back(Bind(*expr.children[i + 1]));
  }
  BoundExpressionPtr otherwise =
      expr.case_else ? Bind(*expr.case_else) : MakeLiteral(Value::Null(), "NULL");
  LogicalType result = otherwise->type;
  for (const auto& t : thens) {
    auto common = function::CommonType(result, t->type);
    if (!common)
      BindError("Cannot combine CASE results of types " + result.ToString() + " and " +
                t->type.ToString() + ".");
    result = *common;
  }
  if (operand) {
    auto common = LogicalType::Any();
    for (const auto& w : whens) {
      auto c = function::CommonType(common, w->type);
      if (c) common = *c;
    }
    operand = ImplicitCast(std::move(operand), common);
    e->children.push_back(std::move(operand));
  }
  for (size_t i = 0; i < whens.size(); ++i) {
    e->children.push_back(std::move(whens[i]));
    e->children.push_back(ImplicitCast(std::move(thens[i]), result));
  }
  e->children.push_back(ImplicitCast(std::move(otherwise), result));
  e->type = result;
  return e;
}

BoundExpressionPtr Binder::Bind(const ParsedExpression& expr) {
  CheckStackDepth();
  switch (expr.kind) {
    case ExpressionKind::kLiteral:
      return BindLiteral(expr);
    case ExpressionKind::kParameter: {
      auto it = params_.find(expr.name);
      if (it == params_.end()) {
        Throw(ErrorCode::kInvalidRequest, "Parameter " + expr.name + " not found.");
      }
      auto e = MakeExpr(ExprKind::kParameter, it->second.type(), expr.text);
      e->name = expr.name;
      return e;
    }
    case ExpressionKind::kVariable: {
      if (macro_frame_ >= 0) {
        for (const MacroArgument& arg : macro_frames_[macro_frame_].arguments) {
          if (!catalog::NamesEqual(arg.parameter, expr.name)) continue;
          int saved = macro_frame_;
          macro_frame_ = arg.frame;
          auto e = Bind(*arg.expression);
          macro_frame_ = saved;
          return e;
        }
      }
      const VariableInfo* v = scope_->Find(expr.name);
      if (!v) BindError("Variable " + expr.name + " is not in scope.");
      auto e = MakeExpr(ExprKind::kVariable, v->type, expr.text);
      e->slot = v->slot;
      return e;
    }
    case ExpressionKind::kProperty:
      return BindProperty(expr);
    case ExpressionKind::kLabelTest: {
      auto node = Bind(*expr.children[0]);
      if (!IsNodeOrRel(node->type))
        BindError(expr.children[0]->text + " is not a node or relationship.");
      auto e = MakeExpr(ExprKind::kLabelTest, LogicalType::Bool(), expr.text);
      e->field_names = expr.labels;
      e->children.push_back(std::move(node));
      return e;
    }
    case ExpressionKind::kFunctionCall:
    case ExpressionKind::kCountStar:
      return BindFunction(expr);
    case ExpressionKind::kCast: {
      auto operand = Bind(*expr.children[0]);
      std::string type_text = expr.type_text;
      if (type_text.empty()) {
        if (expr.children.size() < 2 || expr.children[1]->kind != ExpressionKind::kLiteral ||
            expr.children[1]->literal_kind != LiteralKind::kString) {
          BindError("The second argument of CAST must be a string literal naming a type.");
        }
        type_text = expr.children[1]->value;
      }
      std::string error;
      auto target = catalog_.ParseType(type_text, &error);
      if (!target) TypeError(error);
      if (!function::StructCastNamesMatch(operand->type, *target)) {
        ThrowRuntime("Conversion exception: Unsupported casting function from " +
                     operand->type.ToString() + " to " + target->ToString() + ".");
      }
      if (operand->kind == ExprKind::kLiteral) {
        Value v = operand->literal.is_null() ? Value::Null(*target)
                                             : function::CastValue(operand->literal, *target);
        return MakeLiteral(std::move(v), expr.text);
      }
      auto e = MakeExpr(ExprKind::kCast, *target, expr.text);
      e->children.push_back(std::move(operand));
      return e;
    }
    case ExpressionKind::kCase:
      return BindCase(expr);
    case ExpressionKind::kListLiteral: {
      auto e = MakeExpr(ExprKind::kList, LogicalType::Any(), expr.text);
      LogicalType element = LogicalType::Any();
      std::vector<BoundExpressionPtr> items;
      for (const auto& child : expr.children) {
        items.push_back(Bind(*child));
        auto common = function::CommonType(element, items.back()->type);
        if (!common) {
          BindError("Cannot bind LIST_CREATION with parameter type " + element.ToString() +
                    " and " + items.back()->type.ToString() + ".");
        }
        element = *common;
      }
      // A list of only NULLs (or none: []) has elements of type ANY until its context gives
      // them one (coalesce(n.tags, []), CASE branches, [] + ['a']); a RETURN column makes
      // them INT64, as Kùzu types such a list (BindProjection).
      for (size_t i = 0; i < items.size(); ++i) {
        const LogicalType& from = items[i]->type;
        if (from != element && from.id() != LogicalTypeId::kAny &&
            !function::CanImplicitCast(from, element)) {
          BindError("Expression " + ExpressionUniqueName(*expr.children[i]) + " has data type " +
                    from.ToString() + " but expected " + element.ToString() +
                    ". Implicit cast is not supported.");
        }
        e->children.push_back(ImplicitCast(std::move(items[i]), element));
      }
      e->type = LogicalType::List(element);
      bool constant = std::all_of(e->children.begin(), e->children.end(),
                                  [](const auto& c) { return c->kind == ExprKind::kLiteral; });
      if (constant) {
        std::vector<Value> values;
        for (const auto& c : e->children) values.push_back(c->literal);
        return MakeLiteral(Value::Nested(e->type, std::move(values)), expr.text);
      }
      return e;
    }
    case ExpressionKind::kMapLiteral: {
      auto e = MakeExpr(ExprKind::kStruct, LogicalType::Any(), expr.text);
      std::vector<std::pair<std::string, LogicalType>> fields;
      for (size_t i = 0; i < expr.children.size(); ++i) {
        for (size_t j = 0; j < i; ++j) {
          // Field names of one spelling only: {name: 1, Name: 2} has two fields.
          if (expr.keys[i] == expr.keys[j]) {
            BindError("Found duplicate field " + expr.keys[i] + " in STRUCT.");
          }
        }
        auto child = Bind(*expr.children[i]);
        // As in Kùzu, a field holding only NULL is a STRING.
        LogicalType type = child->type.id() == LogicalTypeId::kAny ? LogicalType::String()
                                                                   : child->type;
        fields.emplace_back(expr.keys[i], type);
        e->field_names.push_back(expr.keys[i]);
        e->children.push_back(ImplicitCast(std::move(child), type));
      }
      e->type = LogicalType::Struct(std::move(fields));
      return e;
    }
    case ExpressionKind::kListComprehension:
    case ExpressionKind::kQuantifier: {
      auto list = Bind(*expr.children[0]);
      LogicalType element = LogicalType::Any();
      if (list->type.id() == LogicalTypeId::kList || list->type.id() == LogicalTypeId::kArray) {
        element = list->type.child();
      } else if (list->type.id() != LogicalTypeId::kAny) {
        BindError(expr.children[0]->text + " has data type " + list->type.ToString() +
                  " but LIST was expected.");
      }
      bool quantifier = expr.kind == ExpressionKind::kQuantifier;
      auto e = MakeExpr(quantifier ? ExprKind::kQuantifier : ExprKind::kListComprehension,
                        quantifier ? LogicalType::Bool() : LogicalType::Any(), expr.text);
      e->slot = NewSlot();
      auto saved = scope_;
      scope_ = std::make_shared<Scope>(*saved);
      scope_->Add({expr.name, e->slot, element, {}});
      e->children.push_back(std::move(list));
      if (expr.where_expression) {
        e->children.push_back(ImplicitCast(Bind(*expr.where_expression), LogicalType::Bool()));
        e->has_predicate = true;
      }
      LogicalType result_element = element;
      if (!quantifier && expr.projection) {
        e->children.push_back(Bind(*expr.projection));
        e->has_projection = true;
        result_element = e->children.back()->type;
      }
      scope_ = saved;
      if (quantifier) {
        static const char* kNames[] = {"all", "any", "none", "single"};
        e->name = kNames[static_cast<int>(expr.quantifier)];
        if (!e->has_predicate) BindError("Quantifier requires a WHERE predicate.");
      } else {
        e->type = LogicalType::List(result_element);
      }
      return e;
    }
    case ExpressionKind::kLambda:
      BindError("Lambda expressions are only allowed as arguments of list functions.");
    case ExpressionKind::kExistsSubquery:
    case ExpressionKind::kCountSubquery:
      return BindSubquery(expr);
    case ExpressionKind::kPatternPredicate:
      ThrowNotSupported("pattern predicates are not supported yet");
    case ExpressionKind::kUnary: {
      switch (expr.unary_op) {
        case UnaryOp::kNot: {
          auto e = MakeExpr(ExprKind::kNot, LogicalType::Bool(), expr.text);
          auto child = Bind(*expr.children[0]);
          if (child->type.id() != LogicalTypeId::kBool && child->type.id() != LogicalTypeId::kAny) {
            BindError("Expression " + ExpressionUniqueName(*expr.children[0]) + " has data type " +
                      child->type.ToString() +
                      " but expected BOOL. Implicit cast is not supported.");
          }
          e->children.push_back(ImplicitCast(std::move(child), LogicalType::Bool()));
          return e;
        }
        case UnaryOp::kIsNull:
        case UnaryOp::kIsNotNull: {
          auto e =
              MakeExpr(expr.unary_op == UnaryOp::kIsNull ? ExprKind::kIsNull : ExprKind::kIsNotNull,
                       LogicalType::Bool(), expr.text);
          e->children.push_back(Bind(*expr.children[0]));
          return e;
        }
        case UnaryOp::kPlus:
          return Bind(*expr.children[0]);
        case UnaryOp::kNegate:
        case UnaryOp::kFactorial: {
          std::vector<BoundExpressionPtr> args;
          args.push_back(Bind(*expr.children[0]));
          return BindScalar(expr.unary_op == UnaryOp::kNegate ? "negate" : "factorial",
                            std::move(args), expr.text);
        }
      }
      break;
    }
    case ExpressionKind::kBinary:
      return BindBinary(expr);
    case ExpressionKind::kSubscript: {
      auto base = Bind(*expr.children[0]);
      if (base->type.id() == LogicalTypeId::kStruct &&
          expr.children[1]->kind == ExpressionKind::kLiteral &&
          expr.children[1]->literal_kind == LiteralKind::kString) {
        auto index = base->type.FieldIndex(expr.children[1]->value);
        if (!index) BindError("Invalid field name: " + expr.children[1]->value + ".");
        auto e = MakeExpr(ExprKind::kProperty, *base->type.fields()[*index].type, expr.text);
        e->name = expr.children[1]->value;
        e->children.push_back(std::move(base));
        return e;
      }
      std::vector<BoundExpressionPtr> args;
      const char* fn = base->type.id() == LogicalTypeId::kMap ? "map_extract" : "list_extract";
      args.push_back(std::move(base));
      args.push_back(Bind(*expr.children[1]));
      return BindScalar(fn, std::move(args), expr.text);
    }
    case ExpressionKind::kSlice: {
      std::vector<BoundExpressionPtr> args;
      args.push_back(Bind(*expr.children[0]));
      args.push_back(expr.slice_begin ? Bind(*expr.slice_begin)
                                      : MakeLiteral(Value::Int64(0), "0"));
      args.push_back(expr.slice_end ? Bind(*expr.slice_end) : MakeLiteral(Value::Int64(-1), "-1"));
      return BindScalar("list_slice", std::move(args), expr.text);
    }
  }
  Throw(ErrorCode::kInternal, "unhandled expression kind");
}

}  // namespace graphdb::binder
