#include "main/request.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>

#include "common/utf8.h"
#include "cypher/parser/parser.h"
#include "exec/secondary_index.h"
#include "function/aggregate_function.h"
#include "function/scalar_function.h"

namespace graphdb {

namespace {

constexpr int kMaxDepth = 64;

Status JsonError(std::string what, size_t offset) {
  return Status(ErrorCode::kInvalidRequest,
                "request body is not valid JSON: " + what + " at byte " + std::to_string(offset));
}

// The element type of a list built from JSON values: equal types, INT64 widened to DOUBLE,
// NULL fitting anything; otherwise the values do not form a list.
class JsonReader {
 public:
  explicit JsonReader(std::string_view text) : s_(text) {}

  Result<Value> ReadDocument() {
    Value v;
    Status status = ReadValue(&v, 0);
    if (!status.ok()) return status;
    SkipSpace();
    if (pos_ != s_.size()) return JsonError("unexpected trailing characters", pos_);
    return v;
  }

  // Reads the top-level object, handing each member to `member(key, value)`.
  template <typename F>
  Status ReadObject(F&& member) {
    SkipSpace();
    if (Peek() != '{')
      return Status(ErrorCode::kInvalidRequest, "request body must be a JSON object");
    Status status = ReadMembers(0, member);
    if (!status.ok()) return status;
    SkipSpace();
    if (pos_ != s_.size()) return JsonError("unexpected trailing characters", pos_);
    return Status::OK();
  }

 private:
  char Peek() const { return pos_ < s_.size() ? s_[pos_] : '\0'; }
  void SkipSpace() {
    while (pos_ < s_.size() &&
           (s_[pos_] == ' ' || s_[pos_] == '\n' || s_[pos_] == '\r' || s_[pos_] == '\t'))
      ++pos_;
  }

  bool ReadHex4(uint32_t* out) {
    if (pos_ + 4 > s_.size()) return false;
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) {
      char c = s_[pos_++];
      v <<= 4;
      if (c >= '0' && c <= '9')
        v |= static_cast<uint32_t>(c - '0');
      else if (c >= 'a' && c <= 'f')
        v |= static_cast<uint32_t>(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F')
        v |= static_cast<uint32_t>(c - 'A' + 10);
      else
        return false;
    }
    *out = v;
    return true;
  }

  Status ReadString(std::string* out) {
    if (Peek() != '"') return JsonError("expected a string", pos_);
    ++pos_;
    while (true) {
      if (pos_ >= s_.size()) return JsonError("unterminated string", pos_);
      char c = s_[pos_++];
      if (c == '"') return Status::OK();
      if (static_cast<unsigned char>(c) < 0x20)
        return JsonError("control character in string", pos_ - 1);
      if (c != '\\') {
        *out += c;
        continue;
      }
      if (pos_ >= s_.size()) return JsonError("unterminated escape", pos_);
      char e = s_[pos_++];
      switch (e) {
        case '"': *out += '"'; break;
        case '\\': *out += '\\'; break;
        case '/': *out += '/'; break;
        case 'b': *out += '\b'; break;
        case 'f': *out += '\f'; break;
        case 'n': *out += '\n'; break;
        case 'r': *out += '\r'; break;
        case 't': *out += '\t'; break;
        case 'u': {
          uint32_t cp;
          if (!ReadHex4(&cp)) return JsonError("bad \\u escape", pos_);
          if (cp >= 0xD800 && cp <= 0xDBFF) {
            uint32_t low;
            if (pos_ + 2 <= s_.size() && s_[pos_] == '\\' && s_[pos_ + 1] == 'u') {
              pos_ += 2;
              if (!ReadHex4(&low) || low < 0xDC00 || low > 0xDFFF)
                return JsonError("bad surrogate pair", pos_);
              cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
            } else {
              return JsonError("unpaired surrogate", pos_);
            }
          } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
            return JsonError("unpaired surrogate", pos_);
          }
          AppendUtf8(*out, cp);
          break;
        }
        default: return JsonError(std::string("bad escape \\") + e, pos_ - 1);
      }
    }
  }

