#include "types/logical_type.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <string_view>
#include <unordered_set>

#include "common/assert.h"

namespace graphdb {

namespace {

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::toupper(static_cast<unsigned char>(x)) ==
                  std::toupper(static_cast<unsigned char>(y));
         });
}

struct ScalarName {
  std::string_view name;
  LogicalTypeId id;
};

constexpr ScalarName kScalarNames[] = {
    {"BOOL", LogicalTypeId::kBool},
    {"BOOLEAN", LogicalTypeId::kBool},
    {"INT8", LogicalTypeId::kInt8},
    {"INT16", LogicalTypeId::kInt16},
    {"INT32", LogicalTypeId::kInt32},
    {"INT", LogicalTypeId::kInt32},
    {"INTEGER", LogicalTypeId::kInt32},
    {"INT64", LogicalTypeId::kInt64},
    {"INT128", LogicalTypeId::kInt128},
    {"UINT8", LogicalTypeId::kUInt8},
    {"UINT16", LogicalTypeId::kUInt16},
    {"UINT32", LogicalTypeId::kUInt32},
    {"UINT64", LogicalTypeId::kUInt64},
    {"FLOAT", LogicalTypeId::kFloat},
    {"REAL", LogicalTypeId::kFloat},
    {"FLOAT4", LogicalTypeId::kFloat},
    {"DOUBLE", LogicalTypeId::kDouble},
    {"FLOAT8", LogicalTypeId::kDouble},
    {"STRING", LogicalTypeId::kString},
    {"VARCHAR", LogicalTypeId::kString},
    {"JSON", LogicalTypeId::kJson},
    {"BLOB", LogicalTypeId::kBlob},
    {"BYTEA", LogicalTypeId::kBlob},
    {"UUID", LogicalTypeId::kUuid},
    {"DATE", LogicalTypeId::kDate},
    {"TIMESTAMP", LogicalTypeId::kTimestamp},
    {"TIMESTAMP_TZ", LogicalTypeId::kTimestampTz},
    {"TIMESTAMP_NS", LogicalTypeId::kTimestampNs},
    {"TIMESTAMP_MS", LogicalTypeId::kTimestampMs},
    {"TIMESTAMP_SEC", LogicalTypeId::kTimestampSec},
    {"TIMESTAMP_S", LogicalTypeId::kTimestampSec},
    {"INTERVAL", LogicalTypeId::kInterval},
    {"DURATION", LogicalTypeId::kInterval},
    {"SERIAL", LogicalTypeId::kSerial},
    {"NODE", LogicalTypeId::kNode},
    {"REL", LogicalTypeId::kRel},
    {"INTERNAL_ID", LogicalTypeId::kInternalId},
    {"ANY", LogicalTypeId::kAny},
};

// A small recursive-descent reader over a type name.
class TypeReader {
 public:
  TypeReader(std::string_view text, const UserTypeResolver* user_types)
      : text_(text), user_types_(user_types) {}

  std::optional<LogicalType> ReadAll(std::string* error) {
    int depth = 0;
    auto type = ReadType(error, &depth);
    if (!type) return std::nullopt;
    SkipSpace();
    if (pos_ != text_.size()) {
      *error = "unexpected '" + std::string(text_.substr(pos_)) + "' in type";
      return std::nullopt;
    }
    return type;
  }

