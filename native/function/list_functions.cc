// List functions: creation, size, extract, slice, concat/append/prepend, position/contains,
// reverse, sort, sum/product, distinct/unique/any_value, list_to_string, list_has_all, range.
#include <algorithm>
#include <unordered_set>

#include "common/interrupt.h"
#include "function/cast.h"
#include "function/function_internal.h"
#include "function/integer_range.h"
#include "function/value_ops.h"

namespace graphdb::function::internal {

namespace {

using Args = const Value*;

LogicalType ListOf(const LogicalType& list_or_any) {
  return LogicalType::List(ElementType(list_or_any));
}

// ---- list_creation

bool BindListCreation(const ScalarBindInput& in, BoundScalarFunction* fn, std::string* error) {
  LogicalType element = LogicalType::Any();
  for (const auto& t : in.arg_types) {
    auto c = CommonType(element, t);
    if (!c) {
      *error = "Binder exception: Cannot bind LIST_CREATION with parameter type " +
               element.ToString() + " and " + t.ToString() + ".";
      return false;
    }
    element = *c;
  }
  // Only NULLs, or no element: ANY, for the context to decide (as the literal [] does).
  fn->arg_types.assign(in.arg_types.size(), element);
  fn->result_type = LogicalType::List(element);
  return true;
}

Value ListCreationExec(Args a, size_t n, const LogicalType& result, FunctionContext& ctx) {
  ChargeBuilt(ctx, ListBytes(n));
  // Elements are kept as given: [[], [NULL]] holds a list of one NULL, which Kùzu's text form
  // prints as [] (issue 34, item 13).
  return Value::Nested(result, std::vector<Value>(a, a + n));
}

// ---- size

Value ListSizeExec(Args a, size_t, const LogicalType&, FunctionContext&) {
  return Value::Int64(static_cast<int64_t>(a[0].children().size()));
}

// ---- list_extract

bool BindListExtract(const ScalarBindInput& in, BoundScalarFunction* fn, std::string*) {
  fn->result_type = ElementType(in.arg_types[0]);
  return true;
}

Value ListExtractExec(Args a, size_t, const LogicalType& result, FunctionContext&) {
  const auto& c = a[0].children();
  int64_t idx = a[1].GetInt();
  auto len = static_cast<int64_t>(c.size());
  if (idx == 0) ThrowRuntime("List extract takes 1-based position.");
  if (idx > len || idx < -len) {
    ThrowRuntime("list_extract(list, index): index=" + std::to_string(idx) + " is out of range.");
  }
  const Value& v = idx > 0 ? c[static_cast<size_t>(idx - 1)] : c[static_cast<size_t>(len + idx)];
  if (v.is_null()) return Value::Null(result);
  return v;
}

std::string ListExtractNoMatch(std::string_view called, const std::vector<LogicalType>& types) {
  std::string upper = ToUpper(called);
  if (!types.empty()) {
    Id id = types[0].id();
    if (id != Id::kList && id != Id::kArray && id != Id::kString && id != Id::kAny) {
      std::string names;
      for (size_t i = 0; i < types.size(); ++i) {
        if (i) names += ",";
        names += types[i].ToString();
      }
      return "Binder exception: Cannot match a built-in function for given function " + upper +
             "(" + names + "). Supported inputs are\n(LIST,INT64) -> ANY\n(STRING,INT64) -> STRING";
    }
  }
  return "Binder exception: Function " + upper +
         " did not receive correct arguments:\nActual:   " + TypesText(types) +
         "\nExpected: (LIST,INT64) -> ANY\n          (STRING,INT64) -> STRING\n          "
         "(ARRAY,INT64) -> ANY";
}

// ---- list_slice

bool BindListSlice(const ScalarBindInput& in, BoundScalarFunction* fn, std::string*) {
  fn->result_type = ListOf(in.arg_types[0]);
  return true;
}

Value ListSliceExec(Args a, size_t, const LogicalType& result, FunctionContext& ctx) {
  const auto& c = a[0].children();
  size_t from, to;
  SliceRange(static_cast<int64_t>(c.size()), a[1].GetInt(), a[2].GetInt(), &from, &to);
  ChargeBuilt(ctx, ListBytes(to - from));
  return Value::Nested(result, std::vector<Value>(c.begin() + from, c.begin() + to));
}

// ---- concat / append / prepend

bool BindListConcat(const ScalarBindInput& in, BoundScalarFunction* fn, std::string* error) {
  auto common = CommonType(ListOf(in.arg_types[0]), ListOf(in.arg_types[1]));
  if (!common) {
    *error = "Binder exception: Cannot concatenate " + in.arg_types[0].ToString() + " and " +
             in.arg_types[1].ToString() + ".";
    return false;
  }
  LogicalType list = LogicalType::List(common->child());
  fn->arg_types = {list, list};
  fn->result_type = list;
  return true;
}

Value ListConcatExec(Args a, size_t, const LogicalType& result, FunctionContext& ctx) {
  const auto& x = a[0].children();
  const auto& y = a[1].children();
  ChargeBuilt(ctx, ListBytes(x.size() + y.size()));
  // Every element is kept, NULLs too: list_concat([], [NULL]) is [NULL], which Kùzu's text form
  // prints as [] (issue 34, item 13).
  std::vector<Value> out;
  out.reserve(x.size() + y.size());
  out.insert(out.end(), x.begin(), x.end());
  out.insert(out.end(), y.begin(), y.end());
  return Value::Nested(result, std::move(out));
}

bool BindListElement(const ScalarBindInput& in, BoundScalarFunction* fn, std::string* error,
                     size_t list_index) {
  const LogicalType& list_type = in.arg_types[list_index];
  const LogicalType& elem_type = in.arg_types[1 - list_index];
  auto common = CommonType(ElementType(list_type), elem_type);
  if (!common) {
    *error = "Binder exception: Cannot add an element of type " + elem_type.ToString() +
             " to a list of type " + list_type.ToString() + ".";
    return false;
  }
  fn->arg_types.assign(2, *common);
  fn->arg_types[list_index] = LogicalType::List(*common);
  fn->result_type = LogicalType::List(*common);
  return true;
}

bool BindListAppend(const ScalarBindInput& in, BoundScalarFunction* fn, std::string* error) {
  return BindListElement(in, fn, error, 0);
}

Value ListAppendExec(Args a, size_t, const LogicalType& result, FunctionContext& ctx) {
  const auto& c = a[0].children();
  ChargeBuilt(ctx, ListBytes(c.size() + 1));
  std::vector<Value> out;
  out.reserve(c.size() + 1);
  out.insert(out.end(), c.begin(), c.end());
  out.push_back(a[1]);
  return Value::Nested(result, std::move(out));
}

Value ListPrependExec(Args a, size_t, const LogicalType& result, FunctionContext& ctx) {
  ChargeBuilt(ctx, ListBytes(a[0].children().size() + 1));
  std::vector<Value> out;
  out.reserve(a[0].children().size() + 1);
  out.push_back(a[1]);
  const auto& c = a[0].children();
  out.insert(out.end(), c.begin(), c.end());
  return Value::Nested(result, std::move(out));
}

// ---- position / contains

bool ElementsComparable(const LogicalType& a, const LogicalType& b) {
  if (a.id() == Id::kAny || b.id() == Id::kAny) return true;
  if (CommonType(a, b)) return true;
  bool nested_a = a.IsNested() && a.id() != Id::kUnion;
  bool nested_b = b.IsNested() && b.id() != Id::kUnion;
  return !nested_a && !nested_b;  // unrelated scalars: never equal, no error
}

int64_t FindPosition(const Value& list, const Value& element) {
  const auto& c = list.children();
  for (size_t i = 0; i < c.size(); ++i) {
    if (c[i].is_null()) continue;
    if (CompareForOperator(c[i], element).equal) return static_cast<int64_t>(i) + 1;
  }
  return 0;
}

Value NeverFound(Args, size_t, const LogicalType& result, FunctionContext&) {
  if (result.id() == Id::kBool) return Value::Boolean(false);
  return Value::Int64(0);
}

template <size_t kListIndex>
bool BindSearch(const ScalarBindInput& in, BoundScalarFunction* fn, std::string* error,
                const char* fn_name) {
  const LogicalType& list_type = in.arg_types[kListIndex];
  const LogicalType& elem_type = in.arg_types[1 - kListIndex];
  LogicalType child = ElementType(list_type);
  if (!ElementsComparable(child, elem_type)) {
    *error = "Binder exception: Cannot compare " + child.ToString() + " and " +
             elem_type.ToString() + " in " + fn_name + " function.";
    return false;
  }
  if (child.id() != Id::kAny && elem_type.id() != Id::kAny && !CommonType(child, elem_type)) {
    fn->exec = NeverFound;
  }
  fn->arg_types = in.arg_types;
  return true;
}

bool BindPosition(const ScalarBindInput& in, BoundScalarFunction* fn, std::string* error) {
  return BindSearch<0>(in, fn, error, "list_position");
}
bool BindContains(const ScalarBindInput& in, BoundScalarFunction* fn, std::string* error) {
  return BindSearch<0>(in, fn, error, "list_contains");
}
bool BindIn(const ScalarBindInput& in, BoundScalarFunction* fn, std::string* error) {
  return BindSearch<1>(in, fn, error, "list_contains");
}

Value PositionExec(Args a, size_t, const LogicalType&, FunctionContext&) {
  return Value::Int64(FindPosition(a[0], a[1]));
}
Value ContainsExec(Args a, size_t, const LogicalType&, FunctionContext&) {
  return Value::Boolean(FindPosition(a[0], a[1]) != 0);
}
Value InExec(Args a, size_t, const LogicalType&, FunctionContext&) {
  return Value::Boolean(FindPosition(a[1], a[0]) != 0);
}

bool BindHasAll(const ScalarBindInput& in, BoundScalarFunction*, std::string* error) {
  LogicalType x = ElementType(in.arg_types[0]), y = ElementType(in.arg_types[1]);
  if (!ElementsComparable(x, y)) {
    *error = "Binder exception: Cannot compare " + x.ToString() + " and " + y.ToString() +
             " in list_has_all function.";
    return false;
  }
  return true;
}

// Time |a[0]| * |a[1]|: polls the statement as it goes.
Value HasAllExec(Args a, size_t, const LogicalType&, FunctionContext&) {
  uint64_t steps = 0;
  for (const auto& e : a[1].children()) {
    PollSteps(steps, a[0].children().size());
    if (e.is_null()) continue;
    if (FindPosition(a[0], e) == 0) return Value::Boolean(false);
  }
  return Value::Boolean(true);
}

// ---- reverse / sort

bool BindSameList(const ScalarBindInput& in, BoundScalarFunction* fn, std::string*) {
  fn->result_type = ListOf(in.arg_types[0]);
  return true;
}

Value ListReverseExec(Args a, size_t, const LogicalType& result, FunctionContext& ctx) {
  ChargeBuilt(ctx, ListBytes(a[0].children().size()));
  std::vector<Value> out(a[0].children().rbegin(), a[0].children().rend());
  return Value::Nested(result, std::move(out));
}

Value SortList(FunctionContext& ctx, const Value& list, const LogicalType& result, bool descending,
               bool nulls_first) {
  // The result, and the copy sorted before it is made.
  ChargeBuilt(ctx, ListBytes(list.children().size()));
  ChargeTransient(ctx, ListBytes(list.children().size()));
  std::vector<Value> values, nulls;
  for (const auto& v : list.children()) (v.is_null() ? nulls : values).push_back(v);
  uint64_t steps = 0;
  std::stable_sort(values.begin(), values.end(), [&](const Value& x, const Value& y) {
    PollSteps(steps);
    int c = CompareValues(x, y);
    return descending ? c > 0 : c < 0;
  });
  std::vector<Value> out;
  out.reserve(list.children().size());
  if (nulls_first) out.insert(out.end(), nulls.begin(), nulls.end());
  out.insert(out.end(), values.begin(), values.end());
  if (!nulls_first) out.insert(out.end(), nulls.begin(), nulls.end());
  return Value::Nested(result, std::move(out));
}

bool ParseOrder(const Value& v) {
  std::string s = ToUpper(v.GetString());
  if (s == "ASC") return false;
  if (s == "DESC") return true;
  ThrowRuntime("Invalid sortOrder: " + std::string(v.GetString()) + ".");
}

bool ParseNulls(const Value& v) {
  std::string s = ToUpper(v.GetString());
  if (s == "NULLS FIRST") return true;
  if (s == "NULLS LAST") return false;
  ThrowRuntime("Invalid nullOrder: " + std::string(v.GetString()) + ".");
}

Value ListSortExec(Args a, size_t n, const LogicalType& result, FunctionContext& ctx) {
  bool descending = n > 1 && ParseOrder(a[1]);
  bool nulls_first = n > 2 ? ParseNulls(a[2]) : true;
  return SortList(ctx, a[0], result, descending, nulls_first);
}

Value ListReverseSortExec(Args a, size_t n, const LogicalType& result, FunctionContext& ctx) {
  bool nulls_first = n > 1 ? ParseNulls(a[1]) : true;
  return SortList(ctx, a[0], result, true, nulls_first);
}

// ---- sum / product

template <bool kProduct>
bool BindListAggregate(const ScalarBindInput& in, BoundScalarFunction* fn, std::string* error) {
  LogicalType child = ElementType(in.arg_types[0]);
  Id id = child.id();
  if (id == Id::kAny) {
    child = LogicalType::Int64();
  } else if (!IsNumericId(id)) {
    *error = std::string("Binder exception: Unsupported inner data type for ") +
             (kProduct ? "LIST_PRODUCT" : "LIST_SUM") + ": " + child.ToString();
    return false;
  }
  if (id == Id::kSerial) child = LogicalType::Int64();
  fn->arg_types = {LogicalType::List(child)};
  fn->result_type = child;
  return true;
}

template <bool kProduct>
Value ListAggregateExec(Args a, size_t, const LogicalType& result, FunctionContext&) {
  Id id = result.id();
  if (IsFloatingId(id)) {
    double acc = kProduct ? 1.0 : 0.0;
    float facc = kProduct ? 1.0f : 0.0f;
    for (const auto& v : a[0].children()) {
      if (v.is_null()) continue;
      if (kProduct) {
        acc *= v.GetDouble();
        facc *= v.GetFloat();
      } else {
        acc += v.GetDouble();
        facc += v.GetFloat();
      }
    }
    return id == Id::kFloat ? Value::Float(facc) : Value::Double(acc);
  }
  int128_t acc = kProduct ? 1 : 0;
  for (const auto& v : a[0].children()) {
    if (v.is_null()) continue;
    int128_t x = GetInteger(v);
    int128_t r;
    bool overflow =
        kProduct ? __builtin_mul_overflow(acc, x, &r) : __builtin_add_overflow(acc, x, &r);
    if (overflow || !FitsIn(id, r)) {
      ThrowOverflow("Value " + Int128Text(acc) + (kProduct ? " * " : " + ") + Int128Text(x) +
                    " is not within " + LogicalTypeIdName(id) + " range.");
    }
    acc = r;
  }
  return MakeInteger(id, acc);
}

// ---- distinct / unique / any_value

struct ValueHash {
  size_t operator()(const Value& v) const { return HashValue(v); }
};
struct ValueEq {
  bool operator()(const Value& a, const Value& b) const { return ValuesEqual(a, b); }
};

// A hash set's entry (node, bucket) besides its value.
constexpr uint64_t kSeenEntryBytes = sizeof(Value) + 3 * sizeof(void*);

// The distinct values of `list`, each charged (its slot in the result, its set entry while the
// function runs).
std::vector<Value> DistinctValues(FunctionContext& ctx, const Value& list) {
  std::unordered_set<Value, ValueHash, ValueEq> seen;
  std::vector<Value> out;
  for (const auto& v : list.children()) {
    if (v.is_null()) continue;
    if (seen.insert(v).second) {
      ChargeBuilt(ctx, sizeof(Value) + kSeenEntryBytes);
      out.push_back(v);
    }
  }
  return out;
}

Value ListDistinctExec(Args a, size_t, const LogicalType& result, FunctionContext& ctx) {
  return Value::Nested(result, DistinctValues(ctx, a[0]));
}

Value ListUniqueExec(Args a, size_t, const LogicalType&, FunctionContext& ctx) {
  return Value::Int64(static_cast<int64_t>(DistinctValues(ctx, a[0]).size()));
}

bool BindElementResult(const ScalarBindInput& in, BoundScalarFunction* fn, std::string*) {
  fn->result_type = ElementType(in.arg_types[0]);
  return true;
}

Value ListAnyValueExec(Args a, size_t, const LogicalType& result, FunctionContext&) {
  for (const auto& v : a[0].children()) {
    if (!v.is_null()) return v;
  }
  return Value::Null(result);
}

Value HeadExec(Args a, size_t, const LogicalType& result, FunctionContext&) {
  const auto& c = a[0].children();
  if (c.empty() || c.front().is_null()) return Value::Null(result);
  return c.front();
}

Value LastExec(Args a, size_t, const LogicalType& result, FunctionContext&) {
  const auto& c = a[0].children();
  if (c.empty() || c.back().is_null()) return Value::Null(result);
  return c.back();
}

Value TailExec(Args a, size_t, const LogicalType& result, FunctionContext& ctx) {
  const auto& c = a[0].children();
  ChargeBuilt(ctx, ListBytes(c.empty() ? 0 : c.size() - 1));
  if (c.empty()) return Value::Nested(result, {});
  return Value::Nested(result, std::vector<Value>(c.begin() + 1, c.end()));
}

Value ListToStringExec(Args a, size_t, const LogicalType&, FunctionContext& ctx) {
  std::string out;
  bool first = true;
  size_t charged = 0;  // of out's size
  for (const auto& v : a[1].children()) {
    if (v.is_null()) continue;
    if (!first) out.append(a[0].GetString());
    out += v.ToString();
    first = false;
    if (out.size() - charged >= 4096) {
      ChargeBuilt(ctx, out.size() - charged);
      charged = out.size();
    }
  }
  ChargeBuilt(ctx, StringBytes(out.size()) - std::min<uint64_t>(charged, StringBytes(out.size())));
  return Value::String(out);
}

// ---- range

bool BindRange(const ScalarBindInput&, BoundScalarFunction* fn, std::string*) {
  Id id = fn->arg_types[0].id();
  fn->result_type = LogicalType::List(LogicalType(id == Id::kSerial ? Id::kInt64 : id));
  return true;
}

Value RangeExec(Args a, size_t n, const LogicalType& result, FunctionContext& ctx) {
  IntegerRange range(a, n, result.child().id());
  ChargeBuilt(ctx, ListBytes(range.size()));
  std::vector<Value> out;
  Value v;
  while (range.Next(&v)) {
    // A long range takes a while to build: stop when the statement is cancelled or times out.
    if ((out.size() & 0xFFFF) == 0xFFFF) CheckInterrupt();
    out.push_back(std::move(v));
  }
  return Value::Nested(result, std::move(out));
}

}  // namespace

}  // namespace graphdb::function::internal

