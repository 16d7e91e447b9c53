// Function calls: aggregates (collected for the projection that computes them), the lambda
// functions list_transform / list_filter / list_reduce, typeof, CREATE MACRO macros, and the
// rest handed to the graph functions or the scalar function catalog.
#include "cypher/binder/binder_internal.h"
#include "cypher/parser/parser.h"
#include "function/cast.h"

namespace graphdb::binder {

namespace {

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

BoundExpressionPtr Binder::BindFunction(const ParsedExpression& expr) {
  std::string name = Lower(expr.name);
  if (expr.kind == ExpressionKind::kCountStar || function::IsAggregateFunction(name)) {
    return BindAggregate(name, expr);
  }
  if (IsLambdaFunctionName(name)) return BindLambdaCall(name, expr);
  if (name == "typeof") return BindTypeOf(expr);
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

BoundExpressionPtr Binder::BindAggregate(const std::string& name, const ParsedExpression& expr) {
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

BoundExpressionPtr Binder::BindTypeOf(const ParsedExpression& expr) {
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
  auto e = MakeExpr(ExprKind::kLambdaFunction, LogicalType::Any(), expr.text);
  e->name = name;
  e->slot = NewSlot();
  e->slot2 = NewSlot();
  size_t expected = name == "list_reduce" ? 2 : 1;
  if (lambda.lambda_parameters.size() != expected) {
    BindError("Function " + name + " did not receive correct arguments.");
  }
  BoundExpressionPtr body;
  {
    ScopedVariables parameters(*scope_);
    parameters.Add({lambda.lambda_parameters[0], e->slot, element, {}});
    if (expected == 2) parameters.Add({lambda.lambda_parameters[1], e->slot2, element, {}});
    body = Bind(*lambda.children[0]);
  }
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
  MacroFrame frame = MacroCallFrame(macro, expr);
  const ParsedExpression* body = ParseMacroText(macro, macro.body);
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

Binder::MacroFrame Binder::MacroCallFrame(const catalog::MacroDefinition& macro,
                                          const ParsedExpression& expr) {
  size_t num_params = macro.parameters.size();
  size_t num_total = num_params + macro.defaults.size();
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
    frame.arguments.push_back({parameter, ParseMacroText(macro, text), -1});
  }
  return frame;
}

const ParsedExpression* Binder::ParseMacroText(const catalog::MacroDefinition& macro,
                                               const std::string& text) {
  try {
    macro_expressions_.push_back(parser::ParseExpression(text));
  } catch (const GraphDBException& e) {
    BindError("Macro " + macro.name + " cannot be parsed: " + e.status().message());
  }
  return macro_expressions_.back().get();
}

}  // namespace graphdb::binder
