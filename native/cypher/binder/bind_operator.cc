// Operators (NOT, IS NULL, -x, x!, AND/OR/XOR, comparisons and arithmetic, runs of them such as
// a + b + c), CASE, scalar function calls and the implicit casts of their arguments.
#include "cypher/binder/binder_internal.h"
#include "function/cast.h"

namespace graphdb::binder {

namespace {

// The scalar function an operator binds to: its symbol (parser::BinaryOpName) for comparisons,
// arithmetic, bitwise operators and =~; a lower-case name for the word operators; none ("") for
// AND, OR and XOR, which bind as boolean connectives.
const char* BinaryFunctionName(BinaryOp op) {
  switch (op) {
    case BinaryOp::kAnd:
    case BinaryOp::kOr:
    case BinaryOp::kXor: return "";
    case BinaryOp::kIn: return "in";
    case BinaryOp::kStartsWith: return "starts_with";
    case BinaryOp::kEndsWith: return "ends_with";
    case BinaryOp::kContains: return "contains";
    default: return parser::BinaryOpName(op);
  }
}

}  // namespace

BoundExpressionPtr Binder::BindUnary(const ParsedExpression& expr) {
  switch (expr.unary_op) {
    case UnaryOp::kNot: {
      auto e = MakeExpr(ExprKind::kNot, LogicalType::Bool(), expr.text);
      auto child = Bind(*expr.children[0]);
      if (child->type.id() != LogicalTypeId::kBool && child->type.id() != LogicalTypeId::kAny) {
        BindError("Expression " + ExpressionUniqueName(*expr.children[0]) + " has data type " +
                  child->type.ToString() + " but expected BOOL. Implicit cast is not supported.");
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
    case UnaryOp::kPlus: return Bind(*expr.children[0]);
    case UnaryOp::kNegate:
    case UnaryOp::kFactorial: {
      std::vector<BoundExpressionPtr> args;
      args.push_back(Bind(*expr.children[0]));
      return BindScalar(expr.unary_op == UnaryOp::kNegate ? "negate" : "factorial", std::move(args),
                        expr.text);
    }
  }
  Throw(ErrorCode::kInternal, "unhandled expression kind");
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

LogicalType Binder::NullDefault(const std::string& name,
                                const std::vector<BoundExpressionPtr>& args,
                                function::ScalarBindInput input,
                                const function::BoundScalarFunction& fn) {
  auto result_for = [&name](const function::ScalarBindInput& in) -> std::optional<LogicalType> {
    std::string error;
    auto typed = function::BindScalarFunctionWithInput(name, in, &error);
    if (!typed) return std::nullopt;
    return typed->result_type;
  };
  // An argument folded this way counts as the type its own overload gave it.
  bool retyped = false;
  std::optional<LogicalType> sibling;  // the first argument with a type
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i]->null_default) {
      input.arg_types[i] = *args[i]->null_default;
      retyped = true;
    }
    if (!sibling && input.arg_types[i].id() != LogicalTypeId::kAny) sibling = input.arg_types[i];
  }
  // A NULL of no type takes its sibling's where an overload allows it (NULL + interval(...) is
  // INTERVAL + INTERVAL), as Kùzu resolves it.
  if (sibling) {
    function::ScalarBindInput same = input;
    for (size_t i = 0; i < args.size(); ++i) {
      if (same.arg_types[i].id() == LogicalTypeId::kAny && args[i]->kind == ExprKind::kLiteral &&
          args[i]->literal.is_null()) {
        same.arg_types[i] = *sibling;
      }
    }
    if (auto type = result_for(same)) return *type;
  }
  if (retyped) {
    if (auto type = result_for(input)) return *type;
  }
  return fn.result_type;
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
    // The type a result column takes for it is the one Kùzu gives: the overload's result,
    // an argument folded this way counting as the type its own overload gave it (date(...) +
    // (NULL + 1) is a DATE).
    for (const auto& a : args) {
      if (a->kind == ExprKind::kLiteral && a->literal.is_null() &&
          a->type.id() == LogicalTypeId::kAny) {
        if (fn->result_type_fixed) return MakeLiteral(Value::Null(fn->result_type), text);
        auto folded = MakeLiteral(Value::Null(), text);
        folded->null_default = NullDefault(name, args, input, *fn);
        return folded;
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

}  // namespace graphdb::binder
