// JSON text: a strict RFC 8259 reader into a small document tree, and a compact writer.
//
// The JSON type (LogicalTypeId::kJson) holds JSON text as written by the user or by to_json();
// functions that look inside a document (json_extract, json_keys, casts to other types...)
// parse it with ParseJson, and functions that build one write a JsonNode with WriteJson.
//
// Reading follows RFC 8259 strictly, as Kùzu's JSON extension does: no trailing commas, no
// comments, no leading zeros, no NaN or Infinity, strings valid UTF-8 with only the escapes
// the RFC names. Numbers without a fraction or exponent that fit INT64 (or UINT64) read as
// integers, others as doubles. Objects keep their members in document order, duplicate keys
// included. Nesting deeper than kMaxJsonDepth is refused (the reader recurses), and so is text
// after the value.
//
// Writing is compact (no spaces): {"a":1,"b":[true,null]}; doubles in their shortest form that
// reads back to the same value.
//
// Thread-safety: pure functions over values the caller owns.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace graphdb {

inline constexpr uint32_t kMaxJsonDepth = 512;

struct JsonNode {
  enum class Kind : uint8_t { kNull, kBool, kInt, kUInt, kDouble, kString, kArray, kObject };

  Kind kind = Kind::kNull;
  bool b = false;
  int64_t i = 0;                  // kInt
  uint64_t u = 0;                 // kUInt: only values above INT64's maximum
  double d = 0;                   // kDouble
  std::string str;                // kString: the decoded text
  std::vector<JsonNode> items;    // kArray: the elements; kObject: the members' values
  std::vector<std::string> keys;  // kObject: the members' keys, parallel to items

  static JsonNode Null() { return JsonNode(); }
  static JsonNode Bool(bool v);
  static JsonNode Int(int64_t v);
  static JsonNode UInt(uint64_t v);  // reads back as kInt when it fits
  static JsonNode Double(double v);
  static JsonNode String(std::string v);
  static JsonNode Array(std::vector<JsonNode> items = {});
  static JsonNode Object();

  bool is_null() const { return kind == Kind::kNull; }
  bool is_number() const {
    return kind == Kind::kInt || kind == Kind::kUInt || kind == Kind::kDouble;
  }
  // Appends a member (objects) or an element (arrays).
  void Add(std::string key, JsonNode value);
  void Push(JsonNode value) { items.push_back(std::move(value)); }
  // The first member named `key`, or null.
  const JsonNode* Find(std::string_view key) const;
};

// Parses `text`; false with *error set ("... at byte N") when it is not one JSON value.
bool ParseJson(std::string_view text, JsonNode* out, std::string* error);
// Parses the value that starts at *pos (after white space) in a text that holds several (a file
// of records); on success *pos is just past it. False with *error set when it is malformed.
bool ParseJsonValueAt(std::string_view text, size_t* pos, JsonNode* out, std::string* error);
// Whether `text` is one JSON value (ParseJson without building the tree).
bool IsValidJson(std::string_view text);

// Appends the compact text of `node` to *out.
void WriteJson(const JsonNode& node, std::string* out);
std::string WriteJson(const JsonNode& node);
// Appends `text` as a JSON string literal (quotes and escapes) to *out.
void WriteJsonString(std::string_view text, std::string* out);
// The shortest decimal text that reads back as `v` ("1.5", "1e+100", "-0.0"); JSON has no
// NaN or infinity, so those write as null.
void WriteJsonDouble(double v, std::string* out);

}  // namespace graphdb
