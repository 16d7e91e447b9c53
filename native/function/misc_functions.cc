// Casting functions (to_int64, string, to_bool, uuid, blob, ...), NULL handling (coalesce,
// ifnull, nullif), blobs (encode, decode), random numbers (random, setseed, gen_random_uuid),
// sequences (nextval, currval: through FunctionContext::sequence_value).
#include <chrono>
#include <cmath>

#include "function/cast.h"
#include "function/function_internal.h"
#include "function/value_ops.h"

namespace graphdb::function {

namespace {

constexpr uint64_t kPcgMultiplier = 6364136223846793005ULL;
constexpr uint64_t kPcgIncrement = 1442695040888963407ULL;

// pcg32 (XSH-RR output of the previous state, default stream).
uint32_t NextRandom(uint64_t* state) {
  uint64_t old = *state;
  *state = old * kPcgMultiplier + kPcgIncrement;
  auto xorshifted = static_cast<uint32_t>(((old >> 18u) ^ old) >> 27u);
  auto rot = static_cast<uint32_t>(old >> 59u);
  return (xorshifted >> rot) | (xorshifted << ((-rot) & 31));
}

}  // namespace

int64_t EpochMicros() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

int64_t FunctionContext::Now() {
  if (!now_micros) now_micros = EpochMicros();
  return *now_micros;
}

uint64_t RandomStateFromSeed(uint64_t seed) {
  return (seed + kPcgIncrement) * kPcgMultiplier + kPcgIncrement;
}

namespace internal {

namespace {

using Args = const Value*;

// ---- Casting functions: the target type is the declared result type.

bool BindCastFunction(const ScalarBindInput& in, BoundScalarFunction* fn, std::string* error) {
  if (!CanCast(in.arg_types[0], fn->result_type)) {
    *error = "Binder exception: Unsupported casting function from " +
             in.arg_types[0].ToString() + " to " + fn->result_type.ToString() + ".";
    return false;
  }
  return true;
}

Value CastExec(Args a, size_t, const LogicalType& result, FunctionContext&) {
  return CastValue(a[0], result);
}

// ---- NULL handling

bool BindCommonArgs(const ScalarBindInput& in, BoundScalarFunction* fn, std::string* error) {
  LogicalType common = LogicalType::Any();
  for (const auto& t : in.arg_types) {
    auto c = CommonType(common, t);
    if (!c) {
      *error = "Binder exception: Cannot combine " + common.ToString() + " and " + t.ToString() +
               " in " + ToUpper(fn->name) + ".";
      return false;
    }
    common = *c;
  }
  fn->arg_types.assign(in.arg_types.size(), common);
  fn->result_type = common;
  return true;
}

Value CoalesceExec(Args a, size_t n, const LogicalType& result, FunctionContext&) {
  for (size_t i = 0; i < n; ++i) {
    if (!a[i].is_null()) return a[i];
  }
  return Value::Null(result);
}

Value NullIfExec(Args a, size_t, const LogicalType& result, FunctionContext&) {
  if (a[0].is_null()) return Value::Null(result);
  if (!a[1].is_null() && CompareForOperator(a[0], a[1]).equal) return Value::Null(result);
  return a[0];
}

// ---- Blobs

Value EncodeExec(Args a, size_t, const LogicalType&, FunctionContext&) {
  return Value::Blob(a[0].GetString());
}

Value DecodeExec(Args a, size_t, const LogicalType&, FunctionContext&) {
  std::string_view bytes = a[0].GetString();
  if (!IsValidUtf8(bytes)) {
    ThrowRuntime(
        "Failure in decode: could not convert blob to UTF8 string, the blob contained invalid "
        "UTF8 characters");
  }
  return Value::String(bytes);
}

// ---- Random

Value RandomExec(Args, size_t, const LogicalType&, FunctionContext& ctx) {
  return Value::Double(std::ldexp(static_cast<double>(NextRandom(&ctx.random_state)), -32));
}

Value SetSeedExec(Args a, size_t, const LogicalType& result, FunctionContext& ctx) {
  double seed = a[0].GetDouble();
  if (!(seed >= 0.0 && seed <= 1.0)) {
    ThrowRuntime("SETSEED accepts seed values between 0.0 and 1.0, inclusive.");
  }
  double scaled = seed * static_cast<double>(UINT64_MAX);
  uint64_t s = scaled >= 18446744073709551615.0 ? UINT64_MAX : static_cast<uint64_t>(scaled);
  ctx.random_state = RandomStateFromSeed(s);
  return Value::Null(result);
}

Value GenRandomUuidExec(Args, size_t, const LogicalType&, FunctionContext& ctx) {
  unsigned __int128 bits = 0;
  for (int i = 0; i < 4; ++i) bits = (bits << 32) | NextRandom(&ctx.random_state);
  // Version 4, variant 10xx.
  bits &= ~(static_cast<unsigned __int128>(0xF) << 76);
  bits |= static_cast<unsigned __int128>(0x4) << 76;
  bits &= ~(static_cast<unsigned __int128>(0x3) << 62);
  bits |= static_cast<unsigned __int128>(0x2) << 62;
  return Value::Uuid(static_cast<int128_t>(bits));
}

// ---- Sequences

template <bool kAdvance>
Value SequenceExec(Args a, size_t, const LogicalType&, FunctionContext& ctx) {
  if (!ctx.sequence_value) ThrowRuntime("Sequences are not available in this statement.");
  return Value::Int64(ctx.sequence_value(a[0].GetString(), kAdvance));
}

}  // namespace

void RegisterMiscFunctions(RegistryBuilder& r) {
  struct CastFn {
    const char* name;
    Id target;
  };
  const CastFn casts[] = {
      {"to_int8", Id::kInt8},       {"to_int16", Id::kInt16},     {"to_int32", Id::kInt32},
      {"to_int64", Id::kInt64},     {"to_int128", Id::kInt128},   {"to_uint8", Id::kUInt8},
      {"to_uint16", Id::kUInt16},   {"to_uint32", Id::kUInt32},   {"to_uint64", Id::kUInt64},
      {"to_float", Id::kFloat},     {"to_double", Id::kDouble},   {"to_string", Id::kString},
      {"to_bool", Id::kBool},       {"to_date", Id::kDate},       {"to_uuid", Id::kUuid},
      {"to_blob", Id::kBlob},       {"to_serial", Id::kSerial},   {"to_interval", Id::kInterval},
      {"to_timestamp_tz", Id::kTimestampTz},
  };
  for (const auto& c : casts) {
    r.Add(c.name, {Id::kAny}, c.target, CastExec).bind = BindCastFunction;
  }
  r.Alias("string", "to_string");
  r.Alias("tostring", "to_string");
  r.Alias("tointeger", "to_int64");
  r.Alias("tofloat", "to_double");
  r.Alias("toboolean", "to_bool");
  r.Alias("uuid", "to_uuid");
  r.Alias("blob", "to_blob");

  auto& coalesce = r.Add("coalesce", {Id::kAny}, Id::kAny, CoalesceExec);
  coalesce.variadic = true;
  coalesce.propagates_nulls = false;
  coalesce.bind = BindCommonArgs;
  auto& ifnull = r.Add("ifnull", {Id::kAny, Id::kAny}, Id::kAny, CoalesceExec);
  ifnull.propagates_nulls = false;
  ifnull.bind = BindCommonArgs;
  auto& nullif = r.Add("nullif", {Id::kAny, Id::kAny}, Id::kAny, NullIfExec);
  nullif.propagates_nulls = false;
  nullif.bind = BindCommonArgs;

  r.Add("encode", {Id::kString}, Id::kBlob, EncodeExec);
  r.Add("decode", {Id::kBlob}, Id::kString, DecodeExec);

  r.Add("random", {}, Id::kDouble, RandomExec).deterministic = false;
  r.Add("setseed", {Id::kDouble}, Id::kDouble, SetSeedExec).deterministic = false;
  r.Alias("set_seed", "setseed");
  r.Add("gen_random_uuid", {}, Id::kUuid, GenRandomUuidExec).deterministic = false;

  r.Add("nextval", {Id::kString}, Id::kInt64, SequenceExec<true>).deterministic = false;
  r.Add("currval", {Id::kString}, Id::kInt64, SequenceExec<false>).deterministic = false;
}

}  // namespace internal

}  // namespace graphdb::function