  Status ReadNumber(Value* out) {
    size_t start = pos_;
    if (Peek() == '-') ++pos_;
    bool is_double = false;
    while (pos_ < s_.size()) {
      char c = s_[pos_];
      if (c >= '0' && c <= '9') {
        ++pos_;
      } else if (c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-') {
        is_double = true;
        ++pos_;
      } else {
        break;
      }
    }
    std::string_view text = s_.substr(start, pos_ - start);
    if (text.empty() || text == "-") return JsonError("bad number", start);
    if (!is_double) {
      int64_t v;
      auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
      if (ec == std::errc() && ptr == text.data() + text.size()) {
        *out = Value::Int64(v);
        return Status::OK();
      }
      // Beyond INT64: INT128 when it fits, down to -2^127.
      bool negative = text[0] == '-';
      const unsigned __int128 limit =
          (static_cast<unsigned __int128>(1) << 127) - (negative ? 0 : 1);
      unsigned __int128 mag = 0;
      for (char c : text.substr(negative ? 1 : 0)) {
        unsigned __int128 next = mag * 10 + static_cast<unsigned>(c - '0');
        if (next / 10 != mag || next > limit) return JsonError("integer out of range", start);
        mag = next;
      }
      *out = Value::Int128(static_cast<int128_t>(negative ? -mag : mag));
      return Status::OK();
    }
    std::string copy(text);
    char* end = nullptr;
    double d = std::strtod(copy.c_str(), &end);
    if (end != copy.c_str() + copy.size() || !std::isfinite(d))
      return JsonError("bad number", start);
    *out = Value::Double(d);
    return Status::OK();
  }

  // REQUIRES: Peek() == '{'. Reads `{"key": value, ...}`, calling member(key, value).
  template <typename F>
  Status ReadMembers(int depth, F&& member) {
    ++pos_;
    SkipSpace();
    if (Peek() == '}') {
      ++pos_;
      return Status::OK();
    }
    while (true) {
      SkipSpace();
      std::string key;
      Status status = ReadString(&key);
      if (!status.ok()) return status;
      SkipSpace();
      if (Peek() != ':') return JsonError("expected ':'", pos_);
      ++pos_;
      Value value;
      status = ReadValue(&value, depth + 1);
      if (!status.ok()) return status;
      status = member(key, std::move(value));
      if (!status.ok()) return status;
      SkipSpace();
      if (Peek() == ',') {
        ++pos_;
        continue;
      }
      if (Peek() == '}') {
        ++pos_;
        return Status::OK();
      }
      return JsonError("expected ',' or '}'", pos_);
    }
  }

  // `depth` counts the arrays and objects around the value (the request object is the first).
  Status ReadValue(Value* out, int depth) {
    SkipSpace();
    char c = Peek();
    if ((c == '[' || c == '{') && depth >= kMaxDepth) {
      return JsonError("nesting too deep (more than " + std::to_string(kMaxDepth) + " levels)",
                       pos_);
    }
    if (c == '"') {
      std::string s;
      Status status = ReadString(&s);
      if (status.ok()) *out = Value::String(s);
      return status;
    }
    if (c == '-' || (c >= '0' && c <= '9')) return ReadNumber(out);
    if (s_.substr(pos_, 4) == "true") {
      pos_ += 4;
      *out = Value::Boolean(true);
      return Status::OK();
    }
    if (s_.substr(pos_, 5) == "false") {
      pos_ += 5;
      *out = Value::Boolean(false);
      return Status::OK();
    }
    if (s_.substr(pos_, 4) == "null") {
      pos_ += 4;
      *out = Value::Null();
      return Status::OK();
    }
    if (c == '[') {
      ++pos_;
      std::vector<Value> items;
      LogicalType element = LogicalType::Any();
      SkipSpace();
      if (Peek() == ']') {
        ++pos_;
      } else {
        while (true) {
          size_t at = pos_;
          Value item;
          Status status = ReadValue(&item, depth + 1);
          if (!status.ok()) return status;
          auto unified = UnifyParameterTypes(element, item.type());
          if (!unified) {
            return Status(ErrorCode::kInvalidRequest,
                          "list parameter mixes element types " + element.ToString() + " and " +
                              item.type().ToString() + " (at byte " + std::to_string(at) + ")");
          }
          element = *unified;
          items.push_back(std::move(item));
          SkipSpace();
          if (Peek() == ',') {
            ++pos_;
            continue;
          }
          if (Peek() == ']') {
            ++pos_;
            break;
          }
          return JsonError("expected ',' or ']'", pos_);
        }
      }
      for (auto& item : items) item = WidenParameterValue(std::move(item), element);
      *out = Value::Nested(LogicalType::List(element), std::move(items));
      return Status::OK();
    }
    if (c == '{') {
      std::vector<std::pair<std::string, LogicalType>> fields;
      std::vector<Value> values;
      Status status = ReadMembers(depth, [&](const std::string& key, Value v) {
        fields.emplace_back(key, v.type());
        values.push_back(std::move(v));
        return Status::OK();
      });
      if (!status.ok()) return status;
      *out = Value::Nested(LogicalType::Struct(std::move(fields)), std::move(values));
      return Status::OK();
    }
    if (pos_ >= s_.size()) return JsonError("unexpected end of input", pos_);
    return JsonError(std::string("unexpected character '") + c + "'", pos_);
  }

