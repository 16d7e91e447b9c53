// STRUCT, MAP, UNION and ARRAY functions: struct_pack/struct_extract, map/map_extract/
// map_keys/map_values/cardinality, union_value/union_tag/union_extract, array_value and the
// vector functions (cross product, cosine similarity, distances, inner/dot product).
#include <algorithm>
#include <cmath>

#include "function/cast.h"
#include "function/function_internal.h"
#include "function/value_ops.h"

namespace graphdb::function::internal {

namespace {

using Args = const Value*;

const Value* ConstantArg(const ScalarBindInput& in, size_t i) {
  return i < in.constant_args.size() ? in.constant_args[i] : nullptr;
}

std::string NameArg(const ScalarBindInput& in, size_t i) {
  return i < in.arg_names.size() ? in.arg_names[i] : std::string();
}

// ---- STRUCT

bool BindStructPack(const ScalarBindInput& in, BoundScalarFunction* fn, std::string* error) {
  std::vector<std::pair<std::string, LogicalType>> fields;
  for (size_t i = 0; i < in.arg_types.size(); ++i) {
    std::string name = NameArg(in, i);
    if (name.empty()) {
      const Value* c = ConstantArg(in, i);
      *error = "Binder exception: Cannot infer field name for " +
               (c ? c->ToString() : "argument " + std::to_string(i + 1)) + ".";
      return false;
    }
    fields.emplace_back(name, ResolveAnyType(in.arg_types[i], LogicalType::String()));
  }
  fn->result_type = LogicalType::Struct(fields);
  fn->arg_types.clear();
  for (const auto& f : fields) fn->arg_types.push_back(f.second);
  return true;
}

Value StructPackExec(Args a, size_t n, const LogicalType& result, FunctionContext& ctx) {
  ChargeBuilt(ctx, ListBytes(n));
  return Value::Nested(result, std::vector<Value>(a, a + n));
}

bool BindFieldAccess(const ScalarBindInput& in, BoundScalarFunction* fn, std::string* error,
                     const char* what) {
  const LogicalType& type = in.arg_types[0];
  if (type.id() == Id::kAny) {
    fn->result_type = LogicalType::Any();
    return true;
  }
  const Value* key = ConstantArg(in, 1);
  if (!key || key->is_null()) {
    if (type.fields().size() == 1) {
      fn->result_type = *type.fields()[0].type;
      return true;
    }
    *error = std::string("Binder exception: ") + what + " requires a literal field name.";
    return false;
  }
  auto idx = type.FieldIndex(key->GetString());
  if (!idx) {
    const char* kind = type.id() == Id::kUnion ? "union" : "struct";
    *error = "Binder exception: Invalid " + std::string(kind) +
             " field name: " + std::string(key->GetString()) + ".";
    return false;
  }
  fn->result_type = *type.fields()[*idx].type;
  return true;
}

bool BindStructExtract(const ScalarBindInput& in, BoundScalarFunction* fn, std::string* error) {
  return BindFieldAccess(in, fn, error, "struct_extract");
}

Value StructExtractExec(Args a, size_t, const LogicalType& result, FunctionContext&) {
  LogicalType type = a[0].type();
  auto idx = type.FieldIndex(a[1].GetString());
  if (!idx || *idx >= a[0].children().size()) return Value::Null(result);
  const Value& v = a[0].children()[*idx];
  return v.is_null() ? Value::Null(result) : v;
}

// ---- MAP

bool BindMap(const ScalarBindInput& in, BoundScalarFunction* fn, std::string*) {
  LogicalType key = ElementType(in.arg_types[0]);
  LogicalType value = ElementType(in.arg_types[1]);
  fn->result_type = LogicalType::Map(key, value);
  fn->arg_types = {LogicalType::List(key), LogicalType::List(value)};
  return true;
}

Value MapExec(Args a, size_t, const LogicalType& result, FunctionContext& ctx) {
  const auto& keys = a[0].children();
  const auto& values = a[1].children();
  if (keys.size() != values.size()) ThrowRuntime("Unaligned key list and value list.");
  // The entries' list, and a struct of two for each entry.
  ChargeBuilt(ctx, ListBytes(keys.size()) + keys.size() * ListBytes(2));
  if (!ctx.disable_map_key_check) {
    // The first key (in order) that is NULL or equals an earlier one, found through the keys'
    // hashes (ValuesEqual's equal values hash alike): linear in the keys, not quadratic.
    size_t first_null = keys.size();
    for (size_t i = 0; i < keys.size() && first_null == keys.size(); ++i) {
      if (keys[i].is_null()) first_null = i;
    }
    std::vector<std::pair<size_t, size_t>> hashed;  // (hash, index), non-NULL keys
    hashed.reserve(keys.size());
    uint64_t steps = 0;
    for (size_t i = 0; i < first_null; ++i) {
      PollSteps(steps);
      hashed.emplace_back(HashValue(keys[i]), i);
    }
    std::sort(hashed.begin(), hashed.end());
    size_t first_duplicate = keys.size();
    for (size_t a = 0; a < hashed.size();) {
      size_t b = a + 1;
      while (b < hashed.size() && hashed[b].first == hashed[a].first) ++b;
      for (size_t x = a; x < b; ++x) {  // keys of one hash, in index order
        for (size_t y = x + 1; y < b; ++y) {
          if (hashed[y].second < first_duplicate &&
              ValuesEqual(keys[hashed[x].second], keys[hashed[y].second])) {
            first_duplicate = hashed[y].second;
          }
        }
      }
      a = b;
    }
    if (first_duplicate < first_null) {
      ThrowRuntime("Found duplicate key: " + keys[first_duplicate].ToString() + " in map.");
    }
    if (first_null < keys.size()) ThrowRuntime("Null value key is not allowed in map.");
  }
  std::vector<Value> entries;
  entries.reserve(keys.size());
  for (size_t i = 0; i < keys.size(); ++i) {
    entries.push_back(Value::Nested(result.child(), {keys[i], values[i]}));
  }
  return Value::Nested(result, std::move(entries));
}

bool BindMapExtract(const ScalarBindInput& in, BoundScalarFunction* fn, std::string* error) {
  const LogicalType& map = in.arg_types[0];
  if (map.id() == Id::kAny) {
    fn->result_type = LogicalType::List(LogicalType::Any());
    return true;
  }
  const LogicalType& key = map.map_key();
  if (in.arg_types[1].id() != Id::kAny && !CanImplicitCast(in.arg_types[1], key) &&
      !CommonType(in.arg_types[1], key)) {
    *error = "Binder exception: Cannot look up a key of type " + in.arg_types[1].ToString() +
             " in " + map.ToString() + ".";
    return false;
  }
  if (CanImplicitCast(in.arg_types[1], key)) fn->arg_types[1] = key;
  fn->result_type = LogicalType::List(map.map_value());
  return true;
}

Value MapExtractExec(Args a, size_t, const LogicalType& result, FunctionContext& ctx) {
  std::vector<Value> out;
  for (const auto& entry : a[0].children()) {
    const Value& k = entry.children()[0];
    if (k.is_null()) continue;
    if (CompareForOperator(k, a[1]).equal) out.push_back(entry.children()[1]);
  }
  ChargeBuilt(ctx, ListBytes(out.size()));
  return Value::Nested(result, std::move(out));
}

bool BindMapKeys(const ScalarBindInput& in, BoundScalarFunction* fn, std::string*) {
  const LogicalType& map = in.arg_types[0];
  fn->result_type = LogicalType::List(map.id() == Id::kMap ? map.map_key() : LogicalType::Any());
  return true;
}
bool BindMapValues(const ScalarBindInput& in, BoundScalarFunction* fn, std::string*) {
  const LogicalType& map = in.arg_types[0];
  fn->result_type = LogicalType::List(map.id() == Id::kMap ? map.map_value() : LogicalType::Any());
  return true;
}

template <size_t kPart>
Value MapPartExec(Args a, size_t, const LogicalType& result, FunctionContext& ctx) {
  ChargeBuilt(ctx, ListBytes(a[0].children().size()));
  std::vector<Value> out;
  out.reserve(a[0].children().size());
  for (const auto& entry : a[0].children()) out.push_back(entry.children()[kPart]);
  return Value::Nested(result, std::move(out));
}

Value CardinalityExec(Args a, size_t, const LogicalType&, FunctionContext&) {
  return Value::Int64(static_cast<int64_t>(a[0].children().size()));
}

// ---- UNION

bool BindUnionValue(const ScalarBindInput& in, BoundScalarFunction* fn, std::string* error) {
  std::string name = NameArg(in, 0);
  if (name.empty()) {
    *error = "Binder exception: UNION_VALUE requires a named argument (name := value).";
    return false;
  }
  LogicalType member = ResolveAnyType(in.arg_types[0], LogicalType::String());
  fn->arg_types = {member};
  fn->result_type = LogicalType::Union({{name, member}});
  return true;
}

Value UnionValueExec(Args a, size_t, const LogicalType& result, FunctionContext&) {
  return Value::UnionValue(result, 0, a[0]);
}

Value UnionTagExec(Args a, size_t, const LogicalType&, FunctionContext&) {
  LogicalType type = a[0].type();
  uint32_t tag = a[0].GetUnionTag();
  if (tag >= type.fields().size()) return Value::Null(LogicalType::String());
  return Value::String(type.fields()[tag].name);
}

bool BindUnionExtract(const ScalarBindInput& in, BoundScalarFunction* fn, std::string* error) {
  return BindFieldAccess(in, fn, error, "union_extract");
}

Value UnionExtractExec(Args a, size_t, const LogicalType& result, FunctionContext&) {
  LogicalType type = a[0].type();
  auto idx = type.FieldIndex(a[1].GetString());
  if (!idx || *idx != a[0].GetUnionTag() || a[0].children().empty()) return Value::Null(result);
  const Value& v = a[0].children()[0];
  return v.is_null() ? Value::Null(result) : v;
}

// ---- ARRAY

bool BindArrayValue(const ScalarBindInput& in, BoundScalarFunction* fn, std::string* error) {
  LogicalType element = LogicalType::Any();
  for (const auto& t : in.arg_types) {
    auto c = CommonType(element, t);
    if (!c) {
      *error = "Binder exception: Cannot bind ARRAY_VALUE with parameter type " +
               element.ToString() + " and " + t.ToString() + ".";
      return false;
    }
    element = *c;
  }
  element = ResolveAnyType(element, LogicalType::Int64());
  fn->arg_types.assign(in.arg_types.size(), element);
  fn->result_type = LogicalType::Array(element, static_cast<uint32_t>(in.arg_types.size()));
  return true;
}

Value ArrayValueExec(Args a, size_t n, const LogicalType& result, FunctionContext& ctx) {
  ChargeBuilt(ctx, ListBytes(n));
  return Value::Nested(result, std::vector<Value>(a, a + n));
}

// The fixed size of a LIST/ARRAY argument when known at bind time (ARRAY type, or a constant).
std::optional<size_t> KnownSize(const ScalarBindInput& in, size_t i) {
  const LogicalType& t = in.arg_types[i];
  if (t.id() == Id::kArray) return t.array_size();
  const Value* c = ConstantArg(in, i);
  if (c && !c->is_null()) return c->children().size();
  return std::nullopt;
}

bool BindCrossProduct(const ScalarBindInput& in, BoundScalarFunction* fn, std::string* error) {
  LogicalType x = ElementType(in.arg_types[0]), y = ElementType(in.arg_types[1]);
  bool ok_x = IsNumericId(x.id()) || x.id() == Id::kAny;
  bool ok_y = IsNumericId(y.id()) || y.id() == Id::kAny;
  if (!ok_x || !ok_y) {
    *error =
        "Binder exception: ARRAY_CROSS_PRODUCT can only be applied on array of floating "
        "points or integers";
    return false;
  }
  auto sx = KnownSize(in, 0), sy = KnownSize(in, 1);
  bool same_type = x == y || x.id() == Id::kAny || y.id() == Id::kAny ||
                   in.arg_types[0].id() == Id::kList || in.arg_types[1].id() == Id::kList;
  if (!same_type || (sx && *sx != 3) || (sy && *sy != 3)) {
    *error =
        "Binder exception: ARRAY_CROSS_PRODUCT requires both arrays to have the same "
        "element type and size of 3";
    return false;
  }
  auto common = CommonType(x, y);
  LogicalType element = ResolveAnyType(common ? *common : x, LogicalType::Int64());
  fn->arg_types = {in.arg_types[0], in.arg_types[1]};
  fn->result_type = LogicalType::Array(element, 3);
  return true;
}

// Kùzu computes integer cross products in the element type, so they wrap around like
// fixed-width two's complement arithmetic: 184 * 410 - 189 * 161 = 45011 is -20525 in INT16.
int128_t WrapToWidth(Id id, int128_t v) {
  int bits = 64;
  switch (id) {
    case Id::kInt8:
    case Id::kUInt8: bits = 8; break;
    case Id::kInt16:
    case Id::kUInt16: bits = 16; break;
    case Id::kInt32:
    case Id::kUInt32: bits = 32; break;
    case Id::kInt128: return v;
    default: break;
  }
  using U = unsigned __int128;
  U mask = (U(1) << bits) - 1;
  U low = static_cast<U>(v) & mask;
  bool negative = !IsUnsignedIntId(id) && (low >> (bits - 1)) != 0;
  return negative ? static_cast<int128_t>(low) - (int128_t{1} << bits) : static_cast<int128_t>(low);
}

Value CrossProductExec(Args a, size_t, const LogicalType& result, FunctionContext&) {
  const auto& x = a[0].children();
  const auto& y = a[1].children();
  if (x.size() != 3 || y.size() != 3) {
    ThrowRuntime(
        "ARRAY_CROSS_PRODUCT requires both arrays to have the same element type and "
        "size of 3");
  }
  for (const auto& v : x) {
    if (v.is_null()) return Value::Null(result);
  }
  for (const auto& v : y) {
    if (v.is_null()) return Value::Null(result);
  }
  Id id = result.child().id();
  std::vector<Value> out;
  if (IsFloatingId(id)) {
    double a0 = GetNumber(x[0]), a1 = GetNumber(x[1]), a2 = GetNumber(x[2]);
    double b0 = GetNumber(y[0]), b1 = GetNumber(y[1]), b2 = GetNumber(y[2]);
    out = {MakeFloating(id, a1 * b2 - a2 * b1), MakeFloating(id, a2 * b0 - a0 * b2),
           MakeFloating(id, a0 * b1 - a1 * b0)};
  } else {
    int128_t a0 = GetInteger(x[0]), a1 = GetInteger(x[1]), a2 = GetInteger(x[2]);
    int128_t b0 = GetInteger(y[0]), b1 = GetInteger(y[1]), b2 = GetInteger(y[2]);
    int128_t r[3] = {a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0};
    for (int128_t v : r) out.push_back(MakeInteger(id, WrapToWidth(id, v)));
  }
  return Value::Nested(result, std::move(out));
}

template <const char* kName>
bool BindFloatArrayFunction(const ScalarBindInput& in, BoundScalarFunction* fn,
                            std::string* error) {
  LogicalType x = ElementType(in.arg_types[0]), y = ElementType(in.arg_types[1]);
  auto ok = [](const LogicalType& t) { return IsFloatingId(t.id()) || t.id() == Id::kAny; };
  if (!ok(x) || !ok(y)) {
    *error = std::string("Binder exception: ") + kName +
             " requires argument type to be FLOAT[] or DOUBLE[].";
    return false;
  }
  Id id = (x.id() == Id::kFloat && y.id() != Id::kDouble) ||
                  (y.id() == Id::kFloat && x.id() != Id::kDouble)
              ? Id::kFloat
              : Id::kDouble;
  fn->arg_types = {in.arg_types[0], in.arg_types[1]};
  fn->result_type = LogicalType(id);
  return true;
}

enum class VecOp { kCosine, kDistance, kSquaredDistance, kInner };

template <VecOp op>
Value VectorExec(Args a, size_t, const LogicalType& result, FunctionContext&) {
  const auto& x = a[0].children();
  const auto& y = a[1].children();
  if (x.size() != y.size()) {
    ThrowRuntime("Array arguments of vector functions must have the same size.");
  }
  double dot = 0, nx = 0, ny = 0, sq = 0;
  bool single = result.id() == Id::kFloat;
  float fdot = 0, fnx = 0, fny = 0, fsq = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    if (x[i].is_null() || y[i].is_null()) return Value::Null(result);
    double p = GetNumber(x[i]), q = GetNumber(y[i]);
    dot += p * q;
    nx += p * p;
    ny += q * q;
    sq += (p - q) * (p - q);
    auto fp = static_cast<float>(p), fq = static_cast<float>(q);
    fdot += fp * fq;
    fnx += fp * fp;
    fny += fq * fq;
    fsq += (fp - fq) * (fp - fq);
  }
  double r = 0;
  switch (op) {
    case VecOp::kCosine:
      r = single ? fdot / (std::sqrt(fnx) * std::sqrt(fny)) : dot / (std::sqrt(nx) * std::sqrt(ny));
      break;
    case VecOp::kDistance: r = single ? std::sqrt(fsq) : std::sqrt(sq); break;
    case VecOp::kSquaredDistance: r = single ? fsq : sq; break;
    case VecOp::kInner: r = single ? fdot : dot; break;
  }
  return MakeFloating(result.id(), r);
}

constexpr char kCosineName[] = "ARRAY_COSINE_SIMILARITY";
constexpr char kDistanceName[] = "ARRAY_DISTANCE";
constexpr char kSquaredName[] = "ARRAY_SQUARED_DISTANCE";
constexpr char kInnerName[] = "ARRAY_INNER_PRODUCT";
constexpr char kDotName[] = "ARRAY_DOT_PRODUCT";

Value InternalIdExec(Args a, size_t, const LogicalType&, FunctionContext&) {
  InternalId id;
  id.table = static_cast<uint64_t>(a[0].GetInt());
  id.offset = static_cast<uint64_t>(a[1].GetInt());
  return Value::Id(id);
}

}  // namespace

