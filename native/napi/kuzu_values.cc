#include "napi/kuzu_values.h"

#include <cstdint>
#include <cstdlib>
#include <string>

#include "napi/convert.h"
#include "types/temporal.h"

namespace graphdb::napi {

namespace {

constexpr double kMillisPerDay = 86400000.0;
constexpr int64_t kMicrosPerMilli = 1000;
// Kùzu counts a month as 30 days when it turns an INTERVAL into milliseconds.
constexpr int64_t kMicrosPerMonth = 30 * temporal::kMicrosPerDay;

Napi::Object IdObject(Napi::Env env, InternalId id) {
  Napi::Object object = Napi::Object::New(env);
  object.Set("offset", Napi::Number::New(env, static_cast<double>(id.offset)));
  object.Set("table", Napi::Number::New(env, static_cast<double>(id.table)));
  return object;
}

// Milliseconds since the epoch of a TIMESTAMP-family value, truncated as Kùzu's are.
double TimestampMillis(LogicalTypeId type, int64_t ticks) {
  switch (type) {
    case LogicalTypeId::kTimestampNs: return static_cast<double>(ticks / 1000 / kMicrosPerMilli);
    case LogicalTypeId::kTimestampMs: return static_cast<double>(ticks);
    case LogicalTypeId::kTimestampSec: return static_cast<double>(ticks) * 1000.0;
    default: return static_cast<double>(ticks / kMicrosPerMilli);
  }
}

void SetProperties(Napi::Env env, Napi::Object& object, const ValueHeap& heap) {
  for (size_t i = 0; i < heap.children.size(); ++i) {
    object.Set(heap.names[i], FromValueKuzu(env, heap.children[i]));
  }
}

}  // namespace

Napi::Value FromValueKuzu(Napi::Env env, const Value& v) {
  if (v.is_null()) return env.Null();
  switch (v.type_id()) {
    case LogicalTypeId::kBool: return Napi::Boolean::New(env, v.GetBool());
    case LogicalTypeId::kInt8:
    case LogicalTypeId::kInt16:
    case LogicalTypeId::kInt32:
    case LogicalTypeId::kInt64:
    case LogicalTypeId::kSerial: return Napi::Number::New(env, static_cast<double>(v.GetInt()));
    case LogicalTypeId::kUInt8:
    case LogicalTypeId::kUInt16:
    case LogicalTypeId::kUInt32:
    case LogicalTypeId::kUInt64: return Napi::Number::New(env, static_cast<double>(v.GetUInt()));
    // Kùzu gives INT128 as a BigInt whatever its size.
    case LogicalTypeId::kInt128: return BigIntFromInt128(env, v.GetInt128());
    case LogicalTypeId::kDecimal:
      return Napi::Number::New(env, std::strtod(v.ToString().c_str(), nullptr));
    case LogicalTypeId::kFloat:
    case LogicalTypeId::kDouble: return Napi::Number::New(env, v.GetDouble());
    case LogicalTypeId::kBlob: {
      std::string_view bytes = v.GetString();
      return Napi::Buffer<char>::Copy(env, bytes.data(), bytes.size());
    }
    case LogicalTypeId::kDate:
      return Napi::Date::New(env, static_cast<double>(v.GetInt()) * kMillisPerDay);
    case LogicalTypeId::kTimestamp:
    case LogicalTypeId::kTimestampMs:
    case LogicalTypeId::kTimestampNs:
    case LogicalTypeId::kTimestampSec:
    case LogicalTypeId::kTimestampTz:
      return Napi::Date::New(env, TimestampMillis(v.type_id(), v.GetInt()));
    case LogicalTypeId::kInterval: {
      Interval iv = v.GetInterval();
      // In 128 bits: months and days of any size do not overflow.
      int128_t micros = static_cast<int128_t>(iv.micros) +
                        static_cast<int128_t>(iv.days) * temporal::kMicrosPerDay +
                        static_cast<int128_t>(iv.months) * kMicrosPerMonth;
      return Napi::Number::New(env, static_cast<double>(micros / kMicrosPerMilli));
    }
    case LogicalTypeId::kInternalId: return IdObject(env, v.GetId());
    case LogicalTypeId::kList:
    case LogicalTypeId::kArray: {
      const auto& children = v.children();
      Napi::Array array = Napi::Array::New(env, children.size());
      for (size_t i = 0; i < children.size(); ++i) {
        array.Set(static_cast<uint32_t>(i), FromValueKuzu(env, children[i]));
      }
      return array;
    }
    case LogicalTypeId::kMap: {
      Napi::Object object = Napi::Object::New(env);
      for (const auto& entry : v.children()) {
        object.Set(entry.children()[0].ToString(), FromValueKuzu(env, entry.children()[1]));
      }
      return object;
    }
    case LogicalTypeId::kStruct: {
      Napi::Object object = Napi::Object::New(env);
      const auto& fields = v.heap()->type.fields();
      const auto& children = v.children();
      for (size_t i = 0; i < children.size(); ++i) {
        object.Set(fields[i].name, FromValueKuzu(env, children[i]));
      }
      return object;
    }
    case LogicalTypeId::kUnion: {
      // Kùzu names the member's value by the union's first field name, its tag.
      Napi::Object object = Napi::Object::New(env);
      object.Set("tag", FromValueKuzu(env, v.children()[0]));
      return object;
    }
    case LogicalTypeId::kNode: {
      Napi::Object object = Napi::Object::New(env);
      SetProperties(env, object, *v.heap());
      object.Set("_label", Napi::String::New(env, v.heap()->str));
      object.Set("_id", IdObject(env, v.GetId()));
      return object;
    }
    case LogicalTypeId::kRel: {
      Napi::Object object = Napi::Object::New(env);
      SetProperties(env, object, *v.heap());
      object.Set("_src", IdObject(env, v.heap()->src));
      object.Set("_dst", IdObject(env, v.heap()->dst));
      object.Set("_label", Napi::String::New(env, v.heap()->str));
      object.Set("_id", IdObject(env, v.GetId()));
      return object;
    }
    case LogicalTypeId::kRecursiveRel: {
      Napi::Object object = Napi::Object::New(env);
      object.Set("_nodes", FromValueKuzu(env, v.children()[0]));
      object.Set("_rels", FromValueKuzu(env, v.children()[1]));
      return object;
    }
    case LogicalTypeId::kString: {
      std::string_view text = v.GetString();
      return Napi::String::New(env, text.data(), text.size());
    }
    default:  // UUID
      return Napi::String::New(env, v.ToString());
  }
}

}  // namespace graphdb::napi
