// Comparison operators (=, <>, <, <=, >, >=) and the boolean connectives as functions.
#include "function/function_internal.h"
#include "function/value_ops.h"

namespace graphdb::function::internal {

namespace {

bool IsScalarComparable(Id id) {
  return id != Id::kList && id != Id::kArray && id != Id::kStruct && id != Id::kMap &&
         id != Id::kUnion && id != Id::kNode && id != Id::kRel && id != Id::kRecursiveRel;
}

bool Comparable(const LogicalType& a, const LogicalType& b) {
  Id x = a.id(), y = b.id();
  if (x == Id::kAny || y == Id::kAny) return true;
  if (x == Id::kUnion) {
    for (const auto& f : a.fields()) {
      if (Comparable(*f.type, b)) return true;
    }
    return false;
  }
  if (y == Id::kUnion) return Comparable(b, a);
  if (IsNumericId(x) && IsNumericId(y)) return true;
  bool ta = x == Id::kDate || IsTimestampId(x);
  bool tb = y == Id::kDate || IsTimestampId(y);
  if (ta && tb) return true;
  if (x == Id::kString && IsScalarComparable(y) && y != Id::kInternalId) return true;
  if (y == Id::kString && IsScalarComparable(x) && x != Id::kInternalId) return true;
  if (IsScalarComparable(x) && IsScalarComparable(y)) return x == y;
  if (IsListLike(x) && IsListLike(y)) return Comparable(a.child(), b.child());
  if (x == Id::kStruct && y == Id::kStruct) {
    const auto& fa = a.fields();
    const auto& fb = b.fields();
    if (fa.size() != fb.size()) return false;
    for (size_t i = 0; i < fa.size(); ++i) {
      if (ToLower(fa[i].name) != ToLower(fb[i].name)) return false;
      if (!Comparable(*fa[i].type, *fb[i].type)) return false;
    }
    return true;
  }
  if (x == Id::kMap && y == Id::kMap) {
    return Comparable(a.map_key(), b.map_key()) && Comparable(a.map_value(), b.map_value());
  }
  if ((x == Id::kNode || x == Id::kRel) && x == y) return true;
  if (x == Id::kRecursiveRel && y == x) return true;
  return false;
}

bool BindComparison(const ScalarBindInput& in, BoundScalarFunction* fn, std::string* error) {
  const LogicalType& a = in.arg_types[0];
  const LogicalType& b = in.arg_types[1];
  // JSON beside a number, a date, a boolean ...: the document read as that type (Kùzu's
  // json_extract(d, 'age') < 50); beside STRING or JSON: the texts.
  const bool ja = a.id() == Id::kJson, jb = b.id() == Id::kJson;
  if (ja != jb) {
    const LogicalType& other = ja ? b : a;
    if (other.id() == Id::kString || other.id() == Id::kAny) {
      fn->arg_types = {LogicalType::String(), LogicalType::String()};
    } else if (!other.IsNested() && IsScalarComparable(other.id())) {
      fn->arg_types = {other, other};
    } else {
      *error = "Binder exception: Type Mismatch: Cannot compare types " + a.ToString() + " and " +
               b.ToString();
      return false;
    }
    fn->result_type = LogicalType::Bool();
    return true;
  }
  if (ja && jb) {
    fn->arg_types = {LogicalType::String(), LogicalType::String()};
    fn->result_type = LogicalType::Bool();
    return true;
  }
  if (!Comparable(a, b)) {
    *error = "Binder exception: Type Mismatch: Cannot compare types " + a.ToString() + " and " +
             b.ToString();
    return false;
  }
  fn->arg_types = {a, b};
  fn->result_type = LogicalType::Bool();
  return true;
}

enum class Cmp { kEq, kNe, kLt, kLe, kGt, kGe };

template <Cmp op>
Value CompareExec(const Value* args, size_t, const LogicalType&, FunctionContext&) {
  Comparison c = CompareForOperator(args[0], args[1]);
  switch (op) {
    case Cmp::kEq: return Value::Boolean(c.equal);
    case Cmp::kNe: return Value::Boolean(!c.equal);
    case Cmp::kGt: return Value::Boolean(c.greater);
    case Cmp::kGe: return Value::Boolean(c.greater || c.equal);
    case Cmp::kLt: return Value::Boolean(!(c.greater || c.equal));
    case Cmp::kLe: return Value::Boolean(!c.greater);
  }
  return Value::Boolean(false);
}

// Three-valued logic: NULL is unknown.
int Truth(const Value& v) { return v.is_null() ? -1 : (v.GetBool() ? 1 : 0); }
Value FromTruth(int t) { return t < 0 ? Value::Null(LogicalType::Bool()) : Value::Boolean(t == 1); }

Value AndExec(const Value* a, size_t, const LogicalType&, FunctionContext&) {
  int x = Truth(a[0]), y = Truth(a[1]);
  if (x == 0 || y == 0) return Value::Boolean(false);
  if (x < 0 || y < 0) return FromTruth(-1);
  return Value::Boolean(true);
}
Value OrExec(const Value* a, size_t, const LogicalType&, FunctionContext&) {
  int x = Truth(a[0]), y = Truth(a[1]);
  if (x == 1 || y == 1) return Value::Boolean(true);
  if (x < 0 || y < 0) return FromTruth(-1);
  return Value::Boolean(false);
}
Value XorExec(const Value* a, size_t, const LogicalType&, FunctionContext&) {
  int x = Truth(a[0]), y = Truth(a[1]);
  if (x < 0 || y < 0) return FromTruth(-1);
  return Value::Boolean(x != y);
}
Value NotExec(const Value* a, size_t, const LogicalType&, FunctionContext&) {
  int x = Truth(a[0]);
  return x < 0 ? FromTruth(-1) : Value::Boolean(x == 0);
}
Value IsNullExec(const Value* a, size_t, const LogicalType&, FunctionContext&) {
  return Value::Boolean(a[0].is_null());
}
Value IsNotNullExec(const Value* a, size_t, const LogicalType&, FunctionContext&) {
  return Value::Boolean(!a[0].is_null());
}

void AddComparison(RegistryBuilder& r, const std::string& name, ScalarExec exec) {
  r.Add(name, {Id::kAny, Id::kAny}, Id::kBool, exec).bind = BindComparison;
}

}  // namespace

void RegisterComparisonFunctions(RegistryBuilder& r) {
  AddComparison(r, "=", CompareExec<Cmp::kEq>);
  AddComparison(r, "<>", CompareExec<Cmp::kNe>);
  r.Alias("!=", "<>");
  AddComparison(r, "<", CompareExec<Cmp::kLt>);
  AddComparison(r, "<=", CompareExec<Cmp::kLe>);
  AddComparison(r, ">", CompareExec<Cmp::kGt>);
  AddComparison(r, ">=", CompareExec<Cmp::kGe>);
  r.Alias("equals", "=");
  r.Alias("not_equals", "<>");
  r.Alias("less_than", "<");
  r.Alias("less_than_equals", "<=");
  r.Alias("greater_than", ">");
  r.Alias("greater_than_equals", ">=");

  auto& and_fn = r.Add("and", {Id::kBool, Id::kBool}, Id::kBool, AndExec);
  and_fn.propagates_nulls = false;
  auto& or_fn = r.Add("or", {Id::kBool, Id::kBool}, Id::kBool, OrExec);
  or_fn.propagates_nulls = false;
  auto& xor_fn = r.Add("xor", {Id::kBool, Id::kBool}, Id::kBool, XorExec);
  xor_fn.propagates_nulls = false;
  auto& not_fn = r.Add("not", {Id::kBool}, Id::kBool, NotExec);
  not_fn.propagates_nulls = false;
  r.Add("is_null", {Id::kAny}, Id::kBool, IsNullExec).propagates_nulls = false;
  r.Add("is_not_null", {Id::kAny}, Id::kBool, IsNotNullExec).propagates_nulls = false;
}

}  // namespace graphdb::function::internal