namespace graphdb::function {

IntegerRange::IntegerRange(const Value* args, size_t num_args, LogicalTypeId element)
    : next_(internal::GetInteger(args[0])), end_(internal::GetInteger(args[1])),
      step_(num_args > 2 ? internal::GetInteger(args[2]) : 1), element_(element), done_(false) {
  if (step_ == 0) internal::ThrowRuntime("Step of range cannot be 0.");
  done_ = step_ > 0 ? next_ > end_ : next_ < end_;
}

uint64_t IntegerRange::size() const {
  if (done_) return 0;
  const int128_t count = (end_ - next_) / step_ + 1;
  return count > static_cast<int128_t>(UINT64_MAX) ? UINT64_MAX : static_cast<uint64_t>(count);
}

bool IntegerRange::Next(Value* out) {
  if (done_) return false;
  *out = internal::MakeInteger(element_, next_);
  // The last value when the step would pass the end (never computing a value beyond it).
  if ((step_ > 0 && end_ - next_ < step_) || (step_ < 0 && end_ - next_ > step_)) {
    done_ = true;
  } else {
    next_ += step_;
  }
  return true;
}

}  // namespace graphdb::function

namespace graphdb::function::internal {

void RegisterListFunctions(RegistryBuilder& r) {
  const Id L = Id::kList, A = Id::kArray, I = Id::kInt64, S = Id::kString;
  auto& creation = r.Add("list_creation", {Id::kAny}, L, ListCreationExec);
  creation.variadic = true;
  creation.propagates_nulls = false;
  creation.bind = BindListCreation;

  r.Add("size", {L}, I, ListSizeExec);
  r.Add("size", {A}, I, ListSizeExec);
  r.Add("size", {Id::kMap}, I, ListSizeExec);
  r.Add("size", {S}, I, [](Args a, size_t, const LogicalType&, FunctionContext&) {
    return Value::Int64(static_cast<int64_t>(CountGraphemes(a[0].GetString())));
  });

  // On strings, list_extract (also s[i]) gives "" past the end, array_extract the last
  // character; both give the first character before the start (Kùzu's behaviour).
  for (const char* name : {"list_extract", "array_extract"}) {
    r.Set(name).no_match = ListExtractNoMatch;
    auto& of_list = r.Add(name, {L, I}, Id::kAny, ListExtractExec);
    of_list.bind = BindListExtract;
    of_list.returns_argument_part = true;
    r.Add(name, {S, I}, S,
          std::string_view(name) == "list_extract" ? StringExtractExec : StringArrayExtractExec);
    auto& of_array = r.Add(name, {A, I}, Id::kAny, ListExtractExec);
    of_array.bind = BindListExtract;
    of_array.returns_argument_part = true;
  }
  r.Alias("list_element", "list_extract");

  r.Add("list_slice", {L, I, I}, L, ListSliceExec).bind = BindListSlice;
  r.Add("list_slice", {S, I, I}, S, StringSliceExec);
  r.Add("list_slice", {A, I, I}, L, ListSliceExec).bind = BindListSlice;
  r.Alias("array_slice", "list_slice");

  r.Add("list_concat", {L, L}, L, ListConcatExec).bind = BindListConcat;
  r.Alias("list_cat", "list_concat");
  r.Alias("array_concat", "list_concat");
  r.Alias("array_cat", "list_concat");
  r.Add("list_append", {L, Id::kAny}, L, ListAppendExec).bind = BindListAppend;
  r.Alias("array_append", "list_append");
  r.Alias("array_push_back", "list_append");
  r.Add("list_prepend", {L, Id::kAny}, L, ListPrependExec).bind = BindListAppend;
  r.Alias("array_prepend", "list_prepend");
  r.Alias("array_push_front", "list_prepend");

  r.Add("list_position", {L, Id::kAny}, I, PositionExec).bind = BindPosition;
  r.Alias("list_indexof", "list_position");
  r.Alias("array_position", "list_position");
  r.Alias("array_indexof", "list_position");
  r.Add("list_contains", {L, Id::kAny}, Id::kBool, ContainsExec).bind = BindContains;
  r.Alias("list_has", "list_contains");
  r.Alias("array_contains", "list_contains");
  r.Alias("array_has", "list_contains");
  r.Add("in", {Id::kAny, L}, Id::kBool, InExec).bind = BindIn;
  r.Add("list_has_all", {L, L}, Id::kBool, HasAllExec).bind = BindHasAll;
  r.Alias("array_has_all", "list_has_all");

  r.Add("list_reverse", {L}, L, ListReverseExec).bind = BindSameList;
  r.Alias("array_reverse", "list_reverse");
  r.Add("list_sort", {L}, L, ListSortExec).bind = BindSameList;
  r.Add("list_sort", {L, S}, L, ListSortExec).bind = BindSameList;
  r.Add("list_sort", {L, S, S}, L, ListSortExec).bind = BindSameList;
  r.Alias("array_sort", "list_sort");
  r.Add("list_reverse_sort", {L}, L, ListReverseSortExec).bind = BindSameList;
  r.Add("list_reverse_sort", {L, S}, L, ListReverseSortExec).bind = BindSameList;
  r.Alias("array_reverse_sort", "list_reverse_sort");

  r.Add("list_sum", {L}, Id::kAny, ListAggregateExec<false>).bind = BindListAggregate<false>;
  r.Add("list_product", {L}, Id::kAny, ListAggregateExec<true>).bind = BindListAggregate<true>;
  r.Add("list_distinct", {L}, L, ListDistinctExec).bind = BindSameList;
  r.Alias("array_distinct", "list_distinct");
  r.Add("list_unique", {L}, I, ListUniqueExec);
  r.Alias("array_unique", "list_unique");
  const std::pair<const char*, ScalarExec> kElementFunctions[] = {
      {"list_any_value", ListAnyValueExec}, {"head", HeadExec}, {"last", LastExec}};
  for (const auto& [name, exec] : kElementFunctions) {
    auto& element = r.Add(name, {L}, Id::kAny, exec);
    element.bind = BindElementResult;
    element.returns_argument_part = true;
  }
  r.Add("tail", {L}, L, TailExec).bind = BindSameList;
  r.Add("list_to_string", {S, L}, S, ListToStringExec);
  r.Alias("array_to_string", "list_to_string");

  static constexpr Id kRangeIds[] = {Id::kInt128, Id::kInt64,  Id::kInt32,  Id::kInt16,
                                     Id::kInt8,   Id::kSerial, Id::kUInt64, Id::kUInt32,
                                     Id::kUInt16, Id::kUInt8};
  for (Id id : kRangeIds) {
    r.Add("range", {id, id}, L, RangeExec).bind = BindRange;
    r.Add("range", {id, id, id}, L, RangeExec).bind = BindRange;
  }
}

}  // namespace graphdb::function::internal
