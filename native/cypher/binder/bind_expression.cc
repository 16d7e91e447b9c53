// Expressions: Bind() hands each kind of parsed expression to its binder (here, or in
// bind_operator.cc, bind_function.cc, bind_graph_function.cc, bind_match.cc for subqueries);
// literals, parameters, variables (and macro parameters), label tests, casts, list and map
// literals, list comprehensions and quantifiers, subscripts and slices are bound here.
#include <algorithm>
#include <charconv>
#include <string_view>
#include <unordered_set>

#include "common/interrupt.h"
#include "common/stack_guard.h"
#include "cypher/binder/binder_internal.h"
#include "function/cast.h"

namespace graphdb::binder {

BoundExpressionPtr Binder::Bind(const ParsedExpression& expr) {
  CheckStackDepth();
  // Binding a statement of many expressions takes some milliseconds: its deadline and
  // cancellation are checked on the way.
  if (++bound_expressions_ % kInterruptCheckExpressions == 0) {
    CheckInterrupt();
    if (bound_expressions_ > kMaxBoundExpressions) {
      BindError("the statement is too large: binding it, its macros expanded, takes more than " +
                std::to_string(kMaxBoundExpressions) + " expressions");
    }
  }
  switch (expr.kind) {
    case ExpressionKind::kLiteral: return BindLiteral(expr);
    case ExpressionKind::kParameter: return BindParameter(expr);
    case ExpressionKind::kVariable: return BindVariable(expr);
    case ExpressionKind::kProperty: return BindProperty(expr);
    case ExpressionKind::kLabelTest: return BindLabelTest(expr);
    case ExpressionKind::kFunctionCall:
    case ExpressionKind::kCountStar: return BindFunction(expr);
    case ExpressionKind::kCast: return BindCast(expr);
    case ExpressionKind::kCase: return BindCase(expr);
    case ExpressionKind::kListLiteral: return BindListLiteral(expr);
    case ExpressionKind::kMapLiteral: return BindMapLiteral(expr);
    case ExpressionKind::kListComprehension:
    case ExpressionKind::kQuantifier: return BindListComprehension(expr);
    case ExpressionKind::kLambda:
      BindError("Lambda expressions are only allowed as arguments of list functions.");
    case ExpressionKind::kExistsSubquery:
    case ExpressionKind::kCountSubquery: return BindSubquery(expr);
    case ExpressionKind::kPatternPredicate:
      ThrowNotSupported("pattern predicates are not supported yet");
    case ExpressionKind::kUnary: return BindUnary(expr);
    case ExpressionKind::kBinary: return BindBinary(expr);
    case ExpressionKind::kSubscript: return BindSubscript(expr);
    case ExpressionKind::kSlice: return BindSlice(expr);
  }
  Throw(ErrorCode::kInternal, "unhandled expression kind");
}

BoundExpressionPtr Binder::BindPredicate(const ParsedExpression& expr) {
  auto bound = Bind(expr);
  if (bound->type.id() != LogicalTypeId::kBool && bound->type.id() != LogicalTypeId::kAny) {
    BindError(expr.text + " has data type " + bound->type.ToString() + " but BOOL was expected.");
  }
  return bound;
}

BoundExpressionPtr Binder::BindConstantExpression(const ParsedExpression& expr) {
  scope_ = std::make_shared<Scope>();
  return Bind(expr);
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
    case LiteralKind::kString: return MakeLiteral(Value::String(expr.value), expr.text);
    case LiteralKind::kBoolean: return MakeLiteral(Value::Boolean(expr.bool_value), expr.text);
    case LiteralKind::kNull: return MakeLiteral(Value::Null(), expr.text);
  }
  return MakeLiteral(Value::Null(), expr.text);
}

BoundExpressionPtr Binder::BindParameter(const ParsedExpression& expr) {
  auto it = params_.find(expr.name);
  if (it == params_.end()) {
    Throw(ErrorCode::kInvalidRequest, "Parameter " + expr.name + " not found.");
  }
  auto e = MakeExpr(ExprKind::kParameter, it->second.type(), expr.text);
  e->name = expr.name;
  return e;
}

