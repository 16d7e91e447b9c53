#include "function/value_ops.h"

#include <cmath>
#include <cstring>
#include <functional>

#include "function/cast.h"
#include "function/function_internal.h"
#include "types/temporal.h"

namespace graphdb::function {

using internal::Id;

namespace {

enum Family : int {
  kBoolFamily,
  kNumberFamily,
  kInstantFamily,
  kIntervalFamily,
  kStringFamily,
  kBlobFamily,
  kUuidFamily,
  kListFamily,
  kStructFamily,
  kMapFamily,
  kIdFamily,
  kNodeFamily,
  kRelFamily,
  kPathFamily,
  kOtherFamily,
};

Family FamilyOf(Id id) {
  if (internal::IsNumericId(id)) return kNumberFamily;
  if (id == Id::kDate || internal::IsTimestampId(id)) return kInstantFamily;
  switch (id) {
    case Id::kBool: return kBoolFamily;
    case Id::kInterval: return kIntervalFamily;
    case Id::kString:
    case Id::kJson: return kStringFamily;
    case Id::kBlob: return kBlobFamily;
    case Id::kUuid: return kUuidFamily;
    case Id::kList:
    case Id::kArray: return kListFamily;
    case Id::kStruct: return kStructFamily;
    case Id::kMap: return kMapFamily;
    case Id::kInternalId: return kIdFamily;
    case Id::kNode: return kNodeFamily;
    case Id::kRel: return kRelFamily;
    case Id::kRecursiveRel: return kPathFamily;
    default: return kOtherFamily;
  }
}

const Value& Unwrap(const Value& v) {
  const Value* p = &v;
  while (!p->is_null() && p->type_id() == Id::kUnion && !p->children().empty()) {
    p = &p->children()[0];
  }
  return *p;
}

template <typename T>
int Cmp(const T& a, const T& b) {
  return a < b ? -1 : (b < a ? 1 : 0);
}

constexpr double kTwo127 = 170141183460469231731687303715884105728.0;

// Integer x against double d (d not NaN).
int CompareIntDouble(int128_t x, double d) {
  if (d >= kTwo127) return -1;
  if (d < -kTwo127) return 1;
  double fl = std::floor(d);
  auto xi = static_cast<int128_t>(fl);
  if (x < xi) return -1;
  if (x > xi) return 1;
  return d > fl ? -1 : 0;
}

// Total order on numbers: NaN greatest and equal to itself.
int CompareNumbers(const Value& a, const Value& b) {
  bool fa = internal::IsFloatingId(a.type_id());
  bool fb = internal::IsFloatingId(b.type_id());
  if (a.type_id() == Id::kDecimal || b.type_id() == Id::kDecimal) {
    if (!fa && !fb) return internal::CompareDecimalWith(a, b);
    double x = internal::GetNumber(a), y = internal::GetNumber(b);
    bool nx = std::isnan(x), ny = std::isnan(y);
    if (nx || ny) return nx == ny ? 0 : (nx ? 1 : -1);
    return Cmp(x, y);
  }
  if (!fa && !fb) return Cmp(internal::GetInteger(a), internal::GetInteger(b));
  if (fa && fb) {
    double x = a.GetDouble(), y = b.GetDouble();
    bool nx = std::isnan(x), ny = std::isnan(y);
    if (nx || ny) return nx == ny ? 0 : (nx ? 1 : -1);
    return Cmp(x, y);
  }
  if (fa) {
    double x = a.GetDouble();
    if (std::isnan(x)) return 1;
    return -CompareIntDouble(internal::GetInteger(b), x);
  }
  double y = b.GetDouble();
  if (std::isnan(y)) return -1;
  return CompareIntDouble(internal::GetInteger(a), y);
}

int128_t IntervalTotal(const Interval& v) {
  return static_cast<int128_t>(v.months) * 30 * temporal::kMicrosPerDay +
         static_cast<int128_t>(v.days) * temporal::kMicrosPerDay + v.micros;
}

int CompareInstants(const Value& a, const Value& b) {
  if (a.type_id() == b.type_id()) return Cmp(a.GetInt(), b.GetInt());
  return Cmp(internal::InstantMicros(a), internal::InstantMicros(b));
}

int CompareIds(InternalId a, InternalId b) {
  if (a.table != b.table) return Cmp(a.table, b.table);
  return Cmp(a.offset, b.offset);
}

int CompareChildren(const std::vector<Value>& a, const std::vector<Value>& b) {
  size_t n = std::min(a.size(), b.size());
  for (size_t i = 0; i < n; ++i) {
    bool na = a[i].is_null(), nb = b[i].is_null();
    if (na || nb) {
      if (na && nb) continue;
      return na ? 1 : -1;
    }
    int c = CompareValues(a[i], b[i]);
    if (c) return c;
  }
  return Cmp(a.size(), b.size());
}

uint64_t Mix(uint64_t h) {
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ULL;
  h ^= h >> 33;
  return h;
}

uint64_t Combine(uint64_t seed, uint64_t h) {
  return Mix(seed * 0x9E3779B97F4A7C15ULL + h + 0x632BE59BD9B4E019ULL);
}

uint64_t HashInt128(int128_t v) {
  auto u = static_cast<unsigned __int128>(v);
  return Combine(Mix(static_cast<uint64_t>(u)), static_cast<uint64_t>(u >> 64));
}

uint64_t HashString(std::string_view s) { return std::hash<std::string_view>()(s); }

uint64_t HashImpl(const Value& raw) {
  const Value& v = Unwrap(raw);
  if (v.is_null()) return 0x5bd1e995ULL;
  Id id = v.type_id();
  switch (FamilyOf(id)) {
    case kBoolFamily: return Mix(v.GetBool() ? 0x1234567ULL : 0x7654321ULL);
    case kNumberFamily: {
      if (id == Id::kDecimal) {
        // Equal numbers hash alike: a whole DECIMAL as its integer, another as its double.
        int128_t unit = 1;
        for (uint32_t i = 0; i < v.decimal_scale(); ++i) unit *= 10;
        if (v.GetInt128() % unit == 0) return HashInt128(v.GetInt128() / unit);
      } else if (!internal::IsFloatingId(id)) {
        return HashInt128(internal::GetInteger(v));
      }
      double d = internal::GetNumber(v);
      if (std::isnan(d)) return 0x7ff8000000000000ULL;
      if (std::floor(d) == d && d < kTwo127 && d >= -kTwo127) {
        return HashInt128(static_cast<int128_t>(d));
      }
      uint64_t bits;
      std::memcpy(&bits, &d, sizeof bits);
      return Mix(bits);
    }
    case kInstantFamily: return Mix(static_cast<uint64_t>(internal::InstantMicros(v)) ^ 0xA5A5ULL);
    case kIntervalFamily: return HashInt128(IntervalTotal(v.GetInterval()));
    case kStringFamily:
    case kBlobFamily: return HashString(v.GetString());
    case kUuidFamily: return HashInt128(v.GetInt128());
    case kListFamily:
    case kStructFamily:
    case kMapFamily: {
      uint64_t h = 0x12345ULL + FamilyOf(id);
      for (const auto& c : v.children()) h = Combine(h, HashImpl(c));
      return h;
    }
    case kIdFamily:
    case kNodeFamily:
    case kRelFamily: {
      InternalId i = v.GetId();
      return Combine(Mix(i.table), i.offset);
    }
    case kPathFamily: {
      uint64_t h = 0x9876ULL;
      for (const auto& c : v.children()) h = Combine(h, HashImpl(c));
      return h;
    }
    default: return 0;
  }
}

bool IsStringComparable(Id id) {
  return id != Id::kString && id != Id::kAny && id != Id::kList && id != Id::kArray &&
         id != Id::kStruct && id != Id::kMap && id != Id::kUnion && id != Id::kNode &&
         id != Id::kRel && id != Id::kRecursiveRel && id != Id::kInternalId;
}

Comparison CompareChildrenForOperator(const std::vector<Value>& a, const std::vector<Value>& b) {
  size_t n = std::min(a.size(), b.size());
  for (size_t i = 0; i < n; ++i) {
    bool na = a[i].is_null(), nb = b[i].is_null();
    if (na || nb) {
      if (na && nb) continue;
      return {false, na};
    }
    Comparison c = CompareForOperator(a[i], b[i]);
    if (c.equal) continue;
    return {false, c.greater};
  }
  return {a.size() == b.size(), a.size() > b.size()};
}

}  // namespace

int CompareValues(const Value& raw_a, const Value& raw_b) {
  const Value& a = Unwrap(raw_a);
  const Value& b = Unwrap(raw_b);
  if (a.is_null() || b.is_null()) return a.is_null() == b.is_null() ? 0 : (a.is_null() ? 1 : -1);
  Family fa = FamilyOf(a.type_id()), fb = FamilyOf(b.type_id());
  if (fa != fb) return Cmp(static_cast<int>(fa), static_cast<int>(fb));
  switch (fa) {
    case kBoolFamily: return Cmp(a.GetBool(), b.GetBool());
    case kNumberFamily: return CompareNumbers(a, b);
    case kInstantFamily: return CompareInstants(a, b);
    case kIntervalFamily:
      return Cmp(IntervalTotal(a.GetInterval()), IntervalTotal(b.GetInterval()));
    case kStringFamily:
    case kBlobFamily: {
      int c = a.GetString().compare(b.GetString());
      return c < 0 ? -1 : (c > 0 ? 1 : 0);
    }
    case kUuidFamily:
      return Cmp(static_cast<unsigned __int128>(a.GetInt128()),
                 static_cast<unsigned __int128>(b.GetInt128()));
    case kListFamily:
    case kStructFamily:
    case kMapFamily:
    case kPathFamily: return CompareChildren(a.children(), b.children());
    case kIdFamily:
    case kNodeFamily:
    case kRelFamily: return CompareIds(a.GetId(), b.GetId());
    default: return 0;
  }
}

bool ValuesEqual(const Value& a, const Value& b) { return CompareValues(a, b) == 0; }

size_t HashValue(const Value& v) { return static_cast<size_t>(HashImpl(v)); }

Comparison CompareForOperator(const Value& raw_a, const Value& raw_b) {
  const Value& a = Unwrap(raw_a);
  const Value& b = Unwrap(raw_b);
  Id x = a.type_id(), y = b.type_id();
  if (x == Id::kString && IsStringComparable(y)) {
    return CompareForOperator(CastValue(a, b.type()), b);
  }
  if (y == Id::kString && IsStringComparable(x)) {
    return CompareForOperator(a, CastValue(b, a.type()));
  }
  Family fa = FamilyOf(x), fb = FamilyOf(y);
  if (fa == kNumberFamily && fb == kNumberFamily &&
      (internal::IsFloatingId(x) || internal::IsFloatingId(y))) {
    double dx = internal::IsFloatingId(x) ? a.GetDouble() : 0;
    double dy = internal::IsFloatingId(y) ? b.GetDouble() : 0;
    if ((internal::IsFloatingId(x) && std::isnan(dx)) ||
        (internal::IsFloatingId(y) && std::isnan(dy))) {
      return {false, false};
    }
    int c = CompareNumbers(a, b);
    return {c == 0, c > 0};
  }
  if (fa == fb && (fa == kListFamily || fa == kStructFamily || fa == kMapFamily)) {
    return CompareChildrenForOperator(a.children(), b.children());
  }
  int c = CompareValues(a, b);
  return {c == 0, c > 0};
}

bool CanSeekPrimaryKey(const LogicalType& key_type, const LogicalType& pk_type) {
  Id key = key_type.id() == Id::kSerial ? Id::kInt64 : key_type.id();
  Id pk = pk_type.id() == Id::kSerial ? Id::kInt64 : pk_type.id();
  if (key == Id::kAny || key == pk || key == Id::kString) return true;
  return internal::IsNumericId(key) && internal::IsNumericId(pk);
}

std::optional<Value> PrimaryKeyFor(const Value& raw_key, const LogicalType& pk_type) {
  if (raw_key.is_null()) return std::nullopt;
  const Id pk = pk_type.id() == Id::kSerial ? Id::kInt64 : pk_type.id();
  Value key = raw_key;
  if (key.type_id() == Id::kString && pk != Id::kString) key = CastValue(key, LogicalType(pk));
  if (key.type_id() == Id::kDecimal && pk != Id::kDecimal) {
    key = Value::Double(internal::GetNumber(key));  // whole or not, as a DOUBLE key would be
  }
  const Id id = key.type_id() == Id::kSerial ? Id::kInt64 : key.type_id();
  const bool key_floating = internal::IsFloatingId(id);
  if (key_floating && std::isnan(key.GetDouble())) return std::nullopt;
  if (id == pk) return key;
  if (!internal::IsNumericId(id) || !internal::IsNumericId(pk)) return std::nullopt;
  if (internal::IsIntegralId(pk)) {
    int128_t x;
    if (key_floating) {
      double d = key.GetDouble();
      if (std::floor(d) != d || d >= kTwo127 || d < -kTwo127) return std::nullopt;
      x = static_cast<int128_t>(d);
    } else {
      x = internal::GetInteger(key);
    }
    if (!internal::FitsIn(pk, x)) return std::nullopt;
    return internal::MakeInteger(pk, x);
  }
  // A FLOAT or DOUBLE column: the key must be a value of the column's type exactly.
  double d;
  if (key_floating) {
    d = key.GetDouble();
  } else {
    int128_t x = internal::GetInteger(key);
    d = static_cast<double>(x);
    if (d >= kTwo127 || static_cast<int128_t>(d) != x) return std::nullopt;
  }
  if (pk == Id::kFloat) {
    auto f = static_cast<float>(d);
    if (static_cast<double>(f) != d) return std::nullopt;
    return Value::Float(f);
  }
  return Value::Double(d);
}

}  // namespace graphdb::function
