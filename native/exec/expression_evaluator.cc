#include "exec/expression_evaluator.h"

#include <algorithm>
#include <memory>
#include <new>
#include <string_view>

#include "common/status.h"
#include "exec/executor.h"
#include "exec/graph_access.h"
#include "function/cast.h"
#include "function/value_ops.h"

namespace graphdb::exec {

using binder::BoundExpression;
using binder::ExprKind;

namespace {

// Three-valued logic on optional booleans: nullopt is NULL.
std::optional<bool> ToTruth(const Value& v) {
  if (v.is_null()) return std::nullopt;
  return v.GetBool();
}

Value FromTruth(std::optional<bool> t) {
  return t ? Value::Boolean(*t) : Value::Null(LogicalType::Bool());
}

// ---- Memory of built values (common/expression_memory.h describes the design).
//
// Each node that builds a value takes the account's mark before its children and, after it,
// keeps what its result holds (KeepResult): nothing for a result without a heap (numbers,
// booleans, short strings), the new string for a longer string (its arguments die with the
// call), and everything for a list, map or struct (its arguments' values and its own: it may
// share them). Loops give back what an element's evaluation built and did not keep. Only under
// a memory limit (ExpressionMemory::counts()); otherwise what is charged only paces the polls.

Value EvaluateNode(const BoundExpression& expr, ExecContext& ctx);
bool NodePredicate(const BoundExpression& expr, ExecContext& ctx) {
  Value v = EvaluateNode(expr, ctx);
  return !v.is_null() && v.GetBool();
}

bool IsText(const Value& v) {
  return v.type_id() == LogicalTypeId::kString || v.type_id() == LogicalTypeId::kBlob;
}

// After a function or operator made `result` from `args` (evaluated between the marks `mark`
// and `args_end`): a string that it returns as new and did not charge is charged now (its
// allocation was bounded by its arguments); then the account keeps what the result holds.
[[gnu::noinline]] void KeepBuilt(ExpressionMemory& memory, int64_t mark, int64_t args_end,
                                 const Value& result, const Value* args, size_t n,
                                 bool argument_part) {
  const ValueHeap* heap = result.heap();
  const bool text = IsText(result);
  if (text && !argument_part && memory.held() == args_end) {
    bool shared = false;
    for (size_t i = 0; i < n && !shared; ++i) shared = args[i].heap() == heap;
    if (!shared) memory.Charge(sizeof(ValueHeap) + heap->str.size());
  }
  if (memory.counts() && text) memory.SetHeld(mark + (memory.held() - args_end));
}
// The common case inline: a result without a heap (nothing of it to keep).
inline void KeepResult(ExpressionMemory& memory, int64_t mark, int64_t args_end,
                       const Value& result, const Value* args, size_t n, bool argument_part) {
  if (result.heap() != nullptr) {
    KeepBuilt(memory, mark, args_end, result, args, n, argument_part);
  } else if (memory.counts()) {
    memory.SetHeld(mark);
  }
}

// Calls `fn` on arguments evaluated since the account's `mark`; its result is returned from
// one place (so it is built where the caller wants it, not moved there).
Value Call(const function::BoundScalarFunction& fn, Value* argv, size_t n, const LogicalType& type,
           ExecContext& ctx, int64_t mark) {
  ExpressionMemory& memory = ctx.expr_memory;
  const int64_t args_end = memory.held();
  Value result = fn.exec(argv, n, type, ctx.fn_ctx);
  KeepResult(memory, mark, args_end, result, argv, n, fn.returns_argument_part);
  return result;
}

// The bytes of a list or struct's own slots (not what they point to).
uint64_t SlotBytes(size_t n) { return sizeof(ValueHeap) + n * sizeof(Value); }

// Grows `out` by one slot, charging its growth (doubling, as the vector does).
void PushCharged(std::vector<Value>& out, Value v, ExpressionMemory& memory) {
  if (out.size() == out.capacity()) {
    const size_t grown = std::max<size_t>(8, out.capacity() * 2);
    memory.Charge((grown - out.capacity()) * sizeof(Value));
    out.reserve(grown);
  }
  out.push_back(std::move(v));
}

Value EvaluateProperty(const BoundExpression& expr, ExecContext& ctx) {
  Value base = EvaluateNode(*expr.children[0], ctx);
  if (base.is_null()) return Value::Null(expr.type);
  switch (base.type_id()) {
    case LogicalTypeId::kInternalId: {
      InternalId id = base.GetId();
      const LogicalType& base_type = expr.children[0]->type;
      int32_t column =
          id.table < expr.property_columns.size() ? expr.property_columns[id.table] : -1;
      Value v = base_type.id() == LogicalTypeId::kRel ? ctx.graph->RelProperty(id, column)
                                                      : ctx.graph->NodeProperty(id, column);
      return v;
    }
    case LogicalTypeId::kStruct: {
      auto index = base.type().FieldIndex(expr.name);
      if (!index) return Value::Null(expr.type);
      return base.children()[*index];
    }
    case LogicalTypeId::kRel:
      if (base.heap()->str.empty()) {  // a rel reference from an expand: read storage
        InternalId id = base.GetId();
        int32_t column =
            id.table < expr.property_columns.size() ? expr.property_columns[id.table] : -1;
        return ctx.graph->RelProperty(id, column);
      }
      [[fallthrough]];
    case LogicalTypeId::kNode: {
      const ValueHeap* heap = base.heap();
      for (size_t i = 0; i < heap->names.size(); ++i) {
        if (heap->names[i] == expr.name) return heap->children[i];
      }
      return Value::Null(expr.type);
    }
    default:
      ThrowRuntime("cannot read property " + expr.name + " of a " + base.type().ToString() +
                   " value");
  }
}

Value EvaluateCase(const BoundExpression& expr, ExecContext& ctx) {
  size_t i = 0;
  Value operand;
  if (expr.case_has_operand) operand = EvaluateNode(*expr.children[i++], ctx);
  size_t pairs_end = expr.children.size() - 1;  // last child: ELSE (NULL literal if absent)
  for (; i < pairs_end; i += 2) {
    Value when = EvaluateNode(*expr.children[i], ctx);
    bool hit;
    if (expr.case_has_operand) {
      // As in Kùzu, CASE NULL WHEN NULL matches.
      hit = operand.is_null() || when.is_null() ? operand.is_null() && when.is_null()
                                                : function::ValuesEqual(operand, when);
    } else {
      hit = !when.is_null() && when.GetBool();
    }
    if (hit) return EvaluateNode(*expr.children[i + 1], ctx);
  }
  return EvaluateNode(*expr.children.back(), ctx);
}

Value EvaluateListComprehension(const BoundExpression& expr, ExecContext& ctx) {
  Value list = EvaluateNode(*expr.children[0], ctx);
  if (list.is_null()) return Value::Null(expr.type);
  ExpressionMemory& memory = ctx.expr_memory;
  const bool counts = memory.counts();
  std::vector<Value> out;
  Value saved = ctx.frame[expr.slot];
  memory.Charge(sizeof(ValueHeap));
  for (const Value& element : list.children()) {
    ctx.ChargeWork();
    ctx.frame[expr.slot] = element;
    const int64_t mark = memory.held();
    if (expr.has_predicate) {
      const bool keep = NodePredicate(*expr.children[1], ctx);
      if (counts) memory.SetHeld(mark);  // what the predicate built is gone
      if (!keep) continue;
    }
    if (!expr.has_projection) {
      PushCharged(out, element, memory);
      continue;
    }
    // The projection's value is kept: so is what building it left held.
    Value v = EvaluateNode(*expr.children.back(), ctx);
    PushCharged(out, std::move(v), memory);
  }
  ctx.frame[expr.slot] = saved;
  return Value::Nested(expr.type, std::move(out));
}

Value EvaluateQuantifier(const BoundExpression& expr, ExecContext& ctx) {
  Value list = EvaluateNode(*expr.children[0], ctx);
  if (list.is_null()) return Value::Null(LogicalType::Bool());
  ExpressionMemory& memory = ctx.expr_memory;
  size_t matches = 0;
  size_t total = list.children().size();
  Value saved = ctx.frame[expr.slot];
  const int64_t mark = memory.held();
  for (const Value& element : list.children()) {
    ctx.ChargeWork();
    ctx.frame[expr.slot] = element;
    if (NodePredicate(*expr.children[1], ctx)) ++matches;
    if (memory.counts()) memory.SetHeld(mark);
  }
  ctx.frame[expr.slot] = saved;
  if (expr.name == "all") return Value::Boolean(matches == total);
  if (expr.name == "any") return Value::Boolean(matches > 0);
  if (expr.name == "none") return Value::Boolean(matches == 0);
  return Value::Boolean(matches == 1);  // single
}

// The accumulator of list_reduce holds, after a step that built `built` bytes and made `acc`
// from `old` (which held `old_held`): the step's values, and for a list or struct what the
// old one's elements held (the new one usually keeps them; the old slots die).
int64_t AccumulatorHeld(const Value& acc, const Value& old, int64_t old_held, int64_t built) {
  if (acc.heap() == nullptr) return 0;
  if (acc.heap() == old.heap()) return old_held;  // passed on unchanged
  if (IsText(acc) || old.heap() == nullptr) return built;
  const int64_t old_slots = static_cast<int64_t>(SlotBytes(old.heap()->children.size()));
  return built + std::max<int64_t>(0, old_held - old_slots);
}

Value EvaluateLambda(const BoundExpression& expr, ExecContext& ctx) {
  Value list = EvaluateNode(*expr.children[0], ctx);
  if (list.is_null()) return Value::Null(expr.type);
  ExpressionMemory& memory = ctx.expr_memory;
  const bool counts = memory.counts();
  Value saved = ctx.frame[expr.slot];
  Value saved2 = ctx.frame[expr.slot2];
  Value out;
  if (expr.name == "list_reduce") {
    const auto& elements = list.children();
    if (elements.empty()) {
      ThrowRuntime("Runtime exception: Cannot execute list_reduce on an empty list.");
    }
    Value acc = elements[0];
    const int64_t mark = memory.held();
    int64_t acc_held = 0;  // what the accumulator holds of the account (above `mark`)
    for (size_t i = 1; i < elements.size(); ++i) {
      ctx.ChargeWork();
      ctx.frame[expr.slot] = acc;
      ctx.frame[expr.slot2] = elements[i];
      Value next = EvaluateNode(*expr.children[1], ctx);
      if (counts) {
        acc_held = AccumulatorHeld(next, acc, acc_held, memory.held() - mark - acc_held);
        ctx.frame[expr.slot] = Value();  // the old accumulator dies here
        acc = std::move(next);
        memory.SetHeld(mark + acc_held);
      } else {
        acc = std::move(next);
      }
    }
    out = acc;
  } else {
    std::vector<Value> results;
    const bool filter = expr.name == "list_filter";
    memory.Charge(sizeof(ValueHeap));
    for (const Value& element : list.children()) {
      ctx.ChargeWork();
      ctx.frame[expr.slot] = element;
      if (filter) {
        const int64_t mark = memory.held();
        const bool keep = NodePredicate(*expr.children[1], ctx);
        if (counts) memory.SetHeld(mark);
        if (keep) PushCharged(results, element, memory);
      } else {
        Value v = EvaluateNode(*expr.children[1], ctx);
        PushCharged(results, std::move(v), memory);
      }
    }
    out = Value::Nested(expr.type, std::move(results));
  }
  ctx.frame[expr.slot] = saved;
  ctx.frame[expr.slot2] = saved2;
  return out;
}

Value EvaluateCast(const BoundExpression& expr, ExecContext& ctx) {
  ExpressionMemory& memory = ctx.expr_memory;
  const int64_t mark = memory.held();
  Value v = EvaluateNode(*expr.children[0], ctx);
  if (v.is_null()) return Value::Null(expr.type);
  const int64_t args_end = memory.held();
  Value result = function::CastValue(v, expr.type);
  if (result.heap() != nullptr && !IsText(result) && result.heap() != v.heap()) {
    memory.Charge(SlotBytes(result.heap()->children.size()));
  }
  KeepResult(memory, mark, args_end, result, &v, 1, false);
  return result;
}

// A list or struct literal: its slots are new; its elements' values are kept as they were built.
Value EvaluateNested(const BoundExpression& expr, ExecContext& ctx) {
  ctx.expr_memory.Charge(SlotBytes(expr.children.size()));
  std::vector<Value> elements;
  elements.reserve(expr.children.size());
  for (const auto& child : expr.children) elements.push_back(EvaluateNode(*child, ctx));
  return Value::Nested(expr.type, std::move(elements));
}

// Left to right, each step as a binary kScalarFunction whose left operand is the result so
// far: a NULL operand of a NULL-propagating operator gives NULL without evaluating the right
// operand.
Value EvaluateOperatorChain(const BoundExpression& expr, ExecContext& ctx) {
  ExpressionMemory& memory = ctx.expr_memory;
  const int64_t mark = memory.held();
  Value so_far = EvaluateNode(*expr.children[0], ctx);
  for (size_t i = 0; i < expr.chain.size(); ++i) {
    const binder::ChainStep& step = expr.chain[i];
    const LogicalType& result = i + 1 == expr.chain.size() ? expr.type : step.fn.result_type;
    if (step.cast) {
      so_far = so_far.is_null() ? Value::Null(*step.cast) : function::CastValue(so_far, *step.cast);
    }
    if (step.fn.propagates_nulls && so_far.is_null()) {
      so_far = Value::Null(result);
      continue;
    }
    Value args[2] = {std::move(so_far), EvaluateNode(*expr.children[i + 1], ctx)};
    if (step.fn.propagates_nulls && args[1].is_null()) {
      so_far = Value::Null(result);
      continue;
    }
    const int64_t args_end = memory.held();
    so_far = step.fn.exec(args, 2, result, ctx.fn_ctx);
    KeepResult(memory, mark, args_end, so_far, args, 2, step.fn.returns_argument_part);
  }
  return so_far;
}

// A path from the node, rel and recursive-rel values of a pattern, in pattern order. Parts an
// OPTIONAL MATCH did not find are NULL: such nodes stay as NULL entries, rels are left out.
Value BuildPath(const BoundExpression& expr, ExecContext& ctx) {
  std::vector<Value> nodes, rels;
  // After a variable-length rel of zero hops, the next node is the one before it: once.
  bool same_node_next = false;
  for (const auto& child : expr.children) {
    Value v = EvaluateNode(*child, ctx);
    if (child->type.id() == LogicalTypeId::kNode && same_node_next) {
      same_node_next = false;
      continue;
    }
    if (v.is_null()) {
      if (child->type.id() == LogicalTypeId::kNode) nodes.push_back(std::move(v));
      continue;
    }
    switch (child->type.id()) {
      case LogicalTypeId::kNode: nodes.push_back(std::move(v)); break;
      case LogicalTypeId::kRel: rels.push_back(std::move(v)); break;
      default: {  // a variable-length rel: its intermediate nodes and its rels
        const auto& parts = v.children();
        for (const Value& n : parts[0].children()) nodes.push_back(n);
        for (const Value& r : parts[1].children()) rels.push_back(r);
        same_node_next = parts[1].children().empty();
        break;
      }
    }
  }
  return Value::Path(
      Value::Nested(LogicalType::List(LogicalType(LogicalTypeId::kNode)), std::move(nodes)),
      Value::Nested(LogicalType::List(LogicalType(LogicalTypeId::kRel)), std::move(rels)));
}

// True when no two values of `list` have the same internal id.
bool DistinctIds(const Value& list) {
  const auto& items = list.children();
  for (size_t i = 0; i < items.size(); ++i) {
    for (size_t j = i + 1; j < items.size(); ++j) {
      if (items[i].GetId() == items[j].GetId()) return false;
    }
  }
  return true;
}

// The graph functions by name, told apart by length and then bytes: the name is compared on
// every row (id(x) is how the binder hands a node to an aggregate), so without a call to
// memcmp or a string built.
enum class GraphFn : uint8_t {
  kPath,
  kId,
  kLabel,
  kOffset,
  kSrc,
  kDst,
  kKeys,
  kNodes,
  kRels,
  kLength,
  kIsTrail,
  kIsAcyclic,
  kUnknown
};

GraphFn GraphFnOf(const std::string& name) {
  const std::string_view n(name);
  switch (n.size()) {
    case 2: return n == "id" ? GraphFn::kId : GraphFn::kUnknown;
    case 3: return n == "src" ? GraphFn::kSrc : n == "dst" ? GraphFn::kDst : GraphFn::kUnknown;
    case 4:
      return n == "path"   ? GraphFn::kPath
             : n == "keys" ? GraphFn::kKeys
             : n == "rels" ? GraphFn::kRels
                           : GraphFn::kUnknown;
    case 5:
      return n == "label" ? GraphFn::kLabel : n == "nodes" ? GraphFn::kNodes : GraphFn::kUnknown;
    case 6:
      return n == "labels"   ? GraphFn::kLabel
             : n == "offset" ? GraphFn::kOffset
             : n == "length" ? GraphFn::kLength
                             : GraphFn::kUnknown;
    case 8:
      return n == "end_node"   ? GraphFn::kDst
             : n == "is_trail" ? GraphFn::kIsTrail
                               : GraphFn::kUnknown;
    case 10:
      return n == "start_node"   ? GraphFn::kSrc
             : n == "is_acyclic" ? GraphFn::kIsAcyclic
                                 : GraphFn::kUnknown;
    default: return GraphFn::kUnknown;
  }
}

Value EvaluateGraphFunction(const BoundExpression& expr, ExecContext& ctx) {
  const GraphFn fn = GraphFnOf(expr.name);
  if (fn == GraphFn::kPath) return BuildPath(expr, ctx);
  Value arg = EvaluateNode(*expr.children[0], ctx);
  if (arg.is_null()) return Value::Null(expr.type);
  if (fn == GraphFn::kUnknown) ThrowNotSupported("function " + expr.name + " is not supported yet");
  switch (fn) {
    case GraphFn::kId: return Value::Id(arg.GetId());
    case GraphFn::kLabel: return Value::String(ctx.graph->TableName(arg.GetId().table));
    case GraphFn::kOffset: return Value::Int64(static_cast<int64_t>(arg.GetId().offset));
    case GraphFn::kSrc: return Value::Id(arg.heap()->src);
    case GraphFn::kDst: return Value::Id(arg.heap()->dst);
    case GraphFn::kKeys: return expr.literal;
    default: break;
  }
  const auto& parts = arg.children();  // a path: [nodes, rels]
  switch (fn) {
    case GraphFn::kNodes: return parts[0];
    case GraphFn::kRels: return parts[1];
    case GraphFn::kLength: return Value::Int64(static_cast<int64_t>(parts[1].children().size()));
    case GraphFn::kIsTrail: return Value::Boolean(DistinctIds(parts[1]));
    default: return Value::Boolean(DistinctIds(parts[0]));  // kIsAcyclic
  }
}

// The arguments of one function call, added in order: up to kInline of them in place, only
// those added constructed (a default-constructed array of 8 values was zeroed and destroyed
// whole on every call: a tenth of a filter comparing two properties per edge).
class CallArgs {
 public:
  explicit CallArgs(size_t n) {
    if (n > kInline) {
      many_.reserve(n);
      data_ = many_.data();
    }
  }
  ~CallArgs() {
    if (many_.capacity() == 0) std::destroy_n(data_, added_);
  }
  CallArgs(const CallArgs&) = delete;
  CallArgs& operator=(const CallArgs&) = delete;

