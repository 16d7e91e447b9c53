#include "napi/convert.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "napi/addon_data.h"
#include "napi/kuzu_values.h"
#include "types/temporal.h"

namespace graphdb::napi {

Napi::BigInt BigIntFromInt128(Napi::Env env, int128_t v) {
  bool negative = v < 0;
  auto magnitude =
      negative ? -static_cast<unsigned __int128>(v) : static_cast<unsigned __int128>(v);
  uint64_t words[2] = {static_cast<uint64_t>(magnitude), static_cast<uint64_t>(magnitude >> 64)};
  return Napi::BigInt::New(env, negative ? 1 : 0, 2, words);
}

namespace {

// Lists, maps and structs nest at most this many levels, a parameter's own value the first
// (`depth` is 0 there): a value at depth kMaxDepth may be a scalar, not a container.
constexpr int kMaxDepth = 64;

void CheckNesting(Napi::Env env, int depth) {
  if (depth >= kMaxDepth) {
    throw Napi::TypeError::New(env, "parameter nesting is too deep (more than 64 levels)");
  }
}
constexpr double kMaxSafeInteger = 9007199254740991.0;

// The UTF-8 text of JS string `value` in buffer[0, length), and its length, when it fits in
// `size` bytes with its terminating null; npos when it may not have.
size_t TryUtf8(Napi::Env env, napi_value value, char* buffer, size_t size) {
  // A UTF-8 character takes at most 4 bytes and Node cuts a text only between characters: a
  // text that left room for 4 more bytes was not cut.
  constexpr size_t kMaxCharBytes = 4;
  size_t length = 0;
  NAPI_THROW_IF_FAILED(env, napi_get_value_string_utf8(env, value, buffer, size, &length),
                       std::string::npos);
  return length + kMaxCharBytes < size ? length : std::string::npos;
}

// f(the UTF-8 text of JS string `value` as a string_view), without allocating for short texts.
template <typename F>
auto WithUtf8(Napi::Env env, napi_value value, const F& f) {
  char buffer[256];
  size_t length = TryUtf8(env, value, buffer, sizeof buffer);
  if (length != std::string::npos) return f(std::string_view(buffer, length));
  return f(std::string_view(Napi::String(env, value).Utf8Value()));
}

// The common type of list elements (and of map keys, of map values): UnifyParameterTypes.
// `what` names them in the error: "list parameter mixes element types".
LogicalType UnifyTypes(Napi::Env env, const LogicalType& a, const LogicalType& b,
                       const char* what = "list parameter mixes element types") {
  if (auto unified = UnifyParameterTypes(a, b)) return *unified;
  throw Napi::TypeError::New(env, std::string(what) + " " + a.ToString() + " and " + b.ToString());
}

std::string IdString(InternalId id) {
  return std::to_string(id.table) + ":" + std::to_string(id.offset);
}

Napi::Value FromInteger(Napi::Env env, int64_t v) {
  if (v >= -static_cast<int64_t>(kMaxSafeInteger) && v <= static_cast<int64_t>(kMaxSafeInteger)) {
    return Napi::Number::New(env, static_cast<double>(v));
  }
  return Napi::BigInt::New(env, v);
}

Napi::Value FromUnsigned(Napi::Env env, uint64_t v) {
  if (v <= static_cast<uint64_t>(kMaxSafeInteger)) {
    return Napi::Number::New(env, static_cast<double>(v));
  }
  return Napi::BigInt::New(env, v);
}

Napi::Value FromInt128(Napi::Env env, int128_t v) {
  if (v >= -static_cast<int128_t>(kMaxSafeInteger) && v <= static_cast<int128_t>(kMaxSafeInteger)) {
    return Napi::Number::New(env, static_cast<double>(static_cast<int64_t>(v)));
  }
  return BigIntFromInt128(env, v);
}

// A JS string of UTF-8 text. ASCII text (most stored strings) goes as Latin-1, which V8 copies
// as it is instead of decoding it.
Napi::Value StringFromUtf8(Napi::Env env, std::string_view text) {
  bool ascii = true;
  for (char c : text) ascii &= static_cast<unsigned char>(c) < 0x80;
  napi_value out;
  napi_status status = ascii ? napi_create_string_latin1(env, text.data(), text.size(), &out)
                             : napi_create_string_utf8(env, text.data(), text.size(), &out);
  NAPI_THROW_IF_FAILED(env, status, Napi::Value());
  return Napi::Value(env, out);
}

// Refuses a JS string holding a lone surrogate: UTF-8 cannot carry one, and Node would turn
// it into U+FFFD without a word. `utf8` is the string as Node converted it: only a U+FFFD in
// it (EF BF BD) can stand for a lone surrogate, so other strings are not looked at again.
void CheckWellFormed(Napi::Env env, napi_value value, std::string_view utf8) {
  if (utf8.find("\xEF\xBF\xBD") == std::string_view::npos) return;
  size_t length = 0;
  NAPI_THROW_IF_FAILED_VOID(env, napi_get_value_string_utf16(env, value, nullptr, 0, &length));
  std::u16string units(length, u'\0');
  NAPI_THROW_IF_FAILED_VOID(
      env, napi_get_value_string_utf16(env, value, units.data(), length + 1, &length));
  for (size_t i = 0; i < units.size(); ++i) {
    char16_t unit = units[i];
    if (unit < 0xD800 || unit > 0xDFFF) continue;
    const bool paired =
        unit <= 0xDBFF && i + 1 < units.size() && units[i + 1] >= 0xDC00 && units[i + 1] <= 0xDFFF;
    if (paired) {
      ++i;  // a surrogate pair
      continue;
    }
    char where[64];
    std::snprintf(where, sizeof where, "U+%04X at index %zu", static_cast<unsigned>(unit), i);
    throw Napi::TypeError::New(env, std::string("a string parameter holds a lone surrogate (") +
                                        where + "), which is not Unicode text");
  }
}

// The name of `object`'s constructor ("Set", "ArrayBuffer", a class name), or "" when it has
// none; never throws (a getter on `constructor` might).
std::string ConstructorName(Napi::Env env, napi_value object) {
  napi_value ctor;
  napi_value name;
  napi_valuetype type;
  std::string out;
  if (napi_get_named_property(env, object, "constructor", &ctor) == napi_ok &&
      napi_typeof(env, ctor, &type) == napi_ok && type == napi_function &&
      napi_get_named_property(env, ctor, "name", &name) == napi_ok &&
      napi_typeof(env, name, &type) == napi_ok && type == napi_string) {
    char buffer[128];
    size_t length = 0;
    if (napi_get_value_string_utf8(env, name, buffer, sizeof buffer, &length) == napi_ok) {
      out.assign(buffer, length);
    }
  }
  bool pending = false;
  if (napi_is_exception_pending(env, &pending) == napi_ok && pending) {
    napi_value ignored;
    napi_get_and_clear_last_exception(env, &ignored);
  }
  return out;
}

// Whether `object`'s prototype is Object.prototype or null: an object literal,
// Object.create(null), JSON.parse's objects. Class instances, Sets, ArrayBuffers, RegExps and
// the like are not: their properties are not what they hold.
bool IsPlainObject(Napi::Env env, napi_value object) {
  napi_value prototype;
  NAPI_THROW_IF_FAILED(env, napi_get_prototype(env, object, &prototype), false);
  napi_valuetype type;
  NAPI_THROW_IF_FAILED(env, napi_typeof(env, prototype, &type), false);
  if (type == napi_null) return true;
  bool same = false;
  NAPI_THROW_IF_FAILED(
      env, napi_strict_equals(env, prototype, GetAddonData(env).object_prototype.Value(), &same),
      false);
  return same;
}

// A JS Map as a MAP: keys of one type, values of one type (INT64 widened to DOUBLE as in lists).
Value MapToValue(Napi::Env env, Napi::Object map, int depth) {
  CheckNesting(env, depth);
  Napi::Object iterator = map.Get("entries").As<Napi::Function>().Call(map, {}).As<Napi::Object>();
  Napi::Function next = iterator.Get("next").As<Napi::Function>();
  std::vector<std::pair<Value, Value>> pairs;
  LogicalType key_type = LogicalType::Any();
  LogicalType value_type = LogicalType::Any();
  for (;;) {
    Napi::Object step = next.Call(iterator, {}).As<Napi::Object>();
    if (step.Get("done").ToBoolean()) break;
    Napi::Array entry = step.Get("value").As<Napi::Array>();
    Value key = ToValue(env, entry.Get(0u), depth + 1);
    Value value = ToValue(env, entry.Get(1u), depth + 1);
    key_type = UnifyTypes(env, key_type, key.type(), "Map parameter mixes key types");
    value_type = UnifyTypes(env, value_type, value.type(), "Map parameter mixes value types");
    pairs.emplace_back(std::move(key), std::move(value));
  }
  LogicalType type = LogicalType::Map(key_type, value_type);
  std::vector<Value> entries;
  entries.reserve(pairs.size());
  for (auto& [key, value] : pairs) {
    entries.push_back(Value::Nested(type.child(), {WidenParameterValue(key, key_type),
                                                   WidenParameterValue(value, value_type)}));
  }
  return Value::Nested(type, std::move(entries));
}

// A whole number field of a typed parameter, within [min, max].
int64_t TypedField(Napi::Env env, Napi::Object object, const char* name, int64_t min, int64_t max) {
  Napi::Value field = object.Get(name);
  int64_t v = 0;
  if (field.IsBigInt()) {
    bool lossless = false;
    v = field.As<Napi::BigInt>().Int64Value(&lossless);
    if (!lossless) {
      throw Napi::RangeError::New(
          env, std::string("typed parameter field '") + name + "' is out of range");
    }
  } else if (field.IsNumber()) {
    double d = field.As<Napi::Number>().DoubleValue();
    if (!std::isfinite(d) || std::trunc(d) != d || std::fabs(d) > kMaxSafeInteger) {
      throw Napi::TypeError::New(
          env, std::string("typed parameter field '") + name + "' must be a whole number");
    }
    v = static_cast<int64_t>(d);
  } else {
    throw Napi::TypeError::New(
        env, std::string("typed parameter field '") + name + "' must be a number or bigint");
  }
  if (v < min || v > max) {
    throw Napi::RangeError::New(
        env, std::string("typed parameter field '") + name + "' is out of range");
  }
  return v;
}

// A TypedParameter (src/native/addon.ts): a DATE, TIMESTAMP, TIMESTAMP_TZ or INTERVAL given by
// its parts, or a DOUBLE whatever its value (a whole number would be an INT64), for values
// JavaScript has no type of its own for (a protocol's typed values).
Value TypedParameterToValue(Napi::Env env, Napi::Object object) {
  Napi::Value type_value = object.Get("type");
  std::string type = type_value.IsString() ? type_value.As<Napi::String>().Utf8Value() : "";
  if (type == "DOUBLE") {
    Napi::Value value = object.Get("value");
    if (!value.IsNumber())
      throw Napi::TypeError::New(env, "a DOUBLE typed parameter needs a number value");
    return Value::Double(value.As<Napi::Number>().DoubleValue());
  }
  constexpr int64_t kInt32Min = INT32_MIN;
  constexpr int64_t kInt32Max = INT32_MAX;
  if (type == "DATE") {
    return Value::Date(static_cast<int32_t>(TypedField(env, object, "days", kInt32Min, kInt32Max)));
  }
  if (type == "TIMESTAMP" || type == "TIMESTAMP_TZ") {
    int64_t micros = TypedField(env, object, "micros", INT64_MIN, INT64_MAX);
    return Value::Timestamp(
        type == "TIMESTAMP" ? LogicalTypeId::kTimestamp : LogicalTypeId::kTimestampTz, micros);
  }
  if (type == "INTERVAL") {
    Interval iv;
    iv.months = static_cast<int32_t>(TypedField(env, object, "months", kInt32Min, kInt32Max));
    iv.days = static_cast<int32_t>(TypedField(env, object, "days", kInt32Min, kInt32Max));
    iv.micros = TypedField(env, object, "micros", INT64_MIN, INT64_MAX);
    return Value::IntervalValue(iv);
  }
  throw Napi::TypeError::New(env, "unknown typed parameter type '" + type + "'");
}

void SetProperties(Napi::Env env, Napi::Object& object, const ValueHeap& heap, bool typed) {
  for (size_t i = 0; i < heap.children.size(); ++i) {
    object.Set(heap.names[i], FromValue(env, heap.children[i], typed));
  }
}

// A TypedParameter object of `type` with its parts (FromValue's typed form).
Napi::Value TypedObject(Napi::Env env, const char* type, int64_t months, int64_t days,
                        int64_t micros) {
  AddonData& data = GetAddonData(env);
  if (data.typed_parameter_ctor.IsEmpty()) {
    throw Napi::Error::New(env, "the typed parameter class is not set (setTypedParameterClass)");
  }
  return data.typed_parameter_ctor.New(
      {Napi::String::New(env, type), Napi::Number::New(env, static_cast<double>(months)),
       Napi::Number::New(env, static_cast<double>(days)), Napi::BigInt::New(env, micros)});
}

}  // namespace

Value ToValue(Napi::Env env, Napi::Value value, int depth) {
  switch (value.Type()) {
    case napi_undefined:
    case napi_null: return Value::Null();
    case napi_boolean: return Value::Boolean(value.As<Napi::Boolean>().Value());
    case napi_number: {
      double d = value.As<Napi::Number>().DoubleValue();
      if (std::isfinite(d) && std::trunc(d) == d && std::fabs(d) <= kMaxSafeInteger) {
        return Value::Int64(static_cast<int64_t>(d));
      }
      return Value::Double(d);
    }
    case napi_bigint: {
      int sign = 0;
      size_t count = 2;
      uint64_t words[2] = {0, 0};
      value.As<Napi::BigInt>().ToWords(&sign, &count, words);
      auto magnitude = (static_cast<unsigned __int128>(words[1]) << 64) | words[0];
      // INT128 holds -2^127 .. 2^127 - 1.
      const auto limit = (static_cast<unsigned __int128>(1) << 127) - (sign ? 0 : 1);
      if (count > 2 || magnitude > limit) {
        throw Napi::RangeError::New(env, "bigint parameter is outside the INT128 range");
      }
      auto v = static_cast<int128_t>(sign ? -magnitude : magnitude);
      if (v >= INT64_MIN && v <= INT64_MAX) return Value::Int64(static_cast<int64_t>(v));
      return Value::Int128(v);
    }
    case napi_string:
      return WithUtf8(env, value, [&](std::string_view text) {
        CheckWellFormed(env, value, text);
        return Value::String(text);
      });
    case napi_object: {
      if (value.IsArray()) {
        CheckNesting(env, depth);
        auto array = value.As<Napi::Array>();
        const uint32_t length = array.Length();
        std::vector<Value> children;
        children.reserve(length);
        LogicalType element = LogicalType::Any();
        for (uint32_t i = 0; i < length; ++i) {
          children.push_back(ToValue(env, array.Get(i), depth + 1));
          element = UnifyTypes(env, element, children.back().type());
        }
        // Only elements UnifyParameterTypes widened change; the others stay as they are.
        for (auto& child : children) child = WidenParameterValue(std::move(child), element);
        return Value::Nested(LogicalType::List(element), std::move(children));
      }
      // Buffers are Uint8Arrays. (Node's IsBuffer() holds for every typed array and DataView.)
      if (value.IsTypedArray()) {
        auto array = value.As<Napi::TypedArray>();
        if (array.TypedArrayType() == napi_uint8_array) {
          auto bytes = value.As<Napi::Uint8Array>();
          return Value::Blob(
              std::string_view(reinterpret_cast<const char*>(bytes.Data()), bytes.ElementLength()));
        }
        throw Napi::TypeError::New(env, "only Uint8Array typed arrays can be parameters");
      }
      if (value.IsDate()) {
        double ms = value.As<Napi::Date>().ValueOf();
        if (!std::isfinite(ms)) throw Napi::TypeError::New(env, "invalid Date parameter");
        return Value::Timestamp(LogicalTypeId::kTimestamp, static_cast<int64_t>(ms) * 1000);
      }
      Napi::Object object = value.As<Napi::Object>();
      if (!IsPlainObject(env, value)) {
        AddonData& data = GetAddonData(env);
        if (object.InstanceOf(data.map_ctor.Value())) {
          return MapToValue(env, object, depth);
        }
        if (!data.typed_parameter_ctor.IsEmpty() &&
            object.InstanceOf(data.typed_parameter_ctor.Value())) {
          return TypedParameterToValue(env, object);
        }
        std::string name = ConstructorName(env, value);
        std::string what = name.empty() || name == "Object"
                               ? std::string("an object whose prototype is not Object.prototype")
                           : std::string("AEIOU").find(name[0]) != std::string::npos
                               ? "an " + name + " object"
                               : "a " + name + " object";
        throw Napi::TypeError::New(
            env, what +
                     " cannot be a query parameter: give a plain object (STRUCT), a Map (MAP), an "
                     "array (LIST), a Date (TIMESTAMP) or a Buffer or Uint8Array (BLOB)");
      }
      CheckNesting(env, depth);
      Napi::Array keys = object.GetPropertyNames();
      std::vector<std::pair<std::string, LogicalType>> fields;
      std::vector<Value> children;
      for (uint32_t i = 0; i < keys.Length(); ++i) {
        std::string key = keys.Get(i).ToString().Utf8Value();
        children.push_back(ToValue(env, object.Get(key), depth + 1));
        fields.emplace_back(key, children.back().type());
      }
      return Value::Nested(LogicalType::Struct(std::move(fields)), std::move(children));
    }
    default: throw Napi::TypeError::New(env, "functions and symbols cannot be query parameters");
  }
}

void Utf8Into(Napi::Env env, napi_value value, std::string& out) {
  if (out.capacity() < 64) out.reserve(64);
  out.resize(out.capacity());  // stores only the characters beyond the old size
  // data() has size() + 1 bytes: the terminating null goes where std::string keeps one.
  size_t length = TryUtf8(env, value, out.data(), out.size() + 1);
  if (length == std::string::npos) {
    NAPI_THROW_IF_FAILED_VOID(env, napi_get_value_string_utf8(env, value, nullptr, 0, &length));
    out.resize(length);
    NAPI_THROW_IF_FAILED_VOID(
        env, napi_get_value_string_utf8(env, value, out.data(), out.size() + 1, &length));
  }
  out.resize(length);
}

ParameterMap ToParameterMap(Napi::Env env, Napi::Value params) {
  ParameterMap out;
  if (params.IsUndefined() || params.IsNull()) return out;
  if (!params.IsObject() || params.IsArray()) {
    throw Napi::TypeError::New(env, "parameters must be an object");
  }
  Napi::Object object = params.As<Napi::Object>();
  Napi::Array keys = object.GetPropertyNames();
  const uint32_t count = keys.Length();
  for (uint32_t i = 0; i < count; ++i) {
    Napi::Value key = keys.Get(i);
    out.emplace(key.ToString().Utf8Value(), ToValue(env, object.Get(key)));
  }
  return out;
}

namespace {

// Replaces the values of `out` by those of the pairs when the pairs name exactly the names
// `out` holds, each once; false (and `out` unspecified) otherwise.
bool ReplaceParameterValues(const Napi::CallbackInfo& info, size_t first, ParameterMap& out) {
  constexpr size_t kMaxReplaced = 16;  // beyond, checking the names are distinct costs more
  const size_t count = (info.Length() - first) / 2;
  if (count != out.size() || count > kMaxReplaced) return false;
  Napi::Env env = info.Env();
  Value* replaced[kMaxReplaced];
  for (size_t p = 0; p < count; ++p) {
    Napi::Value key = info[first + 2 * p];
    if (!key.IsString()) throw Napi::TypeError::New(env, "parameter names must be strings");
    // A short name stays in std::string's own buffer: no allocation.
    auto it =
        WithUtf8(env, key, [&](std::string_view name) { return out.find(std::string(name)); });
    if (it == out.end()) return false;
    for (size_t q = 0; q < p; ++q) {
      if (replaced[q] == &it->second) return false;  // a name given twice
    }
    replaced[p] = &it->second;
    it->second = ToValue(env, info[first + 1 + 2 * p]);
  }
  return true;
}

}  // namespace

void ReadParameters(const Napi::CallbackInfo& info, size_t first, ParameterMap& out) {
  Napi::Env env = info.Env();
  const size_t given = info.Length() > first ? info.Length() - first : 0;
  if (given <= 1) {
    out = ToParameterMap(env, given == 1 ? info[first] : env.Undefined());
    return;
  }
  if (given % 2 != 0) {
    throw Napi::TypeError::New(env, "parameters must be name and value pairs");
  }
  if (ReplaceParameterValues(info, first, out)) return;
  out.clear();
  for (size_t i = first; i < info.Length(); i += 2) {
    if (!info[i].IsString()) throw Napi::TypeError::New(env, "parameter names must be strings");
    std::string name =
        WithUtf8(env, info[i], [](std::string_view text) { return std::string(text); });
    out.insert_or_assign(std::move(name), ToValue(env, info[i + 1]));
  }
}

// A LIST cell's array, made by the JS builders (src/native/addon.ts: listOf, then extendList)
// from up to kItemsPerCall items a call: a JS function gathers its arguments into an array with
// JIT-compiled code, while an element stored from native code (napi_set_element) goes through
// V8's generic lookup (~100 ns an element, most of a result of long lists). Short lists, and
// lists before the builders are set, are stored element by element.
static Napi::Value FromList(Napi::Env env, const std::vector<Value>& items, bool typed) {
  constexpr size_t kItemsPerCall = 256;
  AddonData& data = GetAddonData(env);
  if (items.size() < 4 || data.list_of.IsEmpty()) {
    Napi::Array array = Napi::Array::New(env, items.size());
    for (size_t i = 0; i < items.size(); ++i) {
      array.Set(static_cast<uint32_t>(i), FromValue(env, items[i], typed));
    }
    return array;
  }
  napi_value args[kItemsPerCall + 1];
  size_t i = 0;
  for (; i < items.size() && i < kItemsPerCall; ++i) args[i] = FromValue(env, items[i], typed);
  Napi::Value list = data.list_of.Value().Call(i, args);
  while (i < items.size()) {
    args[0] = list;
    size_t n = 1;
    for (; i < items.size() && n <= kItemsPerCall; ++i) args[n++] = FromValue(env, items[i], typed);
    data.extend_list.Value().Call(n, args);
  }
  return list;
}

Napi::Value FromValue(Napi::Env env, const Value& v, bool typed) {
  if (v.is_null()) return env.Null();
  if (typed) {
    switch (v.type_id()) {
      case LogicalTypeId::kFloat:
      case LogicalTypeId::kDouble: {
        double d = v.GetDouble();
        if (std::isfinite(d) && std::trunc(d) == d) return Napi::Number::New(env, d).ToObject();
        return Napi::Number::New(env, d);
      }
      case LogicalTypeId::kDate: return TypedObject(env, "DATE", 0, v.GetInt(), 0);
      case LogicalTypeId::kTimestamp:
      case LogicalTypeId::kTimestampMs:
      case LogicalTypeId::kTimestampNs:
      case LogicalTypeId::kTimestampSec:
        return TypedObject(env, "TIMESTAMP", 0, 0,
                           temporal::TicksToMicros(v.type_id(), v.GetInt()));
      case LogicalTypeId::kTimestampTz:
        return TypedObject(env, "TIMESTAMP_TZ", 0, 0,
                           temporal::TicksToMicros(v.type_id(), v.GetInt()));
      case LogicalTypeId::kInterval: {
        Interval iv = v.GetInterval();
        return TypedObject(env, "INTERVAL", iv.months, iv.days, iv.micros);
      }
      default: break;
    }
  }
  switch (v.type_id()) {
    case LogicalTypeId::kBool: return Napi::Boolean::New(env, v.GetBool());
    case LogicalTypeId::kInt8:
    case LogicalTypeId::kInt16:
    case LogicalTypeId::kInt32:
    case LogicalTypeId::kInt64:
    case LogicalTypeId::kSerial: return FromInteger(env, v.GetInt());
    case LogicalTypeId::kUInt8:
    case LogicalTypeId::kUInt16:
    case LogicalTypeId::kUInt32:
    case LogicalTypeId::kUInt64: return FromUnsigned(env, v.GetUInt());
    case LogicalTypeId::kInt128: return FromInt128(env, v.GetInt128());
    case LogicalTypeId::kDecimal:  // exact: its text ("12.50"), not a lossy double
      return Napi::String::New(env, v.ToString());
    case LogicalTypeId::kFloat:
    case LogicalTypeId::kDouble: return Napi::Number::New(env, v.GetDouble());
    case LogicalTypeId::kBlob: {
      std::string_view bytes = v.GetString();
      return Napi::Buffer<char>::Copy(env, bytes.data(), bytes.size());
    }
    case LogicalTypeId::kDate:
      return Napi::String::New(env, temporal::FormatIsoDate(static_cast<int32_t>(v.GetInt())));
    case LogicalTypeId::kTimestamp:
    case LogicalTypeId::kTimestampMs:
    case LogicalTypeId::kTimestampNs:
    case LogicalTypeId::kTimestampSec:
    case LogicalTypeId::kTimestampTz:
      return Napi::String::New(env, temporal::FormatIsoTimestampMicros(
                                        temporal::TicksToMicros(v.type_id(), v.GetInt())));
    case LogicalTypeId::kInternalId: return Napi::String::New(env, IdString(v.GetId()));
    case LogicalTypeId::kList:
    case LogicalTypeId::kArray: return FromList(env, v.children(), typed);
    case LogicalTypeId::kMap: {
      Napi::Object map = GetAddonData(env).map_ctor.Value().New({});
      Napi::Function set = map.Get("set").As<Napi::Function>();
      for (const auto& entry : v.children()) {
        set.Call(map, {FromValue(env, entry.children()[0], typed),
                       FromValue(env, entry.children()[1], typed)});
      }
      return map;
    }
    case LogicalTypeId::kStruct: {
      Napi::Object object = Napi::Object::New(env);
      const auto& fields = v.heap()->type.fields();
      const auto& children = v.children();
      for (size_t i = 0; i < children.size(); ++i) {
        object.Set(fields[i].name, FromValue(env, children[i], typed));
      }
      return object;
    }
    case LogicalTypeId::kUnion: return FromValue(env, v.children()[0], typed);
    case LogicalTypeId::kNode: {
      Napi::Object object = Napi::Object::New(env);
      object.Set("_id", IdString(v.GetId()));
      object.Set("_label", std::string(v.heap()->str));
      SetProperties(env, object, *v.heap(), typed);
      return object;
    }
    case LogicalTypeId::kRel: {
      Napi::Object object = Napi::Object::New(env);
      object.Set("_id", IdString(v.GetId()));
      object.Set("_label", std::string(v.heap()->str));
      object.Set("_src", IdString(v.heap()->src));
      object.Set("_dst", IdString(v.heap()->dst));
      SetProperties(env, object, *v.heap(), typed);
      return object;
    }
    case LogicalTypeId::kRecursiveRel: {
      Napi::Object object = Napi::Object::New(env);
      object.Set("_nodes", FromValue(env, v.children()[0], typed));
      object.Set("_rels", FromValue(env, v.children()[1], typed));
      return object;
    }
    case LogicalTypeId::kString:
    case LogicalTypeId::kJson: return StringFromUtf8(env, v.GetString());
    default:  // UUID, INTERVAL
      return Napi::String::New(env, v.ToString());
  }
}

namespace {

Napi::Array BuildColumns(Napi::Env env, const exec::QueryResult& result, bool types) {
  size_t num_columns = result.num_columns();
  Napi::Array out = Napi::Array::New(env, num_columns);
  for (size_t i = 0; i < num_columns; ++i) {
    out.Set(static_cast<uint32_t>(i),
            types ? Napi::String::New(env, result.column_types[i].ToString())
                  : Napi::String::New(env, result.column_names[i]));
  }
  return out;
}

Napi::Array BuildRows(Napi::Env env, const exec::QueryResult& result, bool text) {
  Napi::Array rows = Napi::Array::New(env, result.rows.size());
  for (size_t r = 0; r < result.rows.size(); ++r) {
    const auto& row = result.rows[r];
    Napi::Array js_row = Napi::Array::New(env, row.size());
    for (size_t c = 0; c < row.size(); ++c) {
      js_row.Set(static_cast<uint32_t>(c),
                 text ? Napi::String::New(env, row[c].ToString()) : FromValue(env, row[c]));
    }
    rows.Set(static_cast<uint32_t>(r), js_row);
  }
  return rows;
}

// The JS strings of one call's string cells: a short string met again (a grouped column's few
// values, row after row) is handed out again rather than made anew. Each of 64 slots keeps the
// last string hashed to it. 1,638 rows of a city and an age: 53 µs to hand over instead of 66.
// Set up and cleared in a word (a point read's one row pays nothing for the slots).
class RepeatedStrings {
 public:
  // Forgets every string (their handles belong to the last call's scope).
  void Clear() { used_ = 0; }
  napi_value Get(Napi::Env env, std::string_view text) {
    if (text.size() > kMaxBytes) return StringFromUtf8(env, text);
    uint64_t head = 0, tail = 0;
    std::memcpy(&head, text.data(), std::min<size_t>(text.size(), 8));
    if (text.size() > 8) std::memcpy(&tail, text.data() + text.size() - 8, 8);
    uint64_t h = ((head ^ text.size()) * 0x9E3779B97F4A7C15ULL) ^ tail;
    h = (h ^ (h >> 29)) * 0xBF58476D1CE4E5B9ULL;
    const size_t i = h >> (64 - kSlotBits);
    Slot& slot = slots_[i];
    if ((used_ >> i & 1) != 0 && slot.size == text.size() &&
        std::memcmp(slot.bytes, text.data(), text.size()) == 0) {
      return slot.value;
    }
    slot.value = StringFromUtf8(env, text);
    slot.size = static_cast<uint8_t>(text.size());
    std::memcpy(slot.bytes, text.data(), text.size());
    used_ |= uint64_t{1} << i;
    return slot.value;
  }