void RegisterNestedFunctions(RegistryBuilder& r) {
  const Id A = Id::kArray, M = Id::kMap;
  auto& pack = r.Add("struct_pack", {Id::kAny}, Id::kStruct, StructPackExec);
  pack.variadic = true;
  pack.propagates_nulls = false;
  pack.bind = BindStructPack;
  auto& struct_extract =
      r.Add("struct_extract", {Id::kStruct, Id::kString}, Id::kAny, StructExtractExec);
  struct_extract.bind = BindStructExtract;
  struct_extract.returns_argument_part = true;

  r.Add("map", {Id::kList, Id::kList}, M, MapExec).bind = BindMap;
  r.Alias("map_creation", "map");
  r.Add("map_extract", {M, Id::kAny}, Id::kList, MapExtractExec).bind = BindMapExtract;
  r.Alias("element_at", "map_extract");
  r.Add("map_keys", {M}, Id::kList, MapPartExec<0>).bind = BindMapKeys;
  r.Add("map_values", {M}, Id::kList, MapPartExec<1>).bind = BindMapValues;
  r.Add("cardinality", {M}, Id::kInt64, CardinalityExec);

  auto& uv = r.Add("union_value", {Id::kAny}, Id::kUnion, UnionValueExec);
  uv.bind = BindUnionValue;
  uv.propagates_nulls = false;
  r.Add("union_tag", {Id::kUnion}, Id::kString, UnionTagExec);
  auto& union_extract =
      r.Add("union_extract", {Id::kUnion, Id::kString}, Id::kAny, UnionExtractExec);
  union_extract.bind = BindUnionExtract;
  union_extract.returns_argument_part = true;

  auto& av = r.Add("array_value", {Id::kAny}, A, ArrayValueExec);
  av.variadic = true;
  av.propagates_nulls = false;
  av.bind = BindArrayValue;
  r.Add("array_cross_product", {A, A}, A, CrossProductExec).bind = BindCrossProduct;
  r.Add("array_cosine_similarity", {A, A}, Id::kDouble, VectorExec<VecOp::kCosine>).bind =
      BindFloatArrayFunction<kCosineName>;
  r.Add("array_distance", {A, A}, Id::kDouble, VectorExec<VecOp::kDistance>).bind =
      BindFloatArrayFunction<kDistanceName>;
  r.Add("array_squared_distance", {A, A}, Id::kDouble, VectorExec<VecOp::kSquaredDistance>).bind =
      BindFloatArrayFunction<kSquaredName>;
  r.Add("array_inner_product", {A, A}, Id::kDouble, VectorExec<VecOp::kInner>).bind =
      BindFloatArrayFunction<kInnerName>;
  r.Add("array_dot_product", {A, A}, Id::kDouble, VectorExec<VecOp::kInner>).bind =
      BindFloatArrayFunction<kDotName>;

  r.Add("internal_id", {Id::kInt64, Id::kInt64}, Id::kInternalId, InternalIdExec);
}

}  // namespace graphdb::function::internal
