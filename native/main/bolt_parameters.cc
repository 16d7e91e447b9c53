#include "main/bolt_parameters.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "common/utf8.h"

namespace graphdb {

namespace {

// Lists and maps nest at most this many levels, a parameter's own value the first (as
// native/napi/convert.cc allows).
constexpr int kMaxDepth = 64;
// Values inside structures are only skipped; their nesting is bounded all the same.
constexpr int kMaxSkipDepth = 80;

constexpr int64_t kMicrosPerSecond = 1'000'000;

// Bytes that are not one PackStream map of parameters.
struct Malformed {
  std::string message;
};
// A value the engine cannot take: the parameter's name is added where it is known.
struct Refused {
  std::string message;
};

// The structure tags of Bolt's value types (src/bolt/values.ts TAG).
enum Tag : uint8_t {
  kNode = 0x4e,
  kRelationship = 0x52,
  kUnboundRelationship = 0x72,
  kPath = 0x50,
  kDate = 0x44,
  kTime = 0x54,
  kLocalTime = 0x74,
  kDateTime = 0x49,
  kDateTimeZoneId = 0x69,
  kLegacyDateTime = 0x46,
  kLegacyDateTimeZoneId = 0x66,
  kLocalDateTime = 0x64,
  kDuration = 0x45,
  kPoint2d = 0x58,
  kPoint3d = 0x59,
};

// A field of a structure: what the conversions of src/bolt/values.ts read of it.
struct Field {
  enum class Kind : uint8_t { kInteger, kString, kOther } kind = Kind::kOther;
  int64_t integer = 0;
  std::string text;
};

// The common type of list elements (UnifyParameterTypes), or Refused.
LogicalType UnifyTypes(const LogicalType& a, const LogicalType& b) {
  if (auto unified = UnifyParameterTypes(a, b)) return *unified;
  throw Refused{"list parameter mixes element types " + a.ToString() + " and " + b.ToString()};
}

// Whether `key` names an array index, which JavaScript orders before the other keys.
bool ArrayIndex(std::string_view key, uint64_t* index) {
  if (key.empty() || key.size() > 10 || (key.size() > 1 && key[0] == '0')) return false;
  uint64_t v = 0;
  for (char c : key) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + static_cast<uint64_t>(c - '0');
  }
  if (v > 0xfffffffeULL) return false;
  *index = v;
  return true;
}

std::string TwoDigits(int64_t v) {
  char buffer[8];
  std::snprintf(buffer, sizeof buffer, "%02lld", static_cast<long long>(v));
  return buffer;
}

class Decoder {
 public:
  Decoder(std::string_view bytes, bool utc_date_time) : bytes_(bytes), utc_(utc_date_time) {}

  ParameterMap Parameters() {
    const uint8_t marker = Byte("the map");
    uint64_t size;
    if ((marker & 0xf0) == 0xa0) {
      size = marker & 0x0f;
    } else if (marker >= 0xd8 && marker <= 0xda) {
      size = Size(marker - 0xd8, "map");
    } else {
      throw Malformed{"it does not start with a map marker"};
    }
    Count(size, 2, "the map");
    ParameterMap out;
    for (uint64_t i = 0; i < size; ++i) {
      std::string name = Key();
      Value value;
      try {
        value = Decode(0);
      } catch (Refused& refused) {
        refused.message = "parameter $" + name + ": " + refused.message;
        throw;
      }
      out.insert_or_assign(std::move(name), std::move(value));
    }
    if (at_ != bytes_.size()) throw Malformed{"bytes follow the map"};
    return out;
  }

 private:
  uint8_t Byte(const char* what) { return static_cast<uint8_t>(Take(1, what)[0]); }

  std::string_view Take(uint64_t n, const char* what) {
    if (n > bytes_.size() - at_) {
      throw Malformed{std::string("truncated ") + what + " at offset " + std::to_string(at_)};
    }
    std::string_view out = bytes_.substr(at_, n);
    at_ += n;
    return out;
  }

  uint64_t Unsigned(int bytes, const char* what) {
    std::string_view b = Take(static_cast<uint64_t>(bytes), what);
    uint64_t v = 0;
    for (char c : b) v = (v << 8) | static_cast<uint8_t>(c);
    return v;
  }

  int64_t Signed(int bytes, const char* what) {
    const uint64_t v = Unsigned(bytes, what);
    const int shift = 64 - 8 * bytes;
    return static_cast<int64_t>(v << shift) >> shift;
  }

  // The size after a sized marker: `width` 0, 1, 2 for 8, 16, 32 bits.
  uint64_t Size(int width, const char* what) { return Unsigned(1 << width, what); }

