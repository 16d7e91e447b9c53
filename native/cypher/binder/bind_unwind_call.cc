// UNWIND (a list's elements as a new variable) and CALL of a table function (its arguments
// constants, its columns new variables, YIELD renaming them), standalone or in a query.
#include "cypher/binder/binder_internal.h"
#include "cypher/binder/table_functions.h"
#include "function/cast.h"
#include "function/scalar_function.h"

namespace graphdb::binder {

void Binder::BindUnwind(const parser::ParsedUnwindClause& unwind, BoundClause* out) {
  out->kind = BoundClause::Kind::kUnwind;
  out->unwind_expr = Bind(*unwind.expression);
  LogicalType element = out->unwind_expr->type;
  if (element.id() == LogicalTypeId::kList || element.id() == LogicalTypeId::kArray) {
    element = element.child();
  } else if (element.id() != LogicalTypeId::kAny) {
    BindError(unwind.expression->text + " has data type " + element.ToString() +
              " but LIST was expected.");
  }
  if (scope_->Find(unwind.alias)) BindError("Variable " + unwind.alias + " already exists.");
  out->unwind_slot = NewSlot();
  // Unwinding collected nodes or rels gives node / rel variables of the same tables.
  scope_->Add({unwind.alias, out->unwind_slot, element, KnownTables(*out->unwind_expr)});
}

namespace {

// The value of a constant argument, as Kùzu folds one: a literal, a list or map literal of
// constants (project_graph's label lists and filter maps), or an expression over constants
// that gives the same value every time (`top := 1 + 3`, `'mean' + 'ing'`, a cast). Anything
// else (a property, a variable, nextval(), random()) is not a constant: nullopt.
std::optional<Value> ConstantArgument(const BoundExpression& expr) {
  switch (expr.kind) {
    case ExprKind::kLiteral: return expr.literal;
    case ExprKind::kList:
    case ExprKind::kStruct: break;
    case ExprKind::kCast: {
      auto v = ConstantArgument(*expr.children[0]);
      if (!v) return std::nullopt;
      return v->is_null() ? Value::Null(expr.type) : function::CastValue(*v, expr.type);
    }
    case ExprKind::kScalarFunction: {
      const auto& fn = *expr.scalar;
      if (!fn.deterministic) return std::nullopt;
      std::vector<Value> args;
      for (const auto& child : expr.children) {
        auto v = ConstantArgument(*child);
        if (!v) return std::nullopt;
        args.push_back(std::move(*v));
      }
      for (const auto& a : args) {
        if (fn.propagates_nulls && a.is_null()) return Value::Null(expr.type);
      }
      function::FunctionContext ctx;
      return fn.exec(args.data(), args.size(), expr.type, ctx);
    }
    case ExprKind::kOperatorChain: {
      auto so_far = ConstantArgument(*expr.children[0]);
      if (!so_far) return std::nullopt;
      for (size_t i = 0; i < expr.chain.size(); ++i) {
        const ChainStep& step = expr.chain[i];
        if (!step.fn.deterministic) return std::nullopt;
        auto right = ConstantArgument(*expr.children[i + 1]);
        if (!right) return std::nullopt;
        const LogicalType& result = i + 1 == expr.chain.size() ? expr.type : step.fn.result_type;
        if (step.cast) {
          *so_far = so_far->is_null() ? Value::Null(*step.cast)
                                      : function::CastValue(*so_far, *step.cast);
        }
        if (step.fn.propagates_nulls && (so_far->is_null() || right->is_null())) {
          *so_far = Value::Null(result);
          continue;
        }
        Value args[2] = {std::move(*so_far), std::move(*right)};
        function::FunctionContext ctx;
        *so_far = step.fn.exec(args, 2, result, ctx);
      }
      return so_far;
    }
    default: return std::nullopt;
  }
  std::vector<Value> children;
  for (const auto& child : expr.children) {
    auto value = ConstantArgument(*child);
    if (!value) return std::nullopt;
    children.push_back(std::move(*value));
  }
  LogicalType type = expr.type;
  if (expr.kind == ExprKind::kStruct && type.id() != LogicalTypeId::kStruct) {
    std::vector<std::pair<std::string, LogicalType>> fields;
    for (size_t i = 0; i < children.size(); ++i) {
      fields.emplace_back(expr.field_names[i], children[i].type());
    }
    type = LogicalType::Struct(std::move(fields));
  }
  return Value::Nested(std::move(type), std::move(children));
}

}  // namespace

void Binder::BindCall(const ParsedExpression& fn,
                      const std::vector<parser::ParsedYieldItem>& yields,
                      const ParsedExpression* where, BoundClause* out) {
  std::vector<Value> args;
  std::vector<std::pair<std::string, Value>> named;
  for (size_t i = 0; i < fn.children.size(); ++i) {
    const auto& child = fn.children[i];
    auto arg = Bind(*child);
    std::optional<Value> value;
    if (arg->kind == ExprKind::kParameter) {
      // A parameter's value ($q): known now, so the plan is not cached for other values.
      value = params_.at(arg->name);
      binds_parameter_values_ = true;
    } else {
      value = ConstantArgument(*arg);
    }
    if (!value) {
      BindError(child->text + " has type " +
                (arg->kind == ExprKind::kProperty ? "PROPERTY" : "EXPRESSION") +
                " but LITERAL was expected.");
    }
    if (i < fn.argument_names.size() && !fn.argument_names[i].empty()) {
      named.emplace_back(fn.argument_names[i], std::move(*value));
    } else {
      args.push_back(std::move(*value));
    }
  }
  auto table_function = std::make_unique<BoundTableFunction>(
      BindTableFunction(Lower(fn.name), std::move(args), catalog_, std::move(named)));
  auto& names = table_function->column_names;
  auto declare = [&](size_t column, const std::string& alias) {
    if (scope_->Find(alias)) BindError("Variable " + alias + " already exists.");
    SlotId slot = NewSlot();
    table_function->slots[column] = slot;
    std::vector<uint64_t> tables;
    if (column < table_function->column_tables.size()) {
      tables = table_function->column_tables[column];
    }
    scope_->Add({alias, slot, table_function->column_types[column], std::move(tables)});
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

}  // namespace graphdb::binder
