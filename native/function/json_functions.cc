// The JSON type's functions and casts, with Kùzu's names and results: to_json / json /
// json_valid / json_structure / json_extract / json_array_length / json_contains / json_keys /
// json_merge_patch / json_array / json_object / json_minify / array_to_json / row_to_json, and
// the conversions behind CAST(x AS JSON) and CAST(json AS T).
//
// A JSON value is its text (types/json.h). Functions that look inside parse it for each call;
// a document is at most what one value may hold, and parsing is linear in its size.
#include "function/json_functions.h"

#include <algorithm>

#include "common/interrupt.h"
#include "function/cast.h"
#include "function/function_internal.h"
#include "types/json.h"
#include "types/temporal.h"

namespace graphdb::function::internal {

namespace {

using Args = const Value*;
using Kind = JsonNode::Kind;

JsonNode ParseOrThrow(std::string_view text) {
  JsonNode node;
  std::string error;
  if (!ParseJson(text, &node, &error)) ThrowRuntime("Error " + error);
  return node;
}

std::string IdText(InternalId id) {
  return std::to_string(id.table) + ":" + std::to_string(id.offset);
}

void AddProperties(const Value& v, JsonNode* object) {
  const ValueHeap* heap = v.heap();
  const std::vector<Value>& values = v.children();
  for (size_t i = 0; i < values.size() && i < heap->names.size(); ++i) {
    object->Add(heap->names[i], ValueToJsonNode(values[i]));
  }
}

// ---- json_structure: the type a document's values would read as.

// The type a JSON string's text looks like: DATE, TIMESTAMP, UUID, INTERVAL or STRING.
LogicalType StringShape(std::string_view text) {
  if (text.empty()) return LogicalType::String();
  if (temporal::ParseDate(text)) return LogicalType(Id::kDate);
  if (temporal::ParseTimestampMicros(text)) return LogicalType(Id::kTimestamp);
  if (text.size() == 36 && text[8] == '-' && text[13] == '-' && text[18] == '-' &&
      text[23] == '-') {
    bool hex = true;
    for (size_t i = 0; i < text.size() && hex; ++i) {
      if (i == 8 || i == 13 || i == 18 || i == 23) continue;
      hex = std::isxdigit(static_cast<unsigned char>(text[i])) != 0;
    }
    if (hex) return LogicalType(Id::kUuid);
  }
  // An interval needs a digit and a unit or a whole time: "1 day", "00:00:00" (not a bare
  // number, nor "0:0", an internal id's text).
  const bool has_unit = std::any_of(text.begin(), text.end(), [](char c) {
    return std::isalpha(static_cast<unsigned char>(c)) != 0;
  });
  const bool whole_time = std::count(text.begin(), text.end(), ':') == 2;
  if (text.find_first_of("0123456789") != std::string_view::npos && (has_unit || whole_time) &&
      temporal::ParseInterval(text)) {
    return LogicalType(Id::kInterval);
  }
  return LogicalType::String();
}

LogicalType IntegerShape(int64_t v) {
  if (v >= 0) {
    if (v <= 255) return LogicalType(Id::kUInt8);
    if (v <= 65535) return LogicalType(Id::kUInt16);
    if (v <= 4294967295LL) return LogicalType(Id::kUInt32);
    return LogicalType(Id::kUInt64);
  }
  if (v >= -128) return LogicalType(Id::kInt8);
  if (v >= -32768) return LogicalType(Id::kInt16);
  if (v >= -2147483648LL) return LogicalType(Id::kInt32);
  return LogicalType::Int64();
}

LogicalType CombineShapes(const LogicalType& a, const LogicalType& b);

// The byte width of an integer type of a shape (0: not one).
int IntegerWidth(Id id) {
  switch (id) {
    case Id::kInt8:
    case Id::kUInt8: return 1;
    case Id::kInt16:
    case Id::kUInt16: return 2;
    case Id::kInt32:
    case Id::kUInt32: return 4;
    case Id::kInt64:
    case Id::kUInt64: return 8;
    default: return 0;
  }
}

Id SignedOfWidth(int width) {
  return width <= 1 ? Id::kInt8 : width == 2 ? Id::kInt16 : width == 4 ? Id::kInt32 : Id::kInt64;
}

// The smallest type that holds both integers (UINT8 and INT8: INT16; UINT64 and a signed one:
// INT64, as Kùzu types them), DOUBLE with a DOUBLE.
LogicalType CombineNumbers(Id a, Id b) {
  int wa = IntegerWidth(a), wb = IntegerWidth(b);
  if (wa == 0 || wb == 0) return LogicalType::Double();
  bool ua = IsUnsignedIntId(a), ub = IsUnsignedIntId(b);
  if (ua == ub) return LogicalType(IntegerWidth(a) >= IntegerWidth(b) ? a : b);
  int unsigned_width = ua ? wa : wb, signed_width = ua ? wb : wa;
  int width = std::min(8, std::max(unsigned_width * 2, signed_width));
  return LogicalType(SignedOfWidth(width));
}

LogicalType MergeStructShapes(const LogicalType& a, const LogicalType& b) {
  std::vector<std::pair<std::string, LogicalType>> fields;
  for (const StructField& f : a.fields()) fields.emplace_back(f.name, *f.type);
  for (const StructField& f : b.fields()) {
    auto same = std::find_if(fields.begin(), fields.end(),
                             [&](const auto& field) { return field.first == f.name; });
    if (same == fields.end()) {
      fields.emplace_back(f.name, *f.type);
    } else {
      same->second = CombineShapes(same->second, *f.type);
    }
  }
  return LogicalType::Struct(std::move(fields));
}

// Two values' shapes as one: ANY gives way, numbers widen (UINT8 and INT8 make INT16), DATE and
// TIMESTAMP make TIMESTAMP, lists combine their elements, structs merge their fields; anything
// else is STRING.
LogicalType CombineShapes(const LogicalType& a, const LogicalType& b) {
  if (a.id() == Id::kAny) return b;
  if (b.id() == Id::kAny) return a;
  if (a == b) return a;
  if (a.id() == Id::kList && b.id() == Id::kList) {
    return LogicalType::List(CombineShapes(a.child(), b.child()));
  }
  if (a.id() == Id::kStruct && b.id() == Id::kStruct) return MergeStructShapes(a, b);
  if (IsNumericId(a.id()) && IsNumericId(b.id())) return CombineNumbers(a.id(), b.id());
  if ((a.id() == Id::kDate && b.id() == Id::kTimestamp) ||
      (a.id() == Id::kTimestamp && b.id() == Id::kDate)) {
    return LogicalType(Id::kTimestamp);
  }
  return LogicalType::String();
}

LogicalType Shape(const JsonNode& node) {
  switch (node.kind) {
    case Kind::kNull: return LogicalType::Any();
    case Kind::kBool: return LogicalType(Id::kBool);
    case Kind::kInt: return IntegerShape(node.i);
    case Kind::kUInt: return LogicalType(Id::kUInt64);
    case Kind::kDouble: return LogicalType::Double();
    case Kind::kString: return StringShape(node.str);
    case Kind::kArray: {
      LogicalType element = LogicalType::Any();
      for (const JsonNode& item : node.items) element = CombineShapes(element, Shape(item));
      return LogicalType::List(element);
    }
    case Kind::kObject: {
      // A document's own duplicate keys stay (as Kùzu shows them); objects met in a list
      // merge their fields by name.
      std::vector<std::pair<std::string, LogicalType>> fields;
      for (size_t i = 0; i < node.items.size(); ++i) {
        fields.emplace_back(node.keys[i], Shape(node.items[i]));
      }
      return LogicalType::Struct(std::move(fields));
    }
  }
  return LogicalType::String();
}

// ---- JSON -> a typed value

[[noreturn]] void CannotCast(const JsonNode& node, const LogicalType& target) {
  ThrowConversion("Cast failed. Could not convert \"" + WriteJson(node) + "\" to " +
                  target.ToString() + ".");
}

Value NodeToValue(const JsonNode& node, const LogicalType& target) {
  const Id to = target.id();
  if (to == Id::kJson || to == Id::kAny) return Value::Json(WriteJson(node));
  if (node.is_null()) return Value::Null(target);
  // A nested value written as text inside a JSON string ("[1,2]", "{a=1}") reads as that text.
  if (node.kind == Kind::kString && target.IsNested()) {
    return CastValue(Value::String(node.str), target);
  }
  switch (to) {
    case Id::kString: return Value::String(node.kind == Kind::kString ? node.str : WriteJson(node));
    case Id::kList:
    case Id::kArray: {
      if (node.kind != Kind::kArray) CannotCast(node, target);
      if (to == Id::kArray && node.items.size() != target.array_size()) CannotCast(node, target);
      std::vector<Value> items;
      items.reserve(node.items.size());
      for (const JsonNode& item : node.items) items.push_back(NodeToValue(item, target.child()));
      return Value::Nested(target, std::move(items));
    }
    case Id::kStruct: {
      if (node.kind != Kind::kObject) CannotCast(node, target);
      std::vector<Value> fields;
      for (const StructField& field : target.fields()) {
        const JsonNode* member = node.Find(field.name);
        if (member == nullptr) {
          for (size_t i = 0; i < node.keys.size() && member == nullptr; ++i) {
            if (ToLower(node.keys[i]) == ToLower(field.name)) member = &node.items[i];
          }
        }
        fields.push_back(member ? NodeToValue(*member, *field.type) : Value::Null(*field.type));
      }
      return Value::Nested(target, std::move(fields));
    }
    case Id::kMap: {
      if (node.kind != Kind::kObject) CannotCast(node, target);
      const LogicalType& entry_type = target.child();
      std::vector<Value> entries;
      for (size_t i = 0; i < node.items.size(); ++i) {
        entries.push_back(
            Value::Nested(entry_type, {CastValue(Value::String(node.keys[i]), target.map_key()),
                                       NodeToValue(node.items[i], target.map_value())}));
      }
      return Value::Nested(target, std::move(entries));
    }
    default: break;
  }
  switch (node.kind) {
    case Kind::kBool:
      if (to == Id::kBool) return Value::Boolean(node.b);
      return CastValue(Value::String(node.b ? "true" : "false"), target);
    case Kind::kInt: return CastValue(Value::Int64(node.i), target);
    case Kind::kUInt: return CastValue(Value::UInt(Id::kUInt64, node.u), target);
    case Kind::kDouble: return CastValue(Value::Double(node.d), target);
    case Kind::kString:
      // Numbers and booleans do not come from JSON strings ("\"2\"" is no INT64), except
      // INT128 and DECIMAL, which to_json writes as strings to keep every digit; dates,
      // timestamps, UUIDs and the like are written as strings in JSON.
      if ((IsNumericId(to) && to != Id::kInt128 && to != Id::kDecimal) || to == Id::kBool ||
          to == Id::kSerial) {
        CannotCast(node, target);
      }
      return CastValue(Value::String(node.str), target);
    default: CannotCast(node, target);
  }
}

// ---- json_contains: is `needle` somewhere in `haystack`?

bool Equal(const JsonNode& a, const JsonNode& b) {
  if (a.is_number() && b.is_number()) {
    if (a.kind == Kind::kDouble || b.kind == Kind::kDouble) {
      auto num = [](const JsonNode& n) {
        return n.kind == Kind::kInt    ? static_cast<double>(n.i)
               : n.kind == Kind::kUInt ? static_cast<double>(n.u)
                                       : n.d;
      };
      return num(a) == num(b);
    }
    return a.kind == b.kind && a.i == b.i && a.u == b.u;
  }
  if (a.kind != b.kind) return false;
  switch (a.kind) {
    case Kind::kNull: return true;
    case Kind::kBool: return a.b == b.b;
    case Kind::kString: return a.str == b.str;
    default: return WriteJson(a) == WriteJson(b);
  }
}

// Whether `needle` is contained in `haystack` at this level: objects by their members
// (recursively), arrays by each needle element matching some element (order-free), scalars by
// equality.
bool ContainsHere(const JsonNode& haystack, const JsonNode& needle) {
  if (needle.kind == Kind::kObject) {
    if (haystack.kind != Kind::kObject) return false;
    for (size_t i = 0; i < needle.items.size(); ++i) {
      const JsonNode* member = haystack.Find(needle.keys[i]);
      if (member == nullptr || !ContainsHere(*member, needle.items[i])) return false;
    }
    return true;
  }
  if (needle.kind == Kind::kArray) {
    if (haystack.kind != Kind::kArray) return false;
    for (const JsonNode& want : needle.items) {
      bool found = std::any_of(haystack.items.begin(), haystack.items.end(),
                               [&](const JsonNode& have) { return ContainsHere(have, want); });
      if (!found) return false;
    }
    return true;
  }
  if (haystack.kind == Kind::kArray) {
    return std::any_of(haystack.items.begin(), haystack.items.end(),
                       [&](const JsonNode& have) { return Equal(have, needle); });
  }
  return Equal(haystack, needle);
}

bool ContainsAnywhere(const JsonNode& haystack, const JsonNode& needle, uint64_t* steps) {
  if ((++*steps & 4095) == 0) CheckInterrupt();
  if (ContainsHere(haystack, needle)) return true;
  if (haystack.kind == Kind::kArray || haystack.kind == Kind::kObject) {
    for (const JsonNode& child : haystack.items) {
      if (ContainsAnywhere(child, needle, steps)) return true;
    }
  }
  return false;
}

// ---- json_extract

// The steps of a JSONPath "$.a.b[1]" in the slash form "a/b/1".
std::string SlashPath(std::string_view path) {
  std::string out;
  for (size_t i = 1; i < path.size(); ++i) {
    char c = path[i];
    if (c == '.' || c == '[') {
      if (!out.empty()) out += '/';
    } else if (c != ']') {
      out += c;
    }
  }
  return out;
}

// The value at `path` ("a/b/1": member a, member b, element 1; or "$.a.b[1]"), or null when
// there is none.
const JsonNode* Extract(const JsonNode& root, std::string_view path) {
  if (path.empty()) return nullptr;
  if (path[0] == '$') {
    if (path.size() == 1) return &root;
    std::string steps = SlashPath(path);
    return Extract(root, steps);
  }
  const JsonNode* at = &root;
  size_t start = 0;
  for (;;) {
    size_t slash = path.find('/', start);
    std::string_view step =
        path.substr(start, slash == std::string_view::npos ? path.npos : slash - start);
    if (at->kind == Kind::kObject) {
      at = at->Find(step);
    } else if (at->kind == Kind::kArray) {
      uint64_t index = 0;
      if (step.empty() || step.find_first_not_of("0123456789") != std::string_view::npos) {
        return nullptr;
      }
      for (char c : step) index = index * 10 + static_cast<uint64_t>(c - '0');
      at = index < at->items.size() ? &at->items[index] : nullptr;
    } else {
      return nullptr;
    }
    if (at == nullptr || slash == std::string_view::npos) return at;
    start = slash + 1;
  }
}

Value ExtractedValue(const JsonNode* node) {
  return node ? Value::Json(WriteJson(*node)) : Value::Null(LogicalType::Json());
}

// ---- json_merge_patch (RFC 7386)

JsonNode MergePatch(JsonNode target, const JsonNode& patch) {
  if (patch.kind != Kind::kObject) return patch;
  if (target.kind != Kind::kObject) target = JsonNode::Object();
  for (size_t i = 0; i < patch.items.size(); ++i) {
    const std::string& key = patch.keys[i];
    auto it = std::find(target.keys.begin(), target.keys.end(), key);
    if (patch.items[i].is_null()) {
      if (it != target.keys.end()) {
        size_t at = static_cast<size_t>(it - target.keys.begin());
        target.keys.erase(it);
        target.items.erase(target.items.begin() + static_cast<std::ptrdiff_t>(at));
      }
    } else if (it != target.keys.end()) {
      size_t at = static_cast<size_t>(it - target.keys.begin());
      target.items[at] = MergePatch(std::move(target.items[at]), patch.items[i]);
    } else {
      target.Add(key, MergePatch(JsonNode::Null(), patch.items[i]));
    }
  }
  return target;
}

// ---- the functions

Value ToJsonExec(Args a, size_t, const LogicalType&, FunctionContext&) { return CastToJson(a[0]); }

Value JsonExec(Args a, size_t, const LogicalType&, FunctionContext&) {
  return Value::Json(WriteJson(ParseJsonArgument(a[0])));
}

Value JsonValidExec(Args a, size_t, const LogicalType&, FunctionContext&) {
  return Value::Boolean(IsValidJson(a[0].GetString()));
}

Value JsonStructureExec(Args a, size_t, const LogicalType&, FunctionContext&) {
  return Value::String(Shape(ParseJsonArgument(a[0])).ToString());
}

Value JsonExtractExec(Args a, size_t, const LogicalType&, FunctionContext&) {
  JsonNode root = ParseJsonArgument(a[0]);
  const Value& path = a[1];
  if (IsListLike(path.type_id())) {
    std::vector<Value> out;
    for (const Value& p : path.children()) {
      out.push_back(p.is_null() ? Value::Null(LogicalType::Json())
                                : ExtractedValue(Extract(root, p.ToString())));
    }
    return Value::Nested(LogicalType::List(LogicalType::Json()), std::move(out));
  }
  return ExtractedValue(Extract(root, path.ToString()));
}

bool BindJsonExtract(const ScalarBindInput& in, BoundScalarFunction* fn, std::string* error) {
  if (in.arg_types.size() == 2 && IsListLike(in.arg_types[1].id())) {
    fn->result_type = LogicalType::List(LogicalType::Json());
    fn->arg_types = {LogicalType::Json(), LogicalType::List(LogicalType::String())};
  }
  return true;
}

Value JsonArrayLengthExec(Args a, size_t, const LogicalType&, FunctionContext&) {
  JsonNode root = ParseJsonArgument(a[0]);
  uint64_t n = root.kind == Kind::kArray ? root.items.size() : 0;
  return Value::UInt(Id::kUInt32, n);
}

Value JsonContainsExec(Args a, size_t, const LogicalType&, FunctionContext&) {
  JsonNode haystack = ParseJsonArgument(a[0]);
  JsonNode needle = ParseJsonArgument(a[1]);
  uint64_t steps = 0;
  return Value::Boolean(ContainsAnywhere(haystack, needle, &steps));
}

Value JsonKeysExec(Args a, size_t, const LogicalType& result, FunctionContext&) {
  JsonNode root = ParseJsonArgument(a[0]);
  std::vector<Value> keys;
  if (root.kind == Kind::kObject) {
    for (const std::string& key : root.keys) keys.push_back(Value::String(key));
  }
  return Value::Nested(LogicalType::List(LogicalType::String()), std::move(keys));
}

bool BindStringList(const ScalarBindInput&, BoundScalarFunction* fn, std::string*) {
  fn->result_type = LogicalType::List(LogicalType::String());
  return true;
}

Value JsonMergePatchExec(Args a, size_t, const LogicalType&, FunctionContext&) {
  return Value::Json(WriteJson(MergePatch(ParseJsonArgument(a[0]), ParseJsonArgument(a[1]))));
}

Value JsonArrayExec(Args a, size_t n, const LogicalType&, FunctionContext&) {
  JsonNode array = JsonNode::Array();
  for (size_t i = 0; i < n; ++i) array.Push(ValueToJsonNode(a[i]));
  return Value::Json(WriteJson(array));
}

Value JsonObjectExec(Args a, size_t n, const LogicalType&, FunctionContext&) {
  if (n % 2 != 0) {
    ThrowBinder(
        "Binder exception: json_object() needs an even number of arguments (key, value "
        "pairs), got " +
        std::to_string(n) + ".");
  }
  JsonNode object = JsonNode::Object();
  for (size_t i = 0; i + 1 < n; i += 2) {
    if (a[i].is_null()) continue;  // a pair without a key adds nothing
    std::string key =
        a[i].type_id() == Id::kString ? std::string(a[i].GetString()) : a[i].ToString();
    object.Add(std::move(key), ValueToJsonNode(a[i + 1]));
  }
  return Value::Json(WriteJson(object));
}

bool BindVariadicJson(const ScalarBindInput& in, BoundScalarFunction* fn, std::string*) {
  fn->arg_types.clear();
  for (const LogicalType& t : in.arg_types) {
    fn->arg_types.push_back(t.id() == Id::kAny ? LogicalType::String() : t);
  }
  return true;
}

bool BindToJson(const ScalarBindInput& in, BoundScalarFunction* fn, std::string*) {
  fn->arg_types = {in.arg_types[0].id() == Id::kAny ? LogicalType::String() : in.arg_types[0]};
  return true;
}

}  // namespace

JsonNode ParseJsonArgument(const Value& v) {
  if (v.type_id() == Id::kJson || v.type_id() == Id::kString) return ParseOrThrow(v.GetString());
  return ValueToJsonNode(v);
}

JsonNode ValueToJsonNode(const Value& v) {
  if (v.is_null()) return JsonNode::Null();
  switch (v.type_id()) {
    case Id::kBool: return JsonNode::Bool(v.GetBool());
    case Id::kInt8:
    case Id::kInt16:
    case Id::kInt32:
    case Id::kInt64:
    case Id::kSerial: return JsonNode::Int(v.GetInt());
    case Id::kUInt8:
    case Id::kUInt16:
    case Id::kUInt32:
    case Id::kUInt64: return JsonNode::UInt(v.GetUInt());
    case Id::kFloat:
    case Id::kDouble: return JsonNode::Double(v.GetDouble());
    case Id::kString: return JsonNode::String(std::string(v.GetString()));
    case Id::kJson: {
      JsonNode node;
      std::string error;
      if (ParseJson(v.GetString(), &node, &error)) return node;
      return JsonNode::String(std::string(v.GetString()));
    }
    case Id::kInternalId: return JsonNode::String(IdText(v.GetId()));
    case Id::kList:
    case Id::kArray: {
      JsonNode array = JsonNode::Array();
      for (const Value& child : v.children()) array.Push(ValueToJsonNode(child));
      return array;
    }
    case Id::kStruct: {
      JsonNode object = JsonNode::Object();
      const LogicalType type = v.type();
      const std::vector<Value>& values = v.children();
      for (size_t i = 0; i < values.size() && i < type.fields().size(); ++i) {
        object.Add(type.fields()[i].name, ValueToJsonNode(values[i]));
      }
      return object;
    }
    case Id::kMap: {
      JsonNode object = JsonNode::Object();
      for (const Value& entry : v.children()) {
        const std::vector<Value>& kv = entry.children();
        if (kv.size() != 2) continue;
        const Value& key = kv[0];
        std::string name = key.is_null()                  ? "null"
                           : key.type_id() == Id::kString ? std::string(key.GetString())
                                                          : key.ToString();
        object.Add(std::move(name), ValueToJsonNode(kv[1]));
      }
      return object;
    }
    case Id::kUnion: return ValueToJsonNode(v.children()[0]);
    case Id::kNode: {
      JsonNode object = JsonNode::Object();
      object.Add("_ID", JsonNode::String(IdText(v.GetId())));
      object.Add("_LABEL", JsonNode::String(v.heap()->str));
      AddProperties(v, &object);
      return object;
    }
    case Id::kRel: {
      JsonNode object = JsonNode::Object();
      object.Add("_SRC", JsonNode::String(IdText(v.heap()->src)));
      object.Add("_DST", JsonNode::String(IdText(v.heap()->dst)));
      object.Add("_LABEL", JsonNode::String(v.heap()->str));
      object.Add("_ID", JsonNode::String(IdText(v.GetId())));
      AddProperties(v, &object);
      return object;
    }
    case Id::kRecursiveRel: {
      JsonNode object = JsonNode::Object();
      object.Add("_NODES", ValueToJsonNode(v.children()[0]));
      object.Add("_RELS", ValueToJsonNode(v.children()[1]));
      return object;
    }
    default:  // INT128, DECIMAL, dates, timestamps, intervals, UUIDs, blobs: their text
      return JsonNode::String(v.ToString());
  }
}

Value CastToJson(const Value& v) {
  if (v.is_null()) return Value::Null(LogicalType::Json());
  if (v.type_id() == Id::kJson) return v;
  if (v.type_id() == Id::kString) {
    // The text is kept as written once it is known to be JSON.
    if (!IsValidJson(v.GetString())) {
      ThrowConversion("Cannot convert " + std::string(v.GetString()) + " to JSON.");
    }
    return Value::Json(v.GetString());
  }
  std::string text = WriteJson(ValueToJsonNode(v));
  CheckValueBytes(text.size());
  return Value::Json(text);
}

Value CastFromJson(const Value& v, const LogicalType& target) {
  if (v.is_null()) return Value::Null(target);
  if (target.id() == Id::kString) return Value::String(v.GetString());
  return NodeToValue(ParseOrThrow(v.GetString()), target);
}

void RegisterJsonFunctions(RegistryBuilder& r) {
  const Id J = Id::kJson;
  r.Add("to_json", {Id::kAny}, J, ToJsonExec).bind = BindToJson;
  r.Alias("array_to_json", "to_json");
  r.Alias("row_to_json", "to_json");
  r.Add("json", {J}, J, JsonExec);
  r.Alias("json_minify", "json");
  r.Add("json_valid", {Id::kString}, Id::kBool, JsonValidExec);
  r.Add("json_structure", {J}, Id::kString, JsonStructureExec);
  r.Add("json_extract", {J, Id::kString}, J, JsonExtractExec);
  r.Add("json_extract", {J, Id::kInt64}, J, JsonExtractExec);
  r.Add("json_extract", {J, Id::kList}, Id::kList, JsonExtractExec).bind = BindJsonExtract;
  r.Add("json_array_length", {J}, Id::kUInt32, JsonArrayLengthExec);
  r.Add("json_contains", {J, J}, Id::kBool, JsonContainsExec);
  r.Add("json_keys", {J}, Id::kList, JsonKeysExec).bind = BindStringList;
  r.Add("json_merge_patch", {J, J}, J, JsonMergePatchExec);
  auto& array = r.Add("json_array", {Id::kAny}, J, JsonArrayExec);
  array.variadic = true;
  array.propagates_nulls = false;
  array.bind = BindVariadicJson;
  auto& object = r.Add("json_object", {Id::kAny}, J, JsonObjectExec);
  object.variadic = true;
  object.propagates_nulls = false;
  object.bind = BindVariadicJson;
}

}  // namespace graphdb::function::internal

namespace graphdb::function {

JsonNode ValueToJson(const Value& v) { return internal::ValueToJsonNode(v); }
Value JsonToValue(const JsonNode& node, const LogicalType& type) {
  return internal::NodeToValue(node, type);
}
LogicalType JsonShape(const JsonNode& node) { return internal::Shape(node); }
LogicalType CombineJsonShapes(const LogicalType& a, const LogicalType& b) {
  return internal::CombineShapes(a, b);
}

}  // namespace graphdb::function