  // A count of items each taking at least `per_item` bytes must fit in the bytes left.
  void Count(uint64_t count, uint64_t per_item, const char* what) {
    if (count * per_item > bytes_.size() - at_) {
      throw Malformed{std::string(what) + " is longer than the bytes left"};
    }
  }

  std::string_view Text(uint64_t length) {
    std::string_view text = Take(length, "string");
    if (!IsValidUtf8(text)) throw Malformed{"a string is not valid UTF-8"};
    return text;
  }

  // A map key: a string.
  std::string Key() {
    const uint8_t marker = Byte("map key");
    uint64_t length;
    if ((marker & 0xf0) == 0x80) {
      length = marker & 0x0f;
    } else if (marker >= 0xd0 && marker <= 0xd2) {
      length = Size(marker - 0xd0, "string");
    } else {
      throw Malformed{"a map key is not a string"};
    }
    return std::string(Text(length));
  }

  Value Decode(int depth) {
    const uint8_t marker = Byte("value");
    if (marker < 0x80) return Value::Int64(marker);
    if (marker >= 0xf0) return Value::Int64(static_cast<int64_t>(marker) - 0x100);
    switch (marker & 0xf0) {
      case 0x80: return Value::String(Text(marker & 0x0f));
      case 0x90: return List(marker & 0x0f, depth);
      case 0xa0: return Map(marker & 0x0f, depth);
      case 0xb0: return Structure(marker & 0x0f, depth);
      default: break;
    }
    switch (marker) {
      case 0xc0: return Value::Null();
      case 0xc1: {
        const uint64_t bits = Unsigned(8, "float");
        double v;
        std::memcpy(&v, &bits, sizeof v);
        return Value::Double(v);
      }
      case 0xc2: return Value::Boolean(false);
      case 0xc3: return Value::Boolean(true);
      case 0xc8: return Value::Int64(Signed(1, "int8"));
      case 0xc9: return Value::Int64(Signed(2, "int16"));
      case 0xca: return Value::Int64(Signed(4, "int32"));
      case 0xcb: return Value::Int64(Signed(8, "int64"));
      case 0xcc:
      case 0xcd:
      case 0xce: return Value::Blob(Take(Size(marker - 0xcc, "bytes"), "bytes"));
      case 0xd0:
      case 0xd1:
      case 0xd2: return Value::String(Text(Size(marker - 0xd0, "string")));
      case 0xd4:
      case 0xd5:
      case 0xd6: return List(Size(marker - 0xd4, "list"), depth);
      case 0xd8:
      case 0xd9:
      case 0xda: return Map(Size(marker - 0xd8, "map"), depth);
      default: throw Malformed{"unknown PackStream marker " + std::to_string(marker)};
    }
  }

  static void CheckNesting(int depth) {
    if (depth >= kMaxDepth) throw Refused{"parameter nesting is too deep (more than 64 levels)"};
  }

  Value List(uint64_t length, int depth) {
    CheckNesting(depth);
    Count(length, 1, "a list");
    std::vector<Value> children;
    children.reserve(length);
    LogicalType element = LogicalType::Any();
    for (uint64_t i = 0; i < length; ++i) {
      children.push_back(Decode(depth + 1));
      element = UnifyTypes(element, children.back().type());
    }
    for (Value& child : children) child = WidenParameterValue(std::move(child), element);
    return Value::Nested(LogicalType::List(element), std::move(children));
  }