  std::string_view s_;
  size_t pos_ = 0;
};

}  // namespace

const char* AccessModeName(AccessMode mode) {
  switch (mode) {
    case AccessMode::kRead: return "read";
    case AccessMode::kInsert: return "insert";
    case AccessMode::kUpdate: return "update";
    case AccessMode::kSchema: return "schema";
  }
  return "read";
}

std::optional<AccessMode> ParseAccessMode(std::string_view text) {
  if (text == "read" || text == "r") return AccessMode::kRead;
  if (text == "insert" || text == "i") return AccessMode::kInsert;
  if (text == "update" || text == "u") return AccessMode::kUpdate;
  if (text == "schema" || text == "s") return AccessMode::kSchema;
  return std::nullopt;
}

AccessMode StatementAccessMode(const parser::ParsedStatement& statement) {
  switch (statement.kind) {
    case parser::StatementKind::kQuery: {
      AccessMode mode = AccessMode::kRead;
      for (const auto& single : statement.As<parser::ParsedQueryStatement>().query.queries) {
        for (const auto& clause : single.clauses) {
          switch (clause->kind) {
            case parser::ClauseKind::kCreate:
              if (mode == AccessMode::kRead) mode = AccessMode::kInsert;
              break;
            case parser::ClauseKind::kMerge:
            case parser::ClauseKind::kSet:
            case parser::ClauseKind::kDelete:
            case parser::ClauseKind::kRemove: return AccessMode::kUpdate;
            default: break;
          }
        }
      }
      return mode;
    }
    case parser::StatementKind::kCopyFrom: return AccessMode::kInsert;
    case parser::StatementKind::kCopyTo:
    case parser::StatementKind::kExportDatabase:  // reads the tables; writes files only
      return AccessMode::kRead;
    case parser::StatementKind::kCallFunction:
      // CALL CREATE_FTS_INDEX(...) and the other index DDL calls change the schema.
      return exec::IsIndexDdlFunction(statement.As<parser::ParsedCallFunction>().function->name)
                 ? AccessMode::kSchema
                 : AccessMode::kRead;
    case parser::StatementKind::kStandaloneCall:
    case parser::StatementKind::kTransaction: return AccessMode::kRead;
    case parser::StatementKind::kCheckpoint: return AccessMode::kUpdate;
    default:  // DDL
      return AccessMode::kSchema;
  }
}

namespace {

// Whether the binder takes `name` for a function of the library, never for a macro
// (Binder::BindFunction).
bool NamesLibraryFunction(const std::string& name) {
  std::string lower = name;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return lower == "typeof" || function::IsScalarFunction(lower) ||
         function::IsGraphFunction(lower) || function::IsAggregateFunction(lower) ||
         function::IsLambdaFunction(lower);
}

// Whether a call of one of the functions `names` changes the database: one that does itself
// (nextval()), or a macro of `catalog` whose body or defaults call one, directly or through
// other macros (`seen`: the macros looked into already). Names the binder takes for a
// function of the library are not macros (Binder::BindFunction).
bool CallsChangeTheDatabase(const std::vector<std::string>& names, const catalog::Catalog* catalog,
                            std::vector<const catalog::MacroDefinition*>& seen) {
  for (const std::string& name : names) {
    if (function::ScalarFunctionChangesDatabase(name)) return true;
    if (catalog == nullptr || NamesLibraryFunction(name)) continue;
    const catalog::MacroDefinition* macro = catalog->GetMacro(name);
    if (macro == nullptr || std::find(seen.begin(), seen.end(), macro) != seen.end()) continue;
    seen.push_back(macro);
    std::vector<std::string> called;
    try {
      called = parser::ExpressionFunctionNames(macro->body);
      for (const auto& [parameter, text] : macro->defaults) {
        for (std::string& inner : parser::ExpressionFunctionNames(text))
          called.push_back(std::move(inner));
      }
    } catch (const std::exception&) {
      continue;  // the binder fails on the call, before anything runs
    }
    if (CallsChangeTheDatabase(called, catalog, seen)) return true;
  }
  return false;
}

}  // namespace