 private:
  void SkipSpace() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  bool Consume(char c) {
    SkipSpace();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  std::string_view ReadWord() {
    SkipSpace();
    size_t start = pos_;
    while (pos_ < text_.size() &&
           (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_'))
      ++pos_;
    return text_.substr(start, pos_ - start);
  }

  // A field name: a word, or a `quoted name` (a doubled backtick stands for one).
  std::optional<std::string> ReadFieldName() {
    SkipSpace();
    if (pos_ >= text_.size() || text_[pos_] != '`') {
      std::string_view word = ReadWord();
      if (word.empty()) return std::nullopt;
      return std::string(word);
    }
    std::string name;
    for (size_t i = pos_ + 1; i < text_.size(); ++i) {
      if (text_[i] != '`') {
        name += text_[i];
      } else if (i + 1 < text_.size() && text_[i + 1] == '`') {
        name += '`';
        ++i;
      } else {
        pos_ = i + 1;
        if (name.empty()) return std::nullopt;
        return name;
      }
    }
    return std::nullopt;  // no closing backtick
  }

  // `*depth`: the most levels of nesting among the fields' types.
  std::optional<std::vector<std::pair<std::string, LogicalType>>> ReadFields(std::string* error,
                                                                             int* depth) {
    std::vector<std::pair<std::string, LogicalType>> fields;
    if (!Consume('(')) {
      *error = "expected '(' after STRUCT/UNION";
      return std::nullopt;
    }
    do {
      auto name = ReadFieldName();
      if (!name) {
        *error = "expected a field name";
        return std::nullopt;
      }
      int field_depth = 0;
      auto type = ReadType(error, &field_depth);
      if (!type) return std::nullopt;
      *depth = std::max(*depth, field_depth);
      fields.emplace_back(std::move(*name), std::move(*type));
    } while (Consume(','));
    if (!Consume(')')) {
      *error = "expected ')' to close the field list";
      return std::nullopt;
    }
    return fields;
  }

  // `*depth`: the levels of nesting of the type read (1 for a scalar type).
  std::optional<LogicalType> ReadBase(std::string* error, int* depth) {
    *depth = 1;
    std::string_view word = ReadWord();
    if (word.empty()) {
      *error = "expected a type name";
      return std::nullopt;
    }
    if (EqualsIgnoreCase(word, "STRUCT") || EqualsIgnoreCase(word, "UNION")) {
      int fields_depth = 0;
      auto fields = ReadFields(error, &fields_depth);
      if (!fields) return std::nullopt;
      std::unordered_set<std::string_view> names;  // linear in the fields, however many
      for (const auto& field : *fields) {
        if (!names.insert(field.first).second) {
          *error = "Duplicate field '" + field.first + "' in " +
                   (EqualsIgnoreCase(word, "STRUCT") ? "STRUCT" : "UNION") + " definition";
          return std::nullopt;
        }
      }
      *depth = fields_depth + 1;
      return EqualsIgnoreCase(word, "STRUCT") ? LogicalType::Struct(std::move(*fields))
                                              : LogicalType::Union(std::move(*fields));
    }
    if (EqualsIgnoreCase(word, "DECIMAL") || EqualsIgnoreCase(word, "NUMERIC"))
      return ReadDecimal(error);
    if (EqualsIgnoreCase(word, "MAP")) {
      if (!Consume('(')) {
        *error = "expected '(' after MAP";
        return std::nullopt;
      }
      int key_depth = 0;
      auto key = ReadType(error, &key_depth);
      if (!key) return std::nullopt;
      if (!Consume(',')) {
        *error = "expected ',' between MAP key and value types";
        return std::nullopt;
      }
      int value_depth = 0;
      auto value = ReadType(error, &value_depth);
      if (!value) return std::nullopt;
      *depth = std::max(key_depth, value_depth) + 1;
      if (!Consume(')')) {
        *error = "expected ')' to close MAP";
        return std::nullopt;
      }
      return LogicalType::Map(std::move(*key), std::move(*value));
    }
    for (const auto& entry : kScalarNames) {
      if (EqualsIgnoreCase(word, entry.name)) return LogicalType(entry.id);
    }
    if (user_types_ && *user_types_) {
      if (auto type = (*user_types_)(word)) return type;
    }
    std::string upper(word);
    for (auto& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    *error = kUnknownTypePrefix + upper + " is neither an internal type nor a user defined type.";
    return std::nullopt;
  }

  // An unsigned integer, or nullopt.
  std::optional<uint32_t> ReadNumber() {
    SkipSpace();
    size_t start = pos_;
    while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) ++pos_;
    uint32_t n = 0;
    auto [ptr, ec] = std::from_chars(text_.data() + start, text_.data() + pos_, n);
    (void)ptr;
    if (start == pos_ || ec != std::errc()) return std::nullopt;
    return n;
  }

  // After DECIMAL: nothing (18, 3), (precision) or (precision, scale).
  std::optional<LogicalType> ReadDecimal(std::string* error) {
    uint32_t precision = kDefaultDecimalPrecision;
    uint32_t scale = kDefaultDecimalScale;
    if (Consume('(')) {
      auto p = ReadNumber();
      std::optional<uint32_t> s = 0;
      if (p && Consume(',')) s = ReadNumber();
      if (!p || !s || !Consume(')')) {
        *error = "expected DECIMAL(precision, scale) with integer precision and scale";
        return std::nullopt;
      }
      precision = *p;
      scale = *s;
    }
    if (precision < 1 || precision > kMaxDecimalPrecision) {
      *error =
          "Precision of DECIMAL must be between 1 and 38 (got " + std::to_string(precision) + ")";
      return std::nullopt;
    }
    if (scale > precision) {
      *error = "DECIMAL scale must be no greater than its precision (DECIMAL(" +
               std::to_string(precision) + ", " + std::to_string(scale) + "))";
      return std::nullopt;
    }
    return LogicalType::Decimal(precision, scale);
  }

  // `*depth`: the levels of nesting of the type read; refused beyond kMaxTypeNesting.
  std::optional<LogicalType> ReadType(std::string* error, int* depth) {
    if (++nesting_ > kMaxTypeNesting) return TooDeep(error);
    auto type = ReadBase(error, depth);
    --nesting_;
    if (!type) return std::nullopt;
    // Suffixes: [] for LIST, [n] for ARRAY, repeatable.
    while (Consume('[')) {
      if (++*depth > kMaxTypeNesting) return TooDeep(error);
      SkipSpace();
      if (Consume(']')) {
        type = LogicalType::List(std::move(*type));
        continue;
      }
      size_t start = pos_;
      while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) ++pos_;
      uint32_t size = 0;
      auto [ptr, ec] = std::from_chars(text_.data() + start, text_.data() + pos_, size);
      if (ec != std::errc() || start == pos_ || size == 0 || !Consume(']')) {
        *error = "expected ']' or a positive array length";
        return std::nullopt;
      }
      (void)ptr;
      type = LogicalType::Array(std::move(*type), size);
    }
    return type;
  }

  static std::nullopt_t TooDeep(std::string* error) {
    *error =
        "the type is nested too deeply (more than " + std::to_string(kMaxTypeNesting) + " levels)";
    return std::nullopt;
  }

  std::string_view text_;
  const UserTypeResolver* user_types_;
  size_t pos_ = 0;
  int nesting_ = 0;  // ReadType calls in progress
};

std::string FieldsToString(const std::vector<StructField>& fields) {
  std::string out = "(";
  for (size_t i = 0; i < fields.size(); ++i) {
    if (i) out += ", ";
    out += fields[i].name;
    out += " ";
    out += fields[i].type->ToString();
  }
  out += ")";
  return out;
}

}  // namespace

LogicalType LogicalType::List(LogicalType child) {
  auto info = std::make_shared<Info>();
  info->fields.push_back({"", std::make_shared<const LogicalType>(std::move(child))});
  return LogicalType(LogicalTypeId::kList, std::move(info));
}

LogicalType LogicalType::Array(LogicalType child, uint32_t size) {
  auto info = std::make_shared<Info>();
  info->fields.push_back({"", std::make_shared<const LogicalType>(std::move(child))});
  info->array_size = size;
  return LogicalType(LogicalTypeId::kArray, std::move(info));
}

LogicalType LogicalType::Struct(std::vector<std::pair<std::string, LogicalType>> fields) {
  auto info = std::make_shared<Info>();
  for (auto& [name, type] : fields) {
    info->fields.push_back({std::move(name), std::make_shared<const LogicalType>(std::move(type))});
  }
  return LogicalType(LogicalTypeId::kStruct, std::move(info));
}

LogicalType LogicalType::Map(LogicalType key, LogicalType value) {
  // A map is a list of STRUCT(key, value), as in Kùzu.
  auto entry = Struct({{"key", std::move(key)}, {"value", std::move(value)}});
  auto info = std::make_shared<Info>();
  info->fields.push_back({"", std::make_shared<const LogicalType>(std::move(entry))});
  return LogicalType(LogicalTypeId::kMap, std::move(info));
}

LogicalType LogicalType::Union(std::vector<std::pair<std::string, LogicalType>> fields) {
  LogicalType type = Struct(std::move(fields));
  type.id_ = LogicalTypeId::kUnion;
  return type;
}

LogicalType LogicalType::Decimal(uint32_t precision, uint32_t scale) {
  GRAPHDB_ASSERT(precision >= 1 && precision <= kMaxDecimalPrecision && scale <= precision);
  auto info = std::make_shared<Info>();
  info->precision = precision;
  info->scale = scale;
  return LogicalType(LogicalTypeId::kDecimal, std::move(info));
}

uint32_t LogicalType::precision() const {
  GRAPHDB_ASSERT(id_ == LogicalTypeId::kDecimal);
  return info_ ? info_->precision : kDefaultDecimalPrecision;
}

uint32_t LogicalType::scale() const {
  GRAPHDB_ASSERT(id_ == LogicalTypeId::kDecimal);
  return info_ ? info_->scale : kDefaultDecimalScale;
}

const LogicalType& LogicalType::child() const {
  GRAPHDB_ASSERT(
      info_ && !info_->fields.empty() &&
      (id_ == LogicalTypeId::kList || id_ == LogicalTypeId::kArray || id_ == LogicalTypeId::kMap));
  return *info_->fields[0].type;
}

uint32_t LogicalType::array_size() const {
  GRAPHDB_ASSERT(id_ == LogicalTypeId::kArray && info_);
  return info_->array_size;
}

const std::vector<StructField>& LogicalType::fields() const {
  static const std::vector<StructField> kEmpty;
  if (id_ != LogicalTypeId::kStruct && id_ != LogicalTypeId::kUnion) return kEmpty;
  return info_->fields;
}

std::optional<size_t> LogicalType::FieldIndex(std::string_view name) const {
  const auto& all = fields();
  for (size_t i = 0; i < all.size(); ++i) {
    if (EqualsIgnoreCase(all[i].name, name)) return i;
  }
  return std::nullopt;
}

const LogicalType& LogicalType::map_key() const {
  GRAPHDB_ASSERT(id_ == LogicalTypeId::kMap);
  return *child().info_->fields[0].type;
}

const LogicalType& LogicalType::map_value() const {
  GRAPHDB_ASSERT(id_ == LogicalTypeId::kMap);
  return *child().info_->fields[1].type;
}

bool LogicalType::IsNested() const {
  switch (id_) {
    case LogicalTypeId::kList:
    case LogicalTypeId::kArray:
    case LogicalTypeId::kStruct:
    case LogicalTypeId::kMap:
    case LogicalTypeId::kUnion: return true;
    default: return false;
  }
}

bool LogicalType::IsInteger() const {
  switch (id_) {
    case LogicalTypeId::kInt8:
    case LogicalTypeId::kInt16:
    case LogicalTypeId::kInt32:
    case LogicalTypeId::kInt64:
    case LogicalTypeId::kInt128:
    case LogicalTypeId::kUInt8:
    case LogicalTypeId::kUInt16:
    case LogicalTypeId::kUInt32:
    case LogicalTypeId::kUInt64:
    case LogicalTypeId::kSerial: return true;
    default: return false;
  }
}

bool LogicalType::IsNumeric() const {
  return IsInteger() || id_ == LogicalTypeId::kFloat || id_ == LogicalTypeId::kDouble ||
         id_ == LogicalTypeId::kDecimal;
}

bool LogicalType::IsTimestamp() const {
  return id_ == LogicalTypeId::kTimestamp || id_ == LogicalTypeId::kTimestampTz ||
         id_ == LogicalTypeId::kTimestampNs || id_ == LogicalTypeId::kTimestampMs ||
         id_ == LogicalTypeId::kTimestampSec;
}

const char* LogicalTypeIdName(LogicalTypeId id) {
  switch (id) {
    case LogicalTypeId::kAny: return "ANY";
    case LogicalTypeId::kBool: return "BOOL";
    case LogicalTypeId::kInt8: return "INT8";
    case LogicalTypeId::kInt16: return "INT16";
    case LogicalTypeId::kInt32: return "INT32";
    case LogicalTypeId::kInt64: return "INT64";
    case LogicalTypeId::kInt128: return "INT128";
    case LogicalTypeId::kUInt8: return "UINT8";
    case LogicalTypeId::kUInt16: return "UINT16";
    case LogicalTypeId::kUInt32: return "UINT32";
    case LogicalTypeId::kUInt64: return "UINT64";
    case LogicalTypeId::kFloat: return "FLOAT";
    case LogicalTypeId::kDouble: return "DOUBLE";
    case LogicalTypeId::kString: return "STRING";
    case LogicalTypeId::kBlob: return "BLOB";
    case LogicalTypeId::kJson: return "json";
    case LogicalTypeId::kUuid: return "UUID";
    case LogicalTypeId::kDate: return "DATE";
    case LogicalTypeId::kTimestamp: return "TIMESTAMP";
    case LogicalTypeId::kTimestampTz: return "TIMESTAMP_TZ";
    case LogicalTypeId::kTimestampNs: return "TIMESTAMP_NS";
    case LogicalTypeId::kTimestampMs: return "TIMESTAMP_MS";
    case LogicalTypeId::kTimestampSec: return "TIMESTAMP_SEC";
    case LogicalTypeId::kInterval: return "INTERVAL";
    case LogicalTypeId::kSerial: return "SERIAL";
    case LogicalTypeId::kInternalId: return "INTERNAL_ID";
    case LogicalTypeId::kList: return "LIST";
    case LogicalTypeId::kArray: return "ARRAY";
    case LogicalTypeId::kStruct: return "STRUCT";
    case LogicalTypeId::kMap: return "MAP";
    case LogicalTypeId::kUnion: return "UNION";
    case LogicalTypeId::kNode: return "NODE";
    case LogicalTypeId::kRel: return "REL";
    case LogicalTypeId::kRecursiveRel: return "RECURSIVE_REL";
    case LogicalTypeId::kDecimal: return "DECIMAL";
  }
  return "ANY";
}

std::string LogicalType::ToString() const {
  switch (id_) {
    case LogicalTypeId::kDecimal:
      return "DECIMAL(" + std::to_string(precision()) + ", " + std::to_string(scale()) + ")";
    case LogicalTypeId::kList: return child().ToString() + "[]";
    case LogicalTypeId::kArray:
      return child().ToString() + "[" + std::to_string(array_size()) + "]";
    case LogicalTypeId::kStruct: return "STRUCT" + FieldsToString(fields());
    case LogicalTypeId::kUnion: return "UNION" + FieldsToString(fields());
    case LogicalTypeId::kMap:
      return "MAP(" + map_key().ToString() + ", " + map_value().ToString() + ")";
    default: return LogicalTypeIdName(id_);
  }
}

bool LogicalType::operator==(const LogicalType& other) const {
  if (id_ != other.id_) return false;
  if (id_ == LogicalTypeId::kDecimal) {
    if (!info_ || !other.info_) return info_ == other.info_;
    return info_->precision == other.info_->precision && info_->scale == other.info_->scale;
  }
  if (!IsNested()) return true;
  if (info_ == other.info_) return true;
  if (!info_ || !other.info_) return false;
  if (info_->array_size != other.info_->array_size) return false;
  if (info_->fields.size() != other.info_->fields.size()) return false;
  for (size_t i = 0; i < info_->fields.size(); ++i) {
    if (!EqualsIgnoreCase(info_->fields[i].name, other.info_->fields[i].name)) return false;
    if (*info_->fields[i].type != *other.info_->fields[i].type) return false;
  }
  return true;
}

std::optional<LogicalType> ParseLogicalType(std::string_view text, std::string* error,
                                            const UserTypeResolver* user_types) {
  return TypeReader(text, user_types).ReadAll(error);
}

}  // namespace graphdb
