// Casting functions (to_int64, string, to_bool, uuid, blob, ...), NULL handling (coalesce,
// ifnull, nullif), blobs (encode, decode), random numbers (random, setseed, gen_random_uuid),
// sequences (nextval, currval: through FunctionContext::sequence_value), hash().
#include <chrono>
#include <cmath>
#include <cstring>

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
    *error = "Binder exception: Unsupported casting function from " + in.arg_types[0].ToString() +
             " to " + fn->result_type.ToString() + ".";
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

// ---- hash(x): Kùzu's 64-bit hash of a value of any type, the same number Kùzu gives.

constexpr uint64_t kNullHash = UINT64_MAX;  // a NULL, at the top or nested

// The 64-bit finaliser Kùzu calls murmurhash64 (nullprogram.com's "hash prospector" mix).
uint64_t MixHash(uint64_t x) {
  x ^= x >> 32;
  x *= 0xd6e8feb86659fd93ULL;
  x ^= x >> 32;
  x *= 0xd6e8feb86659fd93ULL;
  x ^= x >> 32;
  return x;
}

uint64_t CombineHashes(uint64_t a, uint64_t b) { return (a * 0xbf58476d1ce4e5b9ULL) ^ b; }

// Bytes in 8-byte little-endian blocks, the tail in a last block; the tail's bytes are widened
// as signed chars (as Kùzu's build on x86 does).
uint64_t HashBytes(std::string_view s) {
  uint64_t h = 0;
  size_t blocks = s.size() / 8;
  for (size_t i = 0; i < blocks; ++i) {
    uint64_t block = 0;
    for (size_t k = 0; k < 8; ++k) {
      block |= static_cast<uint64_t>(static_cast<unsigned char>(s[i * 8 + k])) << (8 * k);
    }
    h = CombineHashes(h, MixHash(block));
  }
  uint64_t last = 0;
  for (size_t k = 0; k < s.size() % 8; ++k) {
    last |= static_cast<uint64_t>(static_cast<int64_t>(static_cast<signed char>(s[blocks * 8 + k])))
            << (8 * k);
  }
  return CombineHashes(h, MixHash(last));
}

uint64_t HashOf(const Value& v);

// Structs (and what Kùzu stores as one): the first field's hash, then each next field's
// combined in front of it.
uint64_t HashFields(const std::vector<Value>& fields) {
  if (fields.empty()) return kNullHash;
  uint64_t h = HashOf(fields[0]);
  for (size_t i = 1; i < fields.size(); ++i) h = CombineHashes(HashOf(fields[i]), h);
  return h;
}

uint64_t HashList(const std::vector<Value>& items) {
  uint64_t h = kNullHash;
  for (const Value& item : items) h = CombineHashes(h, HashOf(item));
  return h;
}