BoundExpressionPtr Binder::BindVariable(const ParsedExpression& expr) {
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

BoundExpressionPtr Binder::BindLabelTest(const ParsedExpression& expr) {
  auto node = Bind(*expr.children[0]);
  if (!IsNodeOrRel(node->type))
    BindError(expr.children[0]->text + " is not a node or relationship.");
  auto e = MakeExpr(ExprKind::kLabelTest, LogicalType::Bool(), expr.text);
  e->field_names = expr.labels;
  e->children.push_back(std::move(node));
  return e;
}

BoundExpressionPtr Binder::BindCast(const ParsedExpression& expr) {
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

BoundExpressionPtr Binder::BindListLiteral(const ParsedExpression& expr) {
  auto e = MakeExpr(ExprKind::kList, LogicalType::Any(), expr.text);
  LogicalType element = LogicalType::Any();
  std::vector<BoundExpressionPtr> items;
  for (const auto& child : expr.children) {
    items.push_back(Bind(*child));
    auto common = function::CommonType(element, items.back()->type);
    if (!common) {
      BindError("Cannot bind LIST_CREATION with parameter type " + element.ToString() + " and " +
                items.back()->type.ToString() + ".");
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

BoundExpressionPtr Binder::BindMapLiteral(const ParsedExpression& expr) {
  auto e = MakeExpr(ExprKind::kStruct, LogicalType::Any(), expr.text);
  std::vector<std::pair<std::string, LogicalType>> fields;
  fields.reserve(expr.children.size());
  // Field names of one spelling only: {name: 1, Name: 2} has two fields.
  std::unordered_set<std::string_view> keys;
  keys.reserve(expr.children.size());
  for (size_t i = 0; i < expr.children.size(); ++i) {
    if (!keys.insert(expr.keys[i]).second) {
      BindError("Found duplicate field " + expr.keys[i] + " in STRUCT.");
    }
    auto child = Bind(*expr.children[i]);
    // As in Kùzu, a field holding only NULL is a STRING.
    LogicalType type =
        child->type.id() == LogicalTypeId::kAny ? LogicalType::String() : child->type;
    fields.emplace_back(expr.keys[i], type);
    e->field_names.push_back(expr.keys[i]);
    e->children.push_back(ImplicitCast(std::move(child), type));
  }
  e->type = LogicalType::Struct(std::move(fields));
  return e;
}

BoundExpressionPtr Binder::BindListComprehension(const ParsedExpression& expr) {
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
  LogicalType result_element = element;
  {
    ScopedVariables variable(*scope_);
    variable.Add({expr.name, e->slot, element, {}});
    e->children.push_back(std::move(list));
    if (expr.where_expression) {
      e->children.push_back(ImplicitCast(Bind(*expr.where_expression), LogicalType::Bool()));
      e->has_predicate = true;
    }
    if (!quantifier && expr.projection) {
      e->children.push_back(Bind(*expr.projection));
      e->has_projection = true;
      result_element = e->children.back()->type;
    }
  }
  if (quantifier) {
    static const char* kNames[] = {"all", "any", "none", "single"};
    e->name = kNames[static_cast<int>(expr.quantifier)];
    if (!e->has_predicate) BindError("Quantifier requires a WHERE predicate.");
  } else {
    e->type = LogicalType::List(result_element);
  }
  return e;
}

BoundExpressionPtr Binder::BindSubscript(const ParsedExpression& expr) {
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

BoundExpressionPtr Binder::BindSlice(const ParsedExpression& expr) {
  std::vector<BoundExpressionPtr> args;
  args.push_back(Bind(*expr.children[0]));
  args.push_back(expr.slice_begin ? Bind(*expr.slice_begin) : MakeLiteral(Value::Int64(0), "0"));
  args.push_back(expr.slice_end ? Bind(*expr.slice_end) : MakeLiteral(Value::Int64(-1), "-1"));
  return BindScalar("list_slice", std::move(args), expr.text);
}

}  // namespace graphdb::binder