  const Value& Add(Value v) {
    if (many_.capacity() != 0) {
      many_.push_back(std::move(v));
    } else {
      new (data_ + added_) Value(std::move(v));
    }
    return data_[added_++];
  }
  Value* data() { return data_; }

 private:
  static constexpr size_t kInline = 8;
  alignas(Value) unsigned char inline_[kInline * sizeof(Value)];
  Value* data_ = reinterpret_cast<Value*>(inline_);
  size_t added_ = 0;
  std::vector<Value> many_;
};

Value EvaluateNode(const BoundExpression& expr, ExecContext& ctx) {
  switch (expr.kind) {
    case ExprKind::kLiteral: return expr.literal;
    case ExprKind::kParameter: {
      auto it = ctx.params->find(expr.name);
      if (it == ctx.params->end()) {
        Throw(ErrorCode::kInvalidRequest, "Parameter " + expr.name + " not found.");
      }
      if (expr.type.id() == LogicalTypeId::kAny || it->second.is_null() ||
          it->second.type() == expr.type) {
        return it->second;
      }
      return function::CastValue(it->second, expr.type);
    }
    case ExprKind::kVariable:
    case ExprKind::kAggregate: return ctx.frame[expr.slot];
    case ExprKind::kProperty: return EvaluateProperty(expr, ctx);
    case ExprKind::kScalarFunction: {
      const auto& fn = *expr.scalar;
      ExpressionMemory& memory = ctx.expr_memory;
      const int64_t mark = memory.held();
      const size_t n = expr.children.size();
      CallArgs args(n);
      for (size_t i = 0; i < n; ++i) {
        const Value& arg = args.Add(EvaluateNode(*expr.children[i], ctx));
        if (fn.propagates_nulls && arg.is_null()) return Value::Null(expr.type);
      }
      return Call(fn, args.data(), n, expr.type, ctx, mark);
    }
    case ExprKind::kAnd: {
      std::optional<bool> result = true;
      for (const auto& child : expr.children) {
        std::optional<bool> t = ToTruth(EvaluateNode(*child, ctx));
        if (t && !*t) return Value::Boolean(false);
        if (!t) result = std::nullopt;
      }
      return FromTruth(result);
    }
    case ExprKind::kOr: {
      std::optional<bool> result = false;
      for (const auto& child : expr.children) {
        std::optional<bool> t = ToTruth(EvaluateNode(*child, ctx));
        if (t && *t) return Value::Boolean(true);
        if (!t) result = std::nullopt;
      }
      return FromTruth(result);
    }
    case ExprKind::kXor: {
      bool odd = false;
      bool null = false;
      for (const auto& child : expr.children) {
        std::optional<bool> t = ToTruth(EvaluateNode(*child, ctx));
        if (!t)
          null = true;
        else
          odd = odd != *t;
      }
      return null ? FromTruth(std::nullopt) : Value::Boolean(odd);
    }
    case ExprKind::kOperatorChain: return EvaluateOperatorChain(expr, ctx);
    case ExprKind::kNot: {
      auto a = ToTruth(EvaluateNode(*expr.children[0], ctx));
      return a ? Value::Boolean(!*a) : FromTruth(std::nullopt);
    }
    case ExprKind::kIsNull: return Value::Boolean(EvaluateNode(*expr.children[0], ctx).is_null());
    case ExprKind::kIsNotNull:
      return Value::Boolean(!EvaluateNode(*expr.children[0], ctx).is_null());
    case ExprKind::kCase: return EvaluateCase(expr, ctx);
    case ExprKind::kCast: return EvaluateCast(expr, ctx);
    case ExprKind::kList:
    case ExprKind::kStruct: return EvaluateNested(expr, ctx);
    case ExprKind::kGraphFunction: return EvaluateGraphFunction(expr, ctx);
    case ExprKind::kListComprehension: return EvaluateListComprehension(expr, ctx);
    case ExprKind::kQuantifier: return EvaluateQuantifier(expr, ctx);
    case ExprKind::kLambdaFunction: return EvaluateLambda(expr, ctx);
    case ExprKind::kLabelTest: {
      Value node = EvaluateNode(*expr.children[0], ctx);
      if (node.is_null()) return Value::Null(LogicalType::Bool());
      std::string label = ctx.graph->TableName(node.GetId().table);
      for (const auto& candidate : expr.field_names) {
        if (candidate == label) return Value::Boolean(true);
      }
      return Value::Boolean(false);
    }
    case ExprKind::kSubquery: {
      if (!ctx.subqueries) ThrowNotSupported("subqueries are not allowed here");
      const bool exists = expr.name == "exists";
      // The subquery writes only its own variables' slots; the outer row stays as it is.
      uint64_t rows = ctx.subqueries->CountRows(*expr.subquery, ctx, exists ? 1 : UINT64_MAX);
      return exists ? Value::Boolean(rows > 0) : Value::Int64(static_cast<int64_t>(rows));
    }
  }
  Throw(ErrorCode::kInternal, "unknown expression kind");
}

// Gives back, when a top-level evaluation ends (or throws), what it charged: its value passes
// to the row, which operators that keep rows count themselves.
class TopLevelMark {
 public:
  explicit TopLevelMark(ExpressionMemory& memory)
      : memory_(memory.counts() ? &memory : nullptr), mark_(memory.held()) {}
  ~TopLevelMark() {
    if (memory_ != nullptr) memory_->SetHeld(mark_);
  }
  TopLevelMark(const TopLevelMark&) = delete;
  TopLevelMark& operator=(const TopLevelMark&) = delete;