uint64_t HashOf(const Value& v) {
  if (v.is_null()) return kNullHash;
  switch (v.type_id()) {
    case Id::kBool: return MixHash(v.GetBool() ? 1 : 0);
    case Id::kInt8:
    case Id::kInt16:
    case Id::kInt32:
    case Id::kInt64:
    case Id::kSerial:
    case Id::kDate:
    case Id::kTimestamp:
    case Id::kTimestampTz:
    case Id::kTimestampNs:
    case Id::kTimestampMs:
    case Id::kTimestampSec: return MixHash(static_cast<uint64_t>(v.GetInt()));
    case Id::kUInt8:
    case Id::kUInt16:
    case Id::kUInt32:
    case Id::kUInt64: return MixHash(v.GetUInt());
    case Id::kInt128:
    case Id::kDecimal:
    case Id::kUuid: {
      auto bits = static_cast<unsigned __int128>(v.GetInt128());
      // Kùzu keeps a UUID with its top bit flipped (to order it as a signed number).
      if (v.type_id() == Id::kUuid) bits ^= static_cast<unsigned __int128>(1) << 127;
      return MixHash(static_cast<uint64_t>(bits)) ^ MixHash(static_cast<uint64_t>(bits >> 64));
    }
    case Id::kFloat: {
      float f = v.GetFloat();
      if (f == 0.0f) return MixHash(0);  // 0 and -0 hash alike
      uint32_t bits;
      std::memcpy(&bits, &f, sizeof bits);
      return MixHash(bits);
    }
    case Id::kDouble: {
      double d = v.GetDouble();
      if (d == 0.0) return MixHash(0);
      uint64_t bits;
      std::memcpy(&bits, &d, sizeof bits);
      return MixHash(bits);
    }
    case Id::kString:
    case Id::kJson:
    case Id::kBlob: return HashBytes(v.GetString());
    case Id::kInterval: {
      Interval i = v.GetInterval();
      return CombineHashes(
          MixHash(static_cast<uint64_t>(static_cast<int64_t>(i.months))),
          CombineHashes(MixHash(static_cast<uint64_t>(static_cast<int64_t>(i.days))),
                        MixHash(static_cast<uint64_t>(i.micros))));
    }
    case Id::kInternalId:
    case Id::kNode:
    case Id::kRel: {
      InternalId id = v.GetId();
      return MixHash(id.offset) ^ MixHash(id.table);
    }
    case Id::kList:
    case Id::kArray: return HashList(v.children());
    case Id::kMap: {  // a list of (key, value) structs
      uint64_t h = kNullHash;
      for (const Value& entry : v.children()) h = CombineHashes(h, HashFields(entry.children()));
      return h;
    }
    case Id::kStruct:
    case Id::kRecursiveRel:  // (nodes, rels)
      return HashFields(v.children());
    case Id::kUnion: {  // the tag, then every member: NULL but the one it holds
      const size_t members = v.type().fields().size();
      uint64_t h = MixHash(v.GetUnionTag());
      for (size_t i = 0; i < members; ++i) {
        h = CombineHashes(i == v.GetUnionTag() ? HashOf(v.children()[0]) : kNullHash, h);
      }
      return h;
    }
    default: ThrowRuntime("Cannot hash data type " + v.type().ToString());
  }
}

Value HashExec(Args a, size_t, const LogicalType&, FunctionContext&) {
  return Value::UInt(Id::kUInt64, HashOf(a[0]));
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
      {"to_int8", Id::kInt8},
      {"to_int16", Id::kInt16},
      {"to_int32", Id::kInt32},
      {"to_int64", Id::kInt64},
      {"to_int128", Id::kInt128},
      {"to_uint8", Id::kUInt8},
      {"to_uint16", Id::kUInt16},
      {"to_uint32", Id::kUInt32},
      {"to_uint64", Id::kUInt64},
      {"to_float", Id::kFloat},
      {"to_double", Id::kDouble},
      {"to_string", Id::kString},
      {"to_bool", Id::kBool},
      {"to_date", Id::kDate},
      {"to_uuid", Id::kUuid},
      {"to_blob", Id::kBlob},
      {"to_serial", Id::kSerial},
      {"to_interval", Id::kInterval},
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
  coalesce.returns_argument_part = true;
  auto& ifnull = r.Add("ifnull", {Id::kAny, Id::kAny}, Id::kAny, CoalesceExec);
  ifnull.propagates_nulls = false;
  ifnull.bind = BindCommonArgs;
  ifnull.returns_argument_part = true;
  auto& nullif = r.Add("nullif", {Id::kAny, Id::kAny}, Id::kAny, NullIfExec);
  nullif.propagates_nulls = false;
  nullif.bind = BindCommonArgs;
  nullif.returns_argument_part = true;

  r.Add("encode", {Id::kString}, Id::kBlob, EncodeExec);
  r.Add("decode", {Id::kBlob}, Id::kString, DecodeExec);

  r.Add("random", {}, Id::kDouble, RandomExec).deterministic = false;
  r.Add("setseed", {Id::kDouble}, Id::kDouble, SetSeedExec).deterministic = false;
  r.Alias("set_seed", "setseed");
  r.Add("gen_random_uuid", {}, Id::kUuid, GenRandomUuidExec).deterministic = false;

  // hash(NULL) is Kùzu's hash of a NULL, not NULL.
  r.Add("hash", {Id::kAny}, Id::kUInt64, HashExec).propagates_nulls = false;

  r.Add("nextval", {Id::kString}, Id::kInt64, SequenceExec<true>).deterministic = false;
  r.Set("nextval").changes_database = true;
  r.Add("currval", {Id::kString}, Id::kInt64, SequenceExec<false>).deterministic = false;
}

}  // namespace internal

}  // namespace graphdb::function