  // A map as a STRUCT, its fields in JavaScript's property order.
  Value Map(uint64_t size, int depth) {
    CheckNesting(depth);
    Count(size, 2, "a map");
    std::vector<std::pair<std::string, Value>> entries;
    std::unordered_map<std::string, size_t> place;
    entries.reserve(size);
    for (uint64_t i = 0; i < size; ++i) {
      std::string key = Key();
      Value value = Decode(depth + 1);
      auto [it, added] = place.emplace(key, entries.size());
      if (!added) {
        entries[it->second].second = std::move(value);  // given twice: first place, last value
      } else {
        entries.emplace_back(std::move(key), std::move(value));
      }
    }
    std::stable_sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) {
      uint64_t x = 0, y = 0;
      const bool ax = ArrayIndex(a.first, &x);
      const bool by = ArrayIndex(b.first, &y);
      if (ax && by) return x < y;
      return ax && !by;
    });
    std::vector<std::pair<std::string, LogicalType>> fields;
    std::vector<Value> children;
    fields.reserve(entries.size());
    children.reserve(entries.size());
    for (auto& [key, value] : entries) {
      fields.emplace_back(key, value.type());
      children.push_back(std::move(value));
    }
    return Value::Nested(LogicalType::Struct(std::move(fields)), std::move(children));
  }

  // Passes over one value (a structure's field that is neither an integer nor a string).
  void Skip(int depth) {
    if (depth > kMaxSkipDepth) throw Malformed{"values nest too deep"};
    const uint8_t marker = Byte("value");
    if (marker < 0x80 || marker >= 0xf0) return;
    uint64_t items = 0;
    switch (marker & 0xf0) {
      case 0x80: Text(marker & 0x0f); return;
      case 0x90: items = marker & 0x0f; break;
      case 0xa0: items = 2 * static_cast<uint64_t>(marker & 0x0f); break;
      case 0xb0:
        Take(1, "structure tag");
        items = marker & 0x0f;
        break;
      default:
        switch (marker) {
          case 0xc0:
          case 0xc2:
          case 0xc3: return;
          case 0xc1: Take(8, "float"); return;
          case 0xc8: Take(1, "int8"); return;
          case 0xc9: Take(2, "int16"); return;
          case 0xca: Take(4, "int32"); return;
          case 0xcb: Take(8, "int64"); return;
          case 0xcc:
          case 0xcd:
          case 0xce: Take(Size(marker - 0xcc, "bytes"), "bytes"); return;
          case 0xd0:
          case 0xd1:
          case 0xd2: Text(Size(marker - 0xd0, "string")); return;
          case 0xd4:
          case 0xd5:
          case 0xd6: items = Size(marker - 0xd4, "list"); break;
          case 0xd8:
          case 0xd9:
          case 0xda: items = 2 * Size(marker - 0xd8, "map"); break;
          default: throw Malformed{"unknown PackStream marker " + std::to_string(marker)};
        }
    }
    Count(items, 1, "a value");
    for (uint64_t i = 0; i < items; ++i) Skip(depth + 1);
  }

  Field ReadField(int depth) {
    Field f;
    const size_t start = at_;
    const uint8_t marker = Byte("value");
    if (marker < 0x80 || marker >= 0xf0 || (marker >= 0xc8 && marker <= 0xcb)) {
      at_ = start;
      f.kind = Field::Kind::kInteger;
      f.integer = Decode(depth).GetInt();
    } else if ((marker & 0xf0) == 0x80 || (marker >= 0xd0 && marker <= 0xd2)) {
      at_ = start;
      f.kind = Field::Kind::kString;
      f.text = std::string(Decode(depth).GetString());
    } else {
      at_ = start;
      Skip(depth);
    }
    return f;
  }

  static int64_t Integer(const Field& f, const std::string& what) {
    if (f.kind != Field::Kind::kInteger) throw Refused{what + " must be an integer"};
    return f.integer;
  }

  static int32_t Int32(const Field& f, const std::string& what) {
    const int64_t v = Integer(f, what);
    if (v < INT32_MIN || v > INT32_MAX)
      throw Refused{what + " is out of QuiverDB's range (32 bits)"};
    return static_cast<int32_t>(v);
  }

  // Seconds and nanoseconds as whole microseconds; sub-microsecond precision is refused.
  static int64_t Micros(__int128 seconds, const Field& nanos_field, const std::string& what) {
    const int64_t nanos = Integer(nanos_field, "the nanoseconds of a " + what);
    if (nanos % 1000 != 0) {
      throw Refused{"a " + what + " parameter has nanoseconds (" + std::to_string(nanos) +
                    ") that are not whole microseconds: QuiverDB keeps microseconds"};
    }
    const __int128 total = seconds * kMicrosPerSecond + nanos / 1000;
    if (total < INT64_MIN || total > INT64_MAX)
      throw Refused{"a " + what + " parameter is out of range"};
    return static_cast<int64_t>(total);
  }

  static int64_t Micros(const Field& seconds, const Field& nanos, const std::string& what) {
    return Micros(Integer(seconds, "the seconds of a " + what), nanos, what);
  }

  static void FieldCount(const std::vector<Field>& f, size_t count, const std::string& what) {
    if (f.size() != count) {
      throw Refused{"a " + what + " structure has " + std::to_string(f.size()) + " fields, not " +
                    std::to_string(count)};
    }
  }

  // A time of day in nanoseconds as ISO text: HH:MM:SS[.fraction].
  static std::string TimeText(int64_t nanos_of_day) {
    constexpr int64_t kNanosPerDay = 86'400LL * 1'000'000'000LL;
    if (nanos_of_day < 0 || nanos_of_day >= kNanosPerDay) {
      throw Refused{"a time parameter is outside the day"};
    }
    const int64_t seconds = nanos_of_day / 1'000'000'000;
    const int64_t fraction = nanos_of_day % 1'000'000'000;
    std::string text = TwoDigits(seconds / 3600) + ":" + TwoDigits(seconds / 60 % 60) + ":" +
                       TwoDigits(seconds % 60);
    if (fraction == 0) return text;
    char digits[16];
    std::snprintf(digits, sizeof digits, "%09lld", static_cast<long long>(fraction));
    std::string f = digits;
    while (!f.empty() && f.back() == '0') f.pop_back();
    return text + "." + f;
  }

  static std::string OffsetText(int32_t seconds) {
    if (seconds == 0) return "Z";
    const int64_t abs = seconds < 0 ? -static_cast<int64_t>(seconds) : seconds;
    std::string text =
        (seconds < 0 ? "-" : "+") + TwoDigits(abs / 3600) + ":" + TwoDigits(abs / 60 % 60);
    return abs % 60 == 0 ? text : text + ":" + TwoDigits(abs % 60);
  }

  Value Structure(uint64_t size, int depth) {
    const uint8_t tag = Byte("structure tag");
    Count(size, 1, "a structure");
    std::vector<Field> f;
    for (uint64_t i = 0; i < size; ++i) f.push_back(ReadField(depth + 1));
    switch (tag) {
      case kDate: FieldCount(f, 1, "Date"); return Value::Date(Int32(f[0], "the days of a Date"));
      case kLocalDateTime:
        FieldCount(f, 2, "LocalDateTime");
        return Value::Timestamp(LogicalTypeId::kTimestamp, Micros(f[0], f[1], "LocalDateTime"));
      case kDateTime:
      case kLegacyDateTime: {
        FieldCount(f, 3, "DateTime");
        const bool utc = tag == kDateTime;
        if (utc && !utc_)
          throw Refused{"this connection sends DateTime in its legacy form (tag 0x46)"};
        const int32_t offset = Int32(f[2], "the offset of a DateTime");
        // The legacy form counts seconds of the local time: the offset takes it back to UTC.
        const __int128 seconds =
            static_cast<__int128>(Integer(f[0], "the seconds of a DateTime")) - (utc ? 0 : offset);
        return Value::Timestamp(LogicalTypeId::kTimestampTz, Micros(seconds, f[1], "DateTime"));
      }
      case kDateTimeZoneId:
        FieldCount(f, 3, "DateTime");
        if (f[2].kind != Field::Kind::kString)
          throw Refused{"the zone of a DateTime must be a string"};
        return Value::Timestamp(LogicalTypeId::kTimestampTz, Micros(f[0], f[1], "DateTime"));
      case kLegacyDateTimeZoneId:
        throw Refused{
            "a DateTime with a zone name in the legacy form (Bolt 4.4 without the utc patch) "
            "cannot "
            "be taken: its UTC time depends on a zone database"};
      case kDuration: {
        FieldCount(f, 4, "Duration");
        Interval iv;
        iv.months = Int32(f[0], "the months of a Duration");
        iv.days = Int32(f[1], "the days of a Duration");
        iv.micros = Micros(f[2], f[3], "Duration");
        return Value::IntervalValue(iv);
      }
      case kLocalTime:
        FieldCount(f, 1, "LocalTime");
        return Value::String(TimeText(Integer(f[0], "the nanoseconds of a LocalTime")));
      case kTime:
        FieldCount(f, 2, "Time");
        return Value::String(TimeText(Integer(f[0], "the nanoseconds of a Time")) +
                             OffsetText(Int32(f[1], "the offset of a Time")));
      case kPoint2d:
      case kPoint3d: throw Refused{"QuiverDB has no spatial types: a Point cannot be a parameter"};
      case kNode:
      case kRelationship:
      case kUnboundRelationship:
      case kPath: throw Refused{"nodes, relationships and paths cannot be parameters"};
      default: {
        char hex[8];
        std::snprintf(hex, sizeof hex, "%x", tag);
        throw Refused{std::string("unknown structure 0x") + hex + " among the parameters"};
      }
    }
  }

  std::string_view bytes_;
  const bool utc_;
  size_t at_ = 0;
};

}  // namespace

Status DecodeBoltParameters(std::string_view bytes, bool utc_date_time, ParameterMap* out) {
  out->clear();
  try {
    *out = Decoder(bytes, utc_date_time).Parameters();
    return Status::OK();
  } catch (const Refused& refused) {
    out->clear();
    return Status(ErrorCode::kInvalidRequest, refused.message);
  } catch (const Malformed& malformed) {
    out->clear();
    return Status(ErrorCode::kInvalidRequest,
                  "the parameters are not a PackStream map: " + malformed.message);
  }
}

}  // namespace graphdb