bool MayCallMacros(const std::vector<std::unique_ptr<parser::ParsedStatement>>& statements) {
  for (const auto& statement : statements) {
    for (const std::string& name : statement->function_names) {
      if (!NamesLibraryFunction(name)) return true;
    }
  }
  return false;
}

AccessMode RequiredAccessMode(const parser::ParsedStatement& statement,
                              const catalog::Catalog* catalog) {
  // A setting is the administrator's business, whatever it changes.
  if (statement.kind == parser::StatementKind::kStandaloneCall) return AccessMode::kSchema;
  // So is the server's file system: COPY TO writes there even from a read.
  if (statement.names_server_files) return AccessMode::kSchema;
  AccessMode mode = StatementAccessMode(statement);
  std::vector<const catalog::MacroDefinition*> seen;
  // nextval() hands out a value for good: a write, as an insert that draws one is.
  if (mode == AccessMode::kRead &&
      CallsChangeTheDatabase(statement.function_names, catalog, seen)) {
    return AccessMode::kInsert;
  }
  return mode;
}

AccessMode RequiredAccessMode(
    const std::vector<std::unique_ptr<parser::ParsedStatement>>& statements,
    const catalog::Catalog* catalog) {
  AccessMode mode = AccessMode::kRead;
  for (const auto& statement : statements) {
    AccessMode m = RequiredAccessMode(*statement, catalog);
    if (static_cast<int>(m) > static_cast<int>(mode)) mode = m;
  }
  return mode;
}

Result<Value> ParseJsonValue(std::string_view json) { return JsonReader(json).ReadDocument(); }

Result<QueryRequest> ParseQueryRequest(std::string_view json) {
  QueryRequest request;
  bool have_query = false;
  JsonReader reader(json);
  Status status = reader.ReadObject([&](const std::string& key, const Value& value) {
    if (key == "query") {
      if (value.type_id() != LogicalTypeId::kString || value.is_null()) {
        return Status(ErrorCode::kInvalidRequest, "'query' must be a string");
      }
      request.query = std::string(value.GetString());
      have_query = true;
    } else if (key == "access_mode") {
      if (value.is_null()) return Status::OK();
      if (value.type_id() != LogicalTypeId::kString) {
        return Status(ErrorCode::kInvalidRequest, "'access_mode' must be a string");
      }
      auto mode = ParseAccessMode(value.GetString());
      if (!mode) {
        return Status(ErrorCode::kInvalidRequest,
                      "unknown access_mode '" + std::string(value.GetString()) +
                          "' (expected read, insert, update, schema or r, i, u, s)");
      }
      request.access_mode = mode;
    } else if (key == "timeout_ms") {
      if (value.is_null()) return Status::OK();
      constexpr int64_t kMaxTimeoutMs = 2147483647;
      if (value.type_id() != LogicalTypeId::kInt64 || value.GetInt() < 1 ||
          value.GetInt() > kMaxTimeoutMs) {
        return Status(ErrorCode::kInvalidRequest,
                      "'timeout_ms' must be a whole number of milliseconds from 1 to 2147483647");
      }
      request.timeout_ms = static_cast<uint32_t>(value.GetInt());
    } else if (key == "parameters") {
      if (value.is_null()) return Status::OK();
      if (value.type_id() != LogicalTypeId::kStruct) {
        return Status(ErrorCode::kInvalidRequest, "'parameters' must be an object");
      }
      const auto& fields = value.type().fields();
      for (size_t i = 0; i < fields.size(); ++i) {
        request.parameters[fields[i].name] = value.children()[i];
      }
    }
    return Status::OK();
  });
  if (!status.ok()) return status;
  if (!have_query) return Status(ErrorCode::kInvalidRequest, "'query' is required");
  if (request.query.find_first_not_of(" \t\r\n") == std::string::npos) {
    return Status(ErrorCode::kInvalidRequest, "'query' must not be empty");
  }
  return request;
}

}  // namespace graphdb