 private:
  ExpressionMemory* memory_;
  int64_t mark_;
};

}  // namespace

Value Evaluate(const BoundExpression& expr, ExecContext& ctx) {
  TopLevelMark mark(ctx.expr_memory);
  return EvaluateNode(expr, ctx);
}

bool EvaluatePredicate(const BoundExpression& expr, ExecContext& ctx) {
  TopLevelMark mark(ctx.expr_memory);
  return NodePredicate(expr, ctx);
}

namespace {

// Whether values of `type` may hold node or rel references that results must expand.
bool HoldsGraphValues(const LogicalType& type) {
  return type.Contains([](LogicalTypeId id) {
    return id == LogicalTypeId::kNode || id == LogicalTypeId::kRel ||
           id == LogicalTypeId::kRecursiveRel;
  });
}

}  // namespace

Value Materialize(const Value& value, const LogicalType& type, ExecContext& ctx) {
  if (value.is_null() || !HoldsGraphValues(type)) return value;
  switch (type.id()) {
    case LogicalTypeId::kNode:
      return value.type_id() == LogicalTypeId::kInternalId
                 ? ctx.graph->MaterializeNode(value.GetId())
                 : value;
    case LogicalTypeId::kRel:
      return value.type_id() == LogicalTypeId::kRel && value.heap()->str.empty()
                 ? ctx.graph->MaterializeRel(value)
                 : value;
    case LogicalTypeId::kList:
    case LogicalTypeId::kArray: {
      const LogicalType& child = type.child();
      std::vector<Value> out;
      out.reserve(value.children().size());
      for (const Value& element : value.children()) out.push_back(Materialize(element, child, ctx));
      return Value::Nested(type, std::move(out));
    }
    case LogicalTypeId::kStruct: {
      const auto& fields = type.fields();
      std::vector<Value> out;
      for (size_t i = 0; i < value.children().size(); ++i) {
        out.push_back(i < fields.size() ? Materialize(value.children()[i], *fields[i].type, ctx)
                                        : value.children()[i]);
      }
      return Value::Nested(type, std::move(out));
    }
    case LogicalTypeId::kMap: {
      LogicalType entry =
          LogicalType::Struct({{"key", type.map_key()}, {"value", type.map_value()}});
      std::vector<Value> out;
      for (const Value& e : value.children()) out.push_back(Materialize(e, entry, ctx));
      return Value::Nested(type, std::move(out));
    }
    case LogicalTypeId::kUnion: {
      uint32_t tag = value.GetUnionTag();
      const auto& fields = type.fields();
      if (tag >= fields.size()) return value;
      return Value::UnionValue(type, tag, Materialize(value.children()[0], *fields[tag].type, ctx));
    }
    case LogicalTypeId::kRecursiveRel: {
      const auto& parts = value.children();
      return Value::Path(
          Materialize(parts[0], LogicalType::List(LogicalType(LogicalTypeId::kNode)), ctx),
          Materialize(parts[1], LogicalType::List(LogicalType(LogicalTypeId::kRel)), ctx));
    }
    default: return value;
  }
}

}  // namespace graphdb::exec