 private:
  static constexpr size_t kMaxBytes = 22;
  static constexpr int kSlotBits = 6;  // 64 slots, one bit each in used_
  struct Slot {
    napi_value value;
    uint8_t size;
    char bytes[kMaxBytes];
  };
  uint64_t used_ = 0;
  Slot slots_[size_t{1} << kSlotBits];  // (read only where used_ says they were written)
};

// The packed result of `result` alone (FromQueryResult).
Napi::Value PackQueryResult(Napi::Env env, const exec::QueryResult& result, CellForm form) {
  // Every part goes to JS as call arguments: a JS function gathers arguments into arrays with
  // JIT-compiled code, while each element or property stored from native code
  // (napi_set_element) goes through V8's generic lookup, several times slower (it was the
  // larger part of a point read, and of a large result). The first kCellsPerCall cells go
  // with the call of pack_result, the rest with calls of append_cells, as many at a time.
  constexpr size_t kFixed = 10;  // pack_result's arguments before the cells
  constexpr size_t kCellsPerCall = 1024;
  AddonData& data = GetAddonData(env);
  if (data.pack_result.IsEmpty()) {
    throw Napi::Error::New(env, "the result builders are not set (setResultBuilders)");
  }
  const size_t width = result.num_columns();
  for (const auto& row : result.rows) {
    if (row.size() != width) {
      throw Napi::Error::New(env, "internal error: a result row has " + std::to_string(row.size()) +
                                      " cells for " + std::to_string(width) + " columns");
    }
  }
  const exec::QueryCounters& c = result.counters;
  const Napi::Number zero = Napi::Number::New(env, 0);
  auto counter = [&](uint64_t v) -> napi_value {
    return v == 0 ? zero : Napi::Number::New(env, static_cast<double>(v));
  };
  napi_value args[kFixed + kCellsPerCall];
  args[0] = data.column_names.Get(env, result.column_names);
  args[1] = data.column_types.Get(env, result.column_types);
  // Rows of no cells cannot go as cells: they go as an array of empty rows.
  args[2] = width == 0 ? static_cast<napi_value>(BuildRows(env, result, false)) : env.Null();
  args[3] = Napi::Number::New(env, result.elapsed_ms);
  args[4] = counter(c.nodes_created);
  args[5] = counter(c.nodes_deleted);
  args[6] = counter(c.rels_created);
  args[7] = counter(c.rels_deleted);
  args[8] = counter(c.properties_set);
  // All the cells, for pack_result to make their array at its size once (src/native/addon.ts).
  args[9] = Napi::Number::New(env, static_cast<double>(width * result.rows.size()));
  // next(at) puts the next cells (up to kCellsPerCall, row after row) in args from `at` on and
  // returns where they end.
  size_t row = width == 0 ? result.rows.size() : 0;
  size_t column = 0;
  RepeatedStrings strings;
  auto next = [&](size_t at) {
    size_t end = at;
    strings.Clear();
    while (row < result.rows.size() && end - at < kCellsPerCall) {
      const Value& cell = result.rows[row][column];
      if (!cell.is_null() && cell.type_id() == LogicalTypeId::kString) {
        args[end++] = strings.Get(env, cell.GetString());
      } else {
        args[end++] = form == CellForm::kKuzu ? FromValueKuzu(env, cell)
                                              : FromValue(env, cell, form == CellForm::kTyped);
      }
      if (++column == width) {
        column = 0;
        ++row;
      }
    }
    return end;
  };
  Napi::Value packed = data.pack_result.Value().Call(next(kFixed), args);
  if (row < result.rows.size()) {
    Napi::Function append = data.append_cells.Value();
    args[0] = packed;
    while (row < result.rows.size()) {
      Napi::HandleScope scope(env);  // the handles of one call's cells
      args[1] = Napi::Number::New(env, static_cast<double>(row * width + column));
      append.Call(next(2), args);
    }
  }
  return packed;
}
}  // namespace

Napi::Value FromQueryResult(Napi::Env env, const exec::QueryResult& result, CellForm form) {
  if (result.earlier.empty()) return PackQueryResult(env, result, form);
  // A query of several statements: {results: [packed, ...]}, one per statement, in order.
  Napi::Array all = Napi::Array::New(env, result.earlier.size() + 1);
  uint32_t i = 0;
  for (const exec::QueryResult& earlier : result.earlier) {
    all.Set(i++, PackQueryResult(env, earlier, form));
  }
  all.Set(i, PackQueryResult(env, result, form));
  Napi::Object batch = Napi::Object::New(env);
  batch.Set("results", all);
  return batch;
}

Napi::Object FromQueryResultAsText(Napi::Env env, const exec::QueryResult& result) {
  Napi::Object out = Napi::Object::New(env);
  const exec::QueryCounters& c = result.counters;
  Napi::Object counters = Napi::Object::New(env);
  counters.Set("nodesCreated", static_cast<double>(c.nodes_created));
  counters.Set("nodesDeleted", static_cast<double>(c.nodes_deleted));
  counters.Set("relationshipsCreated", static_cast<double>(c.rels_created));
  counters.Set("relationshipsDeleted", static_cast<double>(c.rels_deleted));
  counters.Set("propertiesSet", static_cast<double>(c.properties_set));
  Napi::Object summary = Napi::Object::New(env);
  summary.Set("rowCount", static_cast<double>(result.rows.size()));
  summary.Set("elapsedMs", result.elapsed_ms);
  summary.Set("counters", counters);
  out.Set("columns", BuildColumns(env, result, false));
  out.Set("types", BuildColumns(env, result, true));
  out.Set("rows", BuildRows(env, result, true));
  out.Set("summary", summary);
  return out;
}

}  // namespace graphdb::napi
